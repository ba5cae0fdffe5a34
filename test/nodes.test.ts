import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import { makePdf, PNG, uploadFile } from './helpers/assets.js';
import type { BoardBody, Deleted, EdgeBody, ErrorBody, Node, NodeBody, NodeInput, NodeList } from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, type Response, type TestUser, TIMESTAMP, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

const NODE_FIELDS = ['created_at', 'id', 'node_data', 'node_type', 'parent_node_id', 'position_x', 'position_y', 'updated_at'];

const makeBoard = (user: TestUser, extra?: Record<string, unknown>) => server.makeBoard(user, extra);

function postNode<T = NodeBody>(token: string, boardId: string, body: unknown) {
  return server.request<T>('POST', `/v1/boards/${boardId}/nodes`, { token, body });
}

const makeNode = (user: TestUser, boardId: string, body: Partial<NodeInput> = {}): Promise<Node> =>
  server.makeNode(user, boardId, { data: { text: 'hi' }, ...body });

function assert400(res: Response<unknown>, pattern: RegExp): void {
  assert.equal(res.status, 400, res.text);
  assert.ok(isErrorEnvelope(res.body, 400));
  assert.equal(res.body.code, 'invalid_request');
  assert.match(res.body.message, pattern);
}

const pdfData = {
  storagePath: 'u/b/1700000000000-a.pdf',
  publicUrl: 'http://localhost:3000/storage/u/b/1700000000000-a.pdf',
  fileSize: 1234,
};

describe('nodes: create', () => {
  test('each type is created with exactly the contract fields', async () => {
    const boardId = await makeBoard(alice);
    // pdf and image nodes name an uploaded asset of the board.
    const pdf = (await uploadFile(server, alice, boardId, await makePdf(2), 'paper.pdf', 'application/pdf')).nodeData;
    const image = (await uploadFile(server, alice, boardId, PNG, 'pixel.png', 'image/png')).nodeData;
    const cases: [string, Record<string, unknown>, string][] = [
      ['video', { url: 'https://www.youtube.com/watch?v=abc', label: 'Talk' }, 'video'],
      ['youtube', { url: 'https://youtu.be/abc' }, 'video'],
      ['url', { url: 'http://example.com/page?q=1', label: 'Page' }, 'url'],
      ['note', { text: '', label: 'Empty note' }, 'note'],
      ['document', { text: 'body' }, 'document'],
      ['document', { text: 'body', url: 'https://example.com/doc' }, 'document'],
      ['pdf', { ...pdf, label: 'Paper' }, 'pdf'],
      ['image', { ...image, width: 10 }, 'image'],
    ];
    for (const [type, data, stored] of cases) {
      const res = await postNode(alice.token, boardId, { type, position: { x: 10.5, y: -3 }, data });
      assert.equal(res.status, 201, `${type}: ${res.text}`);
      assert.equal(res.body.object, 'node');
      const n = res.body.data;
      assert.deepEqual(Object.keys(n).sort(), NODE_FIELDS);
      assert.equal(n.node_type, stored);
      assert.equal(n.position_x, 10.5);
      assert.equal(n.position_y, -3);
      assert.deepEqual(n.node_data, data);
      assert.equal(n.parent_node_id, null);
      assert.match(n.created_at, TIMESTAMP);
      assert.equal(n.created_at, n.updated_at);
    }
  });

  test('unknown data keys are kept; a parent of the same board is accepted', async () => {
    const boardId = await makeBoard(alice);
    const parent = await makeNode(alice, boardId);
    const data = { text: 'x', width: 320, color: '#fff', nested: { a: [1, 2, { b: null }] } };
    const child = await makeNode(alice, boardId, { data, parent_node_id: parent.id });
    assert.deepEqual(child.node_data, data);
    assert.equal(child.parent_node_id, parent.id);
    const explicitNull = await makeNode(alice, boardId, { parent_node_id: null });
    assert.equal(explicitNull.parent_node_id, null);
  });

  test('node writes bump the board updated_at, refused ones do not', async () => {
    const boardId = await makeBoard(alice);
    const updatedAt = async () =>
      (await server.request<BoardBody>('GET', `/v1/boards/${boardId}`, { token: alice.token })).body.data.updated_at;
    const before = await updatedAt();
    await sleep(5);
    const node = await makeNode(alice, boardId);
    const afterCreate = await updatedAt();
    assert.ok(afterCreate > before);
    await sleep(5);
    const refused = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: alice.token,
      // Refused inside the write's transaction, after the board is locked.
      body: { parent_node_id: '0190f3a0-0000-7000-8000-000000000000' },
    });
    assert.ok(refused.status >= 400 && refused.status < 500, refused.text);
    assert.equal(await updatedAt(), afterCreate);
    const deleted = await server.request('DELETE', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.ok((await updatedAt()) > afterCreate);
  });

  test('body validation: types, unknown fields, positions', async () => {
    const boardId = await makeBoard(alice);
    const ok = { type: 'note', position: { x: 0, y: 0 }, data: { text: '' } };
    assert400(await postNode(alice.token, boardId, { ...ok, type: 'videoNode' }), /type/);
    assert400(await postNode(alice.token, boardId, { ...ok, type: undefined }), /type is required/);
    assert400(await postNode(alice.token, boardId, { ...ok, colour: 'red' }), /colour is not a recognised field/);
    assert400(await postNode(alice.token, boardId, { ...ok, position: undefined }), /position is required/);
    assert400(await postNode(alice.token, boardId, { ...ok, position: { x: 1 } }), /position\.y is required/);
    assert400(await postNode(alice.token, boardId, { ...ok, position: { x: '1', y: 0 } }), /position\.x/);
    assert400(await postNode(alice.token, boardId, { ...ok, position: { x: 1e13, y: 0 } }), /position\.x/);
    assert400(await postNode(alice.token, boardId, { ...ok, position: { x: 0, y: 0, z: 0 } }), /position\.z/);
    assert400(await postNode(alice.token, boardId, { ...ok, data: undefined }), /data is required/);
    assert400(await postNode(alice.token, boardId, { ...ok, data: [] }), /data/);
    assert400(await postNode(alice.token, boardId, { ...ok, data: 'text' }), /data/);
    assert400(await postNode(alice.token, boardId, { ...ok, parent_node_id: 'nope' }), /parent_node_id/);
    const raw = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      raw: '{"type":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(raw.status, 400);
  });

  test('data validation per type', async () => {
    const boardId = await makeBoard(alice);
    const post = (type: string, data: unknown) => postNode(alice.token, boardId, { type, position: { x: 0, y: 0 }, data });
    assert400(await post('video', {}), /data\.url is required/);
    assert400(await post('url', { url: 42 }), /data\.url/);
    for (const url of [
      'example.com',
      '/relative',
      'ftp://example.com/x',
      'javascript:alert(1)',
      'http://',
      'not a url',
      `https://x.com/${'a'.repeat(9000)}`,
    ]) {
      assert400(await post('url', { url }), /data\.url must be an absolute http or https URL/);
    }
    assert400(await post('note', {}), /data\.text is required/);
    assert400(await post('note', { text: 5 }), /data\.text/);
    assert400(await post('note', { text: 'x', label: 7 }), /data\.label must be a string/);
    assert400(await post('document', { url: 'https://example.com' }), /data\.text is required/);
    assert400(await post('document', { text: 'x', url: 'mailto:a@b.c' }), /data\.url/);
    assert400(await post('pdf', { ...pdfData, storagePath: undefined }), /data\.storagePath/);
    assert400(await post('pdf', { ...pdfData, storagePath: '' }), /data\.storagePath/);
    assert400(await post('image', { ...pdfData, publicUrl: 3 }), /data\.publicUrl/);
    assert400(await post('image', { ...pdfData, fileSize: undefined }), /data\.fileSize/);
    assert400(await post('image', { ...pdfData, fileSize: 1.5 }), /data\.fileSize/);
    assert400(await post('pdf', { ...pdfData, fileSize: -1 }), /data\.fileSize/);
    assert400(await post('pdf', { ...pdfData, fileSize: '12' }), /data\.fileSize/);
  });

  test('size caps: note text 100,000 characters, the other data 64 KiB', async () => {
    const boardId = await makeBoard(alice);
    const post = (type: string, data: unknown) => postNode(alice.token, boardId, { type, position: { x: 0, y: 0 }, data });
    const longest = await post('note', { text: 'é'.repeat(100_000) });
    assert.equal(longest.status, 201);
    assert.equal((longest.body.data.node_data.text as string).length, 100_000);
    // Code points count, not UTF-16 units: 100,000 emoji are 100,000 characters.
    assert.equal((await post('note', { text: '😀'.repeat(100_000) })).status, 201);
    assert400(await post('note', { text: 'a'.repeat(100_001) }), /data\.text is longer than 100000 characters/);
    assert400(await post('document', { text: 'a'.repeat(100_001) }), /data\.text/);
    assert400(await post('note', { text: '', blob: 'x'.repeat(64 * 1024) }), /data is larger than 64 KiB/);
    assert400(await post('url', { url: 'https://e.com', text: 'x'.repeat(64 * 1024) }), /data is larger than 64 KiB/);
    assert.equal((await post('note', { text: '', blob: 'x'.repeat(60 * 1024) })).status, 201);
  });

  test('text PostgreSQL cannot store is a 400, not a 500', async () => {
    const boardId = await makeBoard(alice);
    const post = (data: unknown) => postNode(alice.token, boardId, { type: 'note', position: { x: 0, y: 0 }, data });
    assert400(await post({ text: 'a\u0000b' }), /NUL/);
    assert400(await post({ text: 'x', 'k\u0000': 1 }), /NUL/);
    assert400(await post({ text: 'x', deep: { list: ['\ud800'] } }), /invalid Unicode/);
    let nested: unknown = 'leaf';
    for (let i = 0; i < 200; i++) nested = [nested];
    assert400(await post({ text: 'x', nested }), /nested/);
  });

  test('parent must be a node of the same board', async () => {
    const boardId = await makeBoard(alice);
    const otherBoard = await makeBoard(alice);
    const foreign = await makeNode(alice, otherBoard);
    assert400(
      await postNode(alice.token, boardId, { type: 'note', position: { x: 0, y: 0 }, data: { text: '' }, parent_node_id: foreign.id }),
      /parent_node_id is not a node of this board/,
    );
    assert400(
      await postNode(alice.token, boardId, { type: 'note', position: { x: 0, y: 0 }, data: { text: '' }, parent_node_id: MISSING_ID }),
      /parent_node_id/,
    );
    // nothing was written by the failed attempts
    const list = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token });
    assert.deepEqual(list.body.data, []);
  });
});

describe('nodes: list and get', () => {
  test('pagination across pages with inserts between pages, exact has_more', async () => {
    const boardId = await makeBoard(alice);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await makeNode(alice, boardId, { data: { text: `n${i}` } })).id);
    const url = `/v1/boards/${boardId}/nodes`;
    const p1 = await server.request<NodeList>('GET', `${url}?limit=2`, { token: alice.token });
    assert.equal(p1.status, 200);
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(
      p1.body.data.map((n) => n.node_data.text),
      ['n4', 'n3'],
    );
    assert.deepEqual(Object.keys(p1.body.data[0] ?? {}).sort(), NODE_FIELDS);
    assert.equal(p1.body.has_more, true);
    await makeNode(alice, boardId, { data: { text: 'late' } });
    const p2 = await server.request<NodeList>('GET', `${url}?limit=2&cursor=${p1.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      p2.body.data.map((n) => n.node_data.text),
      ['n2', 'n1'],
    );
    assert.equal(p2.body.has_more, true);
    const p3 = await server.request<NodeList>('GET', `${url}?limit=2&cursor=${p2.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      p3.body.data.map((n) => n.node_data.text),
      ['n0'],
    );
    assert.equal(p3.body.has_more, false);
    assert.equal(p3.body.cursor, null);
    // exactly a full last page: has_more is false, not a wasted empty page
    const asc = await server.request<NodeList>('GET', `${url}?limit=3&order=asc`, { token: alice.token });
    assert.deepEqual(
      asc.body.data.map((n) => n.node_data.text),
      ['n0', 'n1', 'n2'],
    );
    assert.equal(asc.body.has_more, true);
    const asc2 = await server.request<NodeList>('GET', `${url}?limit=3&cursor=${asc.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      asc2.body.data.map((n) => n.node_data.text),
      ['n3', 'n4', 'late'],
    );
    assert.equal(asc2.body.has_more, false);
    assert.equal(asc2.body.cursor, null);
    const defaultPage = await server.request<NodeList>('GET', url, { token: alice.token });
    assert.equal(defaultPage.body.data.length, 6);
    assert.equal(defaultPage.body.data[0]?.node_data.text, 'late');
  });

  test('type filter (youtube reads as video) with cursors scoped to board and filter', async () => {
    const boardId = await makeBoard(alice);
    for (let i = 0; i < 3; i++) {
      await makeNode(alice, boardId, { type: 'video', data: { url: `https://youtu.be/${i}` } });
      await makeNode(alice, boardId, { data: { text: `t${i}` } });
    }
    const url = `/v1/boards/${boardId}/nodes`;
    const videos = await server.request<NodeList>('GET', `${url}?type=video&limit=2`, { token: alice.token });
    assert.deepEqual(
      videos.body.data.map((n) => n.node_data.url),
      ['https://youtu.be/2', 'https://youtu.be/1'],
    );
    assert.equal(videos.body.has_more, true);
    const alias = await server.request<NodeList>('GET', `${url}?type=youtube&limit=2&cursor=${videos.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      alias.body.data.map((n) => n.node_data.url),
      ['https://youtu.be/0'],
    );
    assert.equal(alias.body.has_more, false);
    const notes = await server.request<NodeList>('GET', `${url}?type=note&limit=10`, { token: alice.token });
    assert.equal(notes.body.data.length, 3);
    assert.ok(notes.body.data.every((n) => n.node_type === 'note'));
    assert.deepEqual((await server.request<NodeList>('GET', `${url}?type=pdf`, { token: alice.token })).body.data, []);
    // a cursor of another filter or another board is refused
    assert400(await server.request<NodeList>('GET', `${url}?type=note&cursor=${videos.body.cursor}`, { token: alice.token }), /cursor/);
    assert400(await server.request<NodeList>('GET', `${url}?cursor=${videos.body.cursor}`, { token: alice.token }), /cursor/);
    const otherBoard = await makeBoard(alice);
    assert400(
      await server.request<NodeList>('GET', `/v1/boards/${otherBoard}/nodes?type=video&cursor=${videos.body.cursor}`, {
        token: alice.token,
      }),
      /cursor/,
    );
    assert400(
      await server.request<NodeList>('GET', `${url}?type=video&order=asc&cursor=${videos.body.cursor}`, { token: alice.token }),
      /cursor/,
    );
    assert400(await server.request<NodeList>('GET', `${url}?cursor=garbage`, { token: alice.token }), /cursor/);
    assert400(await server.request<NodeList>('GET', `${url}?type=folder`, { token: alice.token }), /type/);
    assert400(await server.request<NodeList>('GET', `${url}?limit=0`, { token: alice.token }), /limit/);
    assert400(await server.request<NodeList>('GET', `${url}?limit=101`, { token: alice.token }), /limit/);
    assert400(await server.request<NodeList>('GET', `${url}?sort=asc`, { token: alice.token }), /sort is not a recognised query parameter/);
  });

  test('get one; unknown and malformed ids are 404', async () => {
    const boardId = await makeBoard(alice);
    const n = await makeNode(alice, boardId, { type: 'url', position: { x: 1, y: 2 }, data: { url: 'https://e.com', label: 'E' } });
    const got = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${n.id}`, { token: alice.token });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, { object: 'node', data: n });
    for (const id of [MISSING_ID, 'not-a-uuid']) {
      const res = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token });
      assert.equal(res.status, 404);
      assert.ok(isErrorEnvelope(res.body, 404));
    }
    assert.equal(
      (await server.request<ErrorBody>('GET', `/v1/boards/${boardId}/nodes/${MISSING_ID}`, { token: alice.token })).body.message,
      'Node not found',
    );
  });
});

describe('nodes: update', () => {
  test('position, shallow data merge with null removal, updated_at', async () => {
    const boardId = await makeBoard(alice);
    const n = await makeNode(alice, boardId, { data: { text: 'a', label: 'L', color: 'red', width: 100 } });
    await sleep(5);
    const res = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${n.id}`, {
      token: alice.token,
      body: { position: { x: 5, y: 6 }, data: { text: 'b', color: null, height: 50 } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.object, 'node');
    const u = res.body.data;
    assert.deepEqual(Object.keys(u).sort(), NODE_FIELDS);
    assert.deepEqual([u.position_x, u.position_y], [5, 6]);
    assert.deepEqual(u.node_data, { text: 'b', label: 'L', width: 100, height: 50 });
    assert.equal(u.created_at, n.created_at);
    assert.ok(u.updated_at > n.updated_at);
    // only the given fields change
    const moved = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${n.id}`, {
      token: alice.token,
      body: { position: { x: 0, y: 0 } },
    });
    assert.deepEqual(moved.body.data.node_data, u.node_data);
    const got = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${n.id}`, { token: alice.token });
    assert.deepEqual(got.body.data, moved.body.data);
  });

  test('required keys must stay valid after the merge', async () => {
    const boardId = await makeBoard(alice);
    const note = await makeNode(alice, boardId);
    const link = await makeNode(alice, boardId, { type: 'url', data: { url: 'https://e.com' } });
    const patch = (id: string, body: unknown) =>
      server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token, body });
    assert400(await patch(note.id, { data: { text: null } }), /data\.text is required/);
    assert400(await patch(link.id, { data: { url: null } }), /data\.url is required/);
    assert400(await patch(link.id, { data: { url: 'file:///etc/passwd' } }), /data\.url/);
    assert400(await patch(link.id, { data: { label: 3 } }), /data\.label/);
    assert400(await patch(link.id, { data: { big: 'x'.repeat(70_000) } }), /64 KiB/);
    assert400(await patch(link.id, { type: 'note' }), /type is not a recognised field/);
    assert400(await patch(link.id, {}), /body/);
    assert400(await patch(link.id, { position: { x: 'a', y: 0 } }), /position\.x/);
    // the failed attempts changed nothing
    const got = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${link.id}`, { token: alice.token });
    assert.deepEqual(got.body.data, link);
  });

  test('parent: set, detach, other board, self and longer cycles', async () => {
    const boardId = await makeBoard(alice);
    const [a, b, c] = [await makeNode(alice, boardId), await makeNode(alice, boardId), await makeNode(alice, boardId)];
    const patch = (id: string, body: unknown) =>
      server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token, body });
    assert.equal((await patch(b.id, { parent_node_id: a.id })).body.data.parent_node_id, a.id);
    assert.equal((await patch(c.id, { parent_node_id: b.id })).body.data.parent_node_id, b.id);
    assert400(await patch(a.id, { parent_node_id: a.id }), /ancestor/);
    assert400(await patch(a.id, { parent_node_id: c.id }), /ancestor/);
    assert400(await patch(a.id, { parent_node_id: b.id }), /ancestor/);
    const foreign = await makeNode(alice, await makeBoard(alice));
    assert400(await patch(a.id, { parent_node_id: foreign.id }), /parent_node_id is not a node of this board/);
    assert400(await patch(a.id, { parent_node_id: MISSING_ID }), /parent_node_id is not a node of this board/);
    // moving within the same chain is fine, and null detaches
    assert.equal((await patch(c.id, { parent_node_id: a.id })).body.data.parent_node_id, a.id);
    assert.equal((await patch(c.id, { parent_node_id: null })).body.data.parent_node_id, null);
    assert.equal((await patch(a.id, { parent_node_id: c.id })).status, 200);
  });

  test('concurrent opposite re-parenting cannot create a cycle', async () => {
    const boardId = await makeBoard(alice);
    for (let round = 0; round < 5; round++) {
      const a = await makeNode(alice, boardId);
      const b = await makeNode(alice, boardId);
      const [r1, r2] = await Promise.all([
        server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${a.id}`, { token: alice.token, body: { parent_node_id: b.id } }),
        server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${b.id}`, { token: alice.token, body: { parent_node_id: a.id } }),
      ]);
      assert.deepEqual([r1.status, r2.status].sort(), [200, 400]);
    }
  });
});

describe('nodes: delete', () => {
  test('deletes the node and its edges; children are detached with a new updated_at', async () => {
    const boardId = await makeBoard(alice);
    const parent = await makeNode(alice, boardId);
    const child = await makeNode(alice, boardId, { parent_node_id: parent.id });
    const other = await makeNode(alice, boardId);
    const edge = await server.request<EdgeBody>('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { source_node_id: parent.id, target_node_id: other.id },
    });
    assert.equal(edge.status, 201);
    await sleep(5);
    const del = await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/nodes/${parent.id}`, { token: alice.token });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { object: 'node', data: { id: parent.id, deleted: true } });
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/nodes/${parent.id}`, { token: alice.token })).status, 404);
    // Deleting it again succeeds with no change (test/client-ids.test.ts).
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${parent.id}`, { token: alice.token })).status, 200);
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/edges/${edge.body.data.id}`, { token: alice.token })).status, 404);
    const orphan = (await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${child.id}`, { token: alice.token })).body.data;
    assert.equal(orphan.parent_node_id, null);
    assert.ok(orphan.updated_at > child.updated_at);
    const list = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token });
    assert.deepEqual(list.body.data.map((n) => n.id).sort(), [child.id, other.id].sort());
  });
});

describe('nodes: access', () => {
  test("another user's private board is 404 on every node route", async () => {
    const boardId = await makeBoard(alice);
    const n = await makeNode(alice, boardId);
    const body = { type: 'note', position: { x: 0, y: 0 }, data: { text: '' } };
    for (const [method, path, payload] of [
      ['POST', `/v1/boards/${boardId}/nodes`, body],
      ['GET', `/v1/boards/${boardId}/nodes`],
      ['GET', `/v1/boards/${boardId}/nodes/${n.id}`],
      ['PATCH', `/v1/boards/${boardId}/nodes/${n.id}`, { position: { x: 1, y: 1 } }],
      ['DELETE', `/v1/boards/${boardId}/nodes/${n.id}`],
    ] as const) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body: payload });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Board not found');
    }
    const still = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${n.id}`, { token: alice.token });
    assert.deepEqual(still.body.data, n);
  });

  test('a node of another board is 404 under my board, even my own', async () => {
    const mine = await makeBoard(bob);
    const alicesBoard = await makeBoard(alice);
    const bobsOther = await makeBoard(bob);
    for (const foreign of [await makeNode(alice, alicesBoard), await makeNode(bob, bobsOther)]) {
      for (const [method, payload] of [['GET'], ['PATCH', { position: { x: 1, y: 1 } }], ['DELETE']] as const) {
        const res = await server.request<ErrorBody>(method, `/v1/boards/${mine}/nodes/${foreign.id}`, { token: bob.token, body: payload });
        assert.equal(res.status, 404, method);
        assert.equal(res.body.message, 'Node not found');
      }
    }
    assert.equal((await server.request('GET', `/v1/boards/${MISSING_ID}/nodes`, { token: bob.token })).status, 404);
  });

  test('public view board: others read, writes are 403', async () => {
    const boardId = await makeBoard(alice, { is_public: true, public_access_level: 'view' });
    const n = await makeNode(alice, boardId);
    assert.equal((await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: bob.token })).body.data.length, 1);
    assert.deepEqual((await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${n.id}`, { token: bob.token })).body.data, n);
    const body = { type: 'note', position: { x: 0, y: 0 }, data: { text: '' } };
    for (const [method, path, payload] of [
      ['POST', `/v1/boards/${boardId}/nodes`, body],
      ['PATCH', `/v1/boards/${boardId}/nodes/${n.id}`, { position: { x: 1, y: 1 } }],
      ['DELETE', `/v1/boards/${boardId}/nodes/${n.id}`],
    ] as const) {
      const res = await server.request(method, path, { token: bob.token, body: payload });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.ok(isErrorEnvelope(res.body, 403));
      assert.equal(res.body.code, 'forbidden');
    }
    assert.deepEqual((await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${n.id}`, { token: alice.token })).body.data, n);
  });

  test('public edit board: others write with the write scope, not with read only', async () => {
    const boardId = await makeBoard(alice, { is_public: true, public_access_level: 'edit' });
    const created = await makeNode(bob, boardId, { data: { text: 'by bob' } });
    const patched = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${created.id}`, {
      token: bob.token,
      body: { data: { text: 'edited' } },
    });
    assert.equal(patched.status, 200);
    const readOnly = (await bob.keyWith(['read'])).raw_key;
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/nodes/${created.id}`, { token: readOnly })).status, 200);
    const denied = await postNode<ErrorBody>(readOnly, boardId, { type: 'note', position: { x: 0, y: 0 }, data: { text: '' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'Missing required scope: write');
    const jwt = await bob.jwt();
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${created.id}`, { token: jwt })).status, 200);
    assert.equal((await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token })).body.data.length, 0);
  });
});

describe('nodes: reads right after writes', () => {
  // The embedded database serves repeated single-node reads from memory; every write must show.
  test('a read after each kind of write sees the write', async () => {
    const boardId = await makeBoard(alice);
    const node = await makeNode(alice, boardId, { data: { text: 'v1' } });
    const child = await makeNode(alice, boardId, { parent_node_id: node.id });
    const read = (user: TestUser, id: string) =>
      server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${id}`, { token: user.token });
    assert.equal((await read(alice, node.id)).body.data.node_data.text, 'v1');
    assert.equal((await read(alice, child.id)).body.data.parent_node_id, node.id);

    await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: alice.token,
      body: { data: { text: 'v2' } },
    });
    assert.equal((await read(alice, node.id)).body.data.node_data.text, 'v2');

    // visibility follows the board at once, both ways
    assert.equal((await read(bob, node.id)).status, 404);
    await server.request<BoardBody>('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: true } });
    assert.equal((await read(bob, node.id)).status, 200);
    await server.request<BoardBody>('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: false } });
    assert.equal((await read(bob, node.id)).status, 404);

    await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token });
    assert.equal((await read(alice, node.id)).status, 404);
    assert.equal((await read(alice, child.id)).body.data.parent_node_id, null);

    await server.request<Deleted>('DELETE', `/v1/boards/${boardId}`, { token: alice.token });
    assert.equal((await read(alice, child.id)).status, 404);
  });

  test('reads racing writes end on the written value', async () => {
    const boardId = await makeBoard(alice);
    const node = await makeNode(alice, boardId, { data: { text: 'start' } });
    for (let round = 0; round < 5; round++) {
      const reads = Array.from({ length: 10 }, () =>
        server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token }),
      );
      const write = server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
        token: alice.token,
        body: { data: { text: `r${round}` } },
      });
      await Promise.all([...reads, write]);
      const after = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token });
      assert.equal(after.body.data.node_data.text, `r${round}`);
    }
  });
});
