// Optimistic concurrency on single nodes and edges (RFC 9110 §13): a strong ETag on their answers,
// If-Match on PATCH and DELETE (412 precondition_failed when the resource changed meanwhile, checked
// inside the write's transaction behind the board lock), and If-None-Match on GET (304).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Deleted, Edge, EdgeBody, EdgeList, ErrorBody, Node, NodeBody, NodeList, OpenApiDocument } from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, type Response, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let boardId: string;

before(async () => {
  alice = await server.user();
  boardId = await server.makeBoard(alice);
});

const STRONG_TAG = /^"[A-Za-z0-9_-]{22}"$/;
const nodePath = (id: string) => `/v1/boards/${boardId}/nodes/${id}`;
const edgePath = (id: string) => `/v1/boards/${boardId}/edges/${id}`;

function etagOf(res: Response<unknown>): string {
  const tag = res.headers.get('etag');
  assert.ok(tag, `no ETag on ${res.status} ${res.text.slice(0, 200)}`);
  assert.match(tag, STRONG_TAG);
  return tag;
}

function assert412(res: Response<unknown>): void {
  assert.equal(res.status, 412, res.text);
  assert.ok(isErrorEnvelope(res.body, 412));
  assert.equal((res.body as ErrorBody).code, 'precondition_failed');
}

const getNode = (id: string, headers?: Record<string, string>) =>
  server.request<NodeBody>('GET', nodePath(id), { token: alice.token, headers });
const patchNode = (id: string, body: unknown, ifMatch?: string) =>
  server.request<NodeBody>('PATCH', nodePath(id), {
    token: alice.token,
    body,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
const deleteNode = (id: string, ifMatch?: string) =>
  server.request<Deleted>('DELETE', nodePath(id), { token: alice.token, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });

async function newNode(text = 'first'): Promise<{ node: Node; tag: string }> {
  const res = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
    token: alice.token,
    body: { type: 'note', position: { x: 1, y: 2 }, data: { text } },
  });
  assert.equal(res.status, 201, res.text);
  return { node: res.body.data, tag: etagOf(res) };
}

describe('nodes', () => {
  test('POST, GET and PATCH answer a strong ETag that is stable while the node is, and changes with it; lists carry none', async () => {
    const { node, tag } = await newNode();
    // The first read (a fresh row; on the embedded database it fills the node cache) and the second
    // (from the cache there) give the tag of the create's answer.
    assert.equal(etagOf(await getNode(node.id)), tag);
    assert.equal(etagOf(await getNode(node.id)), tag);

    const patched = await patchNode(node.id, { data: { text: 'second' } });
    assert.equal(patched.status, 200, patched.text);
    const newTag = etagOf(patched);
    assert.notEqual(newTag, tag);
    assert.equal(etagOf(await getNode(node.id)), newTag);
    assert.equal(etagOf(await getNode(node.id)), newTag);

    // Only a position change: still a different representation, so a different tag.
    const moved = await patchNode(node.id, { position: { x: 5, y: 6 } });
    assert.notEqual(etagOf(moved), newTag);

    const list = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('etag'), null);
  });

  test('PATCH with a stale If-Match is 412 and changes nothing; with the current tag it is 200', async () => {
    const { node, tag } = await newNode();
    const changed = await patchNode(node.id, { data: { text: 'by someone else' } });
    const current = etagOf(changed);

    const stale = await patchNode(node.id, { data: { text: 'mine' } }, tag);
    assert412(stale);
    assert.equal(stale.headers.get('etag'), current, 'a 412 tells the current tag');
    const after = await getNode(node.id);
    assert.equal(after.body.data.node_data.text, 'by someone else');
    assert.equal(after.body.data.updated_at, changed.body.data.updated_at);
    assert.equal(etagOf(after), current);

    const ok = await patchNode(node.id, { data: { text: 'mine' } }, current);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.node_data.text, 'mine');
    assert.notEqual(etagOf(ok), current);
  });

  test('If-Match: * and lists match a current tag; a weak tag never matches (strong comparison)', async () => {
    const { node, tag } = await newNode();
    assert412(await patchNode(node.id, { data: { text: 'weak' } }, `W/${tag}`));
    assert.equal((await getNode(node.id)).body.data.node_data.text, 'first');

    const listed = await patchNode(node.id, { data: { text: 'listed' } }, `"AAAAAAAAAAAAAAAAAAAAAA", W/${tag} ,${tag}`);
    assert.equal(listed.status, 200, listed.text);
    assert412(await patchNode(node.id, { data: { text: 'listed again' } }, `"AAAAAAAAAAAAAAAAAAAAAA", ${tag}`));

    const any = await patchNode(node.id, { data: { text: 'any' } }, '*');
    assert.equal(any.status, 200, any.text);
    assert.equal(any.body.data.node_data.text, 'any');
  });

  test('a malformed If-Match is 400 and changes nothing', async () => {
    const { node, tag } = await newNode();
    for (const bad of ['abc', tag.slice(1, -1), '"unterminated', '*, "a"', '"a" "b"', 'w/"a"', ',']) {
      const res = await patchNode(node.id, { data: { text: 'bad' } }, bad);
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.ok(isErrorEnvelope(res.body, 400));
      assert.match(res.text, /If-Match/);
    }
    const del = await deleteNode(node.id, 'abc');
    assert.equal(del.status, 400, del.text);
    const after = await getNode(node.id);
    assert.equal(after.body.data.node_data.text, 'first');
    assert.equal(etagOf(after), tag);
  });

  test('DELETE with a stale If-Match is 412 and deletes nothing; with the current tag it deletes', async () => {
    const { node, tag } = await newNode();
    const current = etagOf(await patchNode(node.id, { position: { x: 9, y: 9 } }));
    assert412(await deleteNode(node.id, tag));
    assert412(await deleteNode(node.id, `W/${current}`));
    assert.equal((await getNode(node.id)).status, 200);
    const deleted = await deleteNode(node.id, current);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await getNode(node.id)).status, 404);
    // Gone: a repeated delete has already succeeded, whatever If-Match says (RFC 9110 §13.1.1; test/client-ids.test.ts).
    assert.equal((await deleteNode(node.id, '*')).status, 200);
    // Missing: 404 comes before any precondition (RFC 9110 §13.2.1).
    assert.equal((await deleteNode(MISSING_ID, '*')).status, 404);
    assert.equal((await patchNode(MISSING_ID, { position: { x: 0, y: 0 } }, current)).status, 404);
  });

  test('deleting a parent detaches its children: their tags change with them', async () => {
    const parent = await newNode('parent');
    const child = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'child' }, parent_node_id: parent.node.id },
    });
    const childTag = etagOf(child);
    assert.equal((await deleteNode(parent.node.id, parent.tag)).status, 200);
    assert412(await patchNode(child.body.data.id, { data: { text: 'x' } }, childTag));
  });

  test('GET with If-None-Match naming the current tag is 304 with no body; otherwise 200', async () => {
    const { node, tag } = await newNode();
    const notModified = await getNode(node.id, { 'if-none-match': tag });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');
    assert.equal(notModified.headers.get('etag'), tag);
    // If-None-Match compares weakly: a weak form of the tag still names this copy.
    assert.equal((await getNode(node.id, { 'if-none-match': `"x", W/${tag}` })).status, 304);
    assert.equal((await getNode(node.id, { 'if-none-match': '*' })).status, 304);
    const other = await getNode(node.id, { 'if-none-match': '"AAAAAAAAAAAAAAAAAAAAAA"' });
    assert.equal(other.status, 200);
    assert.equal(other.body.data.id, node.id);
    assert.equal((await getNode(node.id, { 'if-none-match': 'nonsense' })).status, 400);
  });

  test('two PATCHes racing with the same tag: exactly one is 200, the other 412', async () => {
    for (let round = 0; round < 6; round++) {
      const { node, tag } = await newNode();
      const answers = await Promise.all([
        patchNode(node.id, { data: { text: 'a' } }, tag),
        patchNode(node.id, { data: { text: 'b' } }, tag),
      ]);
      const statuses = answers.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 412], answers.map((r) => r.text).join('\n'));
      const winner = answers.find((r) => r.status === 200)!;
      const now = await getNode(node.id);
      assert.equal(now.body.data.node_data.text, winner.body.data.node_data.text);
      assert.equal(etagOf(now), etagOf(winner));
    }
  });

  test('a PATCH and a DELETE racing with the same tag: exactly one wins', async () => {
    for (let round = 0; round < 4; round++) {
      const { node, tag } = await newNode();
      const [patched, deleted] = await Promise.all([patchNode(node.id, { data: { text: 'a' } }, tag), deleteNode(node.id, tag)]);
      const wins = [patched.status, deleted.status].filter((s) => s === 200).length;
      assert.equal(wins, 1, `${patched.status} ${patched.text} / ${deleted.status} ${deleted.text}`);
      // The loser is 412 (the other changed it) or, for a PATCH after the delete, 404.
      const loser = patched.status === 200 ? deleted.status : patched.status;
      assert.ok(loser === 412 || loser === 404, String(loser));
    }
  });

  test('without If-Match the last write wins, as before', async () => {
    const { node, tag } = await newNode();
    assert.equal((await patchNode(node.id, { data: { text: 'one' } })).status, 200);
    const two = await patchNode(node.id, { data: { label: 'two' } });
    assert.equal(two.status, 200);
    assert.deepEqual(two.body.data.node_data, { text: 'one', label: 'two' });
    assert.notEqual(etagOf(two), tag);
  });

  test('an idempotent replay of a create carries the same ETag', async () => {
    const body = { type: 'note', position: { x: 0, y: 0 }, data: { text: 'once' } };
    const headers = { 'idempotency-key': `etag-${Date.now()}` };
    const first = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body, headers });
    const replay = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body, headers });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(etagOf(replay), etagOf(first));
  });
});

describe('edges', () => {
  let a: Node;
  let b: Node;
  before(async () => {
    a = (await newNode('a')).node;
    b = (await newNode('b')).node;
  });

  const getEdge = (id: string, headers?: Record<string, string>) =>
    server.request<EdgeBody>('GET', edgePath(id), { token: alice.token, headers });
  const patchEdge = (id: string, body: unknown, ifMatch?: string) =>
    server.request<EdgeBody>('PATCH', edgePath(id), {
      token: alice.token,
      body,
      headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
    });
  const deleteEdge = (id: string, ifMatch?: string) =>
    server.request<Deleted>('DELETE', edgePath(id), { token: alice.token, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });
  async function newEdge(): Promise<{ edge: Edge; tag: string }> {
    const res = await server.request<EdgeBody>('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { source_node_id: a.id, target_node_id: b.id, data: { weight: 1 } },
    });
    assert.equal(res.status, 201, res.text);
    return { edge: res.body.data, tag: etagOf(res) };
  }

  test('POST, GET and PATCH answer the ETag; it changes with the edge; lists carry none', async () => {
    const { edge, tag } = await newEdge();
    assert.equal(etagOf(await getEdge(edge.id)), tag);
    const patched = await patchEdge(edge.id, { data: { weight: 2 } });
    assert.equal(patched.status, 200, patched.text);
    assert.notEqual(etagOf(patched), tag);
    assert.equal(etagOf(await getEdge(edge.id)), etagOf(patched));
    assert.equal((await getEdge(edge.id, { 'if-none-match': etagOf(patched) })).status, 304);
    const list = await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: alice.token });
    assert.equal(list.headers.get('etag'), null);
  });

  test('stale If-Match on PATCH and DELETE is 412 and changes nothing; current, * and lists pass; weak never', async () => {
    const { edge, tag } = await newEdge();
    const current = etagOf(await patchEdge(edge.id, { type: 'renamed' }));
    assert412(await patchEdge(edge.id, { data: { weight: 3 } }, tag));
    assert412(await patchEdge(edge.id, { data: { weight: 3 } }, `W/${current}`));
    assert412(await deleteEdge(edge.id, tag));
    const after = await getEdge(edge.id);
    assert.deepEqual(after.body.data.edge_data, { weight: 1 });
    assert.equal(etagOf(after), current);
    assert.equal((await patchEdge(edge.id, { data: { weight: 3 } }, 'x')).status, 400);

    const ok = await patchEdge(edge.id, { data: { weight: 3 } }, `"nope", ${current}`);
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await patchEdge(edge.id, { data: { weight: 4 } }, '*')).status, 200);
    const latest = etagOf(await getEdge(edge.id));
    assert.equal((await deleteEdge(edge.id, latest)).status, 200);
    assert.equal((await getEdge(edge.id)).status, 404);
  });

  test('two PATCHes racing with the same tag: exactly one is 200, the other 412', async () => {
    for (let round = 0; round < 6; round++) {
      const { edge, tag } = await newEdge();
      const answers = await Promise.all([patchEdge(edge.id, { data: { w: 'a' } }, tag), patchEdge(edge.id, { data: { w: 'b' } }, tag)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 412], answers.map((r) => r.text).join('\n'));
    }
  });
});

test('the OpenAPI document shows If-Match, If-None-Match, the ETag header, 304 and 412', async () => {
  const doc = (await server.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
  for (const resource of ['nodes', 'edges']) {
    const single = doc.paths[`/v1/boards/{boardId}/${resource}/{id}`]!;
    for (const method of ['patch', 'delete']) {
      const op = single[method]!;
      assert.ok(
        op.parameters?.some((p) => p.in === 'header' && p.name === 'if-match'),
        `${method} ${resource}: If-Match`,
      );
      assert.ok(op.responses?.['412'], `${method} ${resource}: 412`);
    }
    assert.ok(
      single.get!.parameters?.some((p) => p.in === 'header' && p.name === 'if-none-match'),
      `get ${resource}: If-None-Match`,
    );
    assert.ok(single.get!.responses?.['304'], `get ${resource}: 304`);
    for (const [method, status] of [
      ['get', '200'],
      ['patch', '200'],
    ] as const) {
      assert.equal(single[method]!.responses?.[status]?.headers?.ETag?.schema?.type, 'string', `${method} ${resource}: ETag`);
    }
    assert.ok(doc.paths[`/v1/boards/{boardId}/${resource}`]!.post!.responses?.['201']?.headers?.ETag, `post ${resource}: ETag`);
    assert.equal(doc.paths[`/v1/boards/{boardId}/${resource}`]!.get!.responses?.['200']?.headers, undefined, 'lists carry no ETag');
  }
});
