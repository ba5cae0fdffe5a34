// Client-chosen ids (docs/api.md, "Replaying a queue of edits safely"): a create repeated with its
// id and body answers as the first did and writes nothing; an id used anywhere else is one 409 that
// tells nothing of where; a deleted id is not brought back; a repeated delete succeeds; a repeated
// update whose If-Match no longer holds is recognised when its change is already there.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Deleted, EdgeBody, ErrorBody, NodeBody } from './helpers/api-types.js';
import { type TestUser, useServer } from './helpers/harness.js';

const server = useServer();

interface EventPage {
  data: { seq: number; type: string; data: { id: string } }[];
}
interface BatchAnswer {
  data: { results: { op: string; id: string; ref?: string; node?: { id: string }; edge?: { id: string; source_node_id: string } }[] };
}

const noteBody = (id: string, text = 'hello', x = 1) => ({ id, type: 'note', position: { x, y: 2 }, data: { text } });

async function events(user: TestUser, boardId: string) {
  const page = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=0&limit=100`, { token: user.token });
  assert.equal(page.status, 200, page.text);
  return page.body.data.map((e) => `${e.type} ${e.data.id}`);
}

async function nodeCount(user: TestUser, boardId: string) {
  const res = await server.request<{ data: unknown[] }>('GET', `/v1/boards/${boardId}/nodes?limit=100`, { token: user.token });
  return res.body.data.length;
}

describe('node create with a client-chosen id', () => {
  test('a repeat answers 201 with the node as it is now, one node, one event', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const id = randomUUID();
    const first = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.id, id);
    const again = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    // Moved since: the repeat is still recognised (by its body, not the node's state) and answers the node as it is now.
    const moved = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${id}`, {
      token: alice.token,
      body: { position: { x: 50, y: 60 } },
    });
    assert.equal(moved.status, 200, moved.text);
    const late = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) });
    assert.equal(late.status, 201, late.text);
    assert.equal(late.body.data.position_x, 50);
    assert.equal(late.headers.get('etag'), moved.headers.get('etag'));
    assert.equal(await nodeCount(alice, boardId), 1);
    assert.deepEqual(await events(alice, boardId), [`node.created ${id}`, `node.updated ${id}`]);
  });

  test('an upper-case id and youtube for video are the same create', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const id = randomUUID();
    const body = { type: 'youtube', position: { x: 0, y: 0 }, data: { url: 'https://www.youtube.com/watch?v=x' } };
    const first = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: { ...body, id } });
    assert.equal(first.status, 201, first.text);
    const again = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { ...body, type: 'video', id: id.toUpperCase() },
    });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, first.body);
  });

  test('the same id with another body is 409 and changes nothing', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const id = randomUUID();
    assert.equal((await server.request('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) })).status, 201);
    const other = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: noteBody(id, 'something else'),
    });
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.code, 'conflict');
    const node = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token });
    assert.equal(node.body.data.node_data.text, 'hello');
    assert.deepEqual(await events(alice, boardId), [`node.created ${id}`]);
  });

  test("another user's id, another board's, an edge's and a deleted one's are all one 409, revealing nothing", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const aliceBoard = await server.makeBoard(alice);
    const secondBoard = await server.makeBoard(alice);
    const bobBoard = await server.makeBoard(bob);
    const bobNode = await server.makeNode(bob, bobBoard, { data: { text: 'secret' } });
    const a = await server.makeNode(alice, aliceBoard);
    const b = await server.makeNode(alice, aliceBoard);
    const edge = await server.makeEdge(alice, aliceBoard, a.id, b.id);
    const onSecond = await server.makeNode(alice, secondBoard);
    const gone = await server.makeNode(alice, aliceBoard);
    assert.equal((await server.request('DELETE', `/v1/boards/${aliceBoard}/nodes/${gone.id}`, { token: alice.token })).status, 200);
    const bobEventsBefore = await events(bob, bobBoard);

    const messages = new Set<string>();
    for (const id of [bobNode.id, onSecond.id, edge.id, gone.id, a.id]) {
      const res = await server.request<ErrorBody>('POST', `/v1/boards/${aliceBoard}/nodes`, { token: alice.token, body: noteBody(id) });
      assert.equal(res.status, 409, `${id}: ${res.text}`);
      assert.equal(res.body.code, 'conflict');
      assert.ok(!res.text.includes('secret') && !res.text.includes(bobBoard));
      messages.add(res.body.message);
    }
    // An edge create with a node's id is the same answer.
    const asEdge = await server.request<ErrorBody>('POST', `/v1/boards/${aliceBoard}/edges`, {
      token: alice.token,
      body: { id: bobNode.id, source_node_id: a.id, target_node_id: b.id },
    });
    assert.equal(asEdge.status, 409, asEdge.text);
    messages.add(asEdge.body.message);
    assert.equal(messages.size, 1, [...messages].join(' | '));

    const bobsNode = await server.request<NodeBody>('GET', `/v1/boards/${bobBoard}/nodes/${bobNode.id}`, { token: bob.token });
    assert.deepEqual(bobsNode.body.data, bobNode);
    assert.deepEqual(await events(bob, bobBoard), bobEventsBefore);
    assert.equal(await nodeCount(alice, aliceBoard), 2);
  });

  test('a deleted id is not brought back by a late repeat of its create', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const id = randomUUID();
    assert.equal((await server.request('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) })).status, 201);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token })).status, 200);
    const late = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: noteBody(id) });
    assert.equal(late.status, 409, late.text);
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token })).status, 404);
  });

  test('concurrent creates of one id: one node, one event, every answer 201 or 409', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const otherBoard = await server.makeBoard(alice);
    const id = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        server.request<NodeBody>('POST', `/v1/boards/${i % 4 === 3 ? otherBoard : boardId}/nodes`, {
          token: alice.token,
          body: noteBody(id),
        }),
      ),
    );
    for (const res of answers) assert.ok(res.status === 201 || res.status === 409, `${res.status} ${res.text}`);
    assert.ok(answers.some((res) => res.status === 201));
    const nodes = (await nodeCount(alice, boardId)) + (await nodeCount(alice, otherBoard));
    assert.equal(nodes, 1);
    const all = [...(await events(alice, boardId)), ...(await events(alice, otherBoard))];
    assert.deepEqual(all, [`node.created ${id}`]);
  });
});

describe('edge create with a client-chosen id', () => {
  test('a repeat is the same answer; another body or a used id is 409', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const a = await server.makeNode(alice, boardId);
    const b = await server.makeNode(alice, boardId);
    const id = randomUUID();
    const body = { id, source_node_id: a.id, target_node_id: b.id, data: { label: 'x' } };
    const first = await server.request<EdgeBody>('POST', `/v1/boards/${boardId}/edges`, { token: alice.token, body });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.id, id);
    // The defaults are part of the body as read: type "default" given or not is the same create.
    const again = await server.request<EdgeBody>('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { ...body, type: 'default' },
    });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    const other = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { ...body, target_node_id: a.id },
    });
    assert.equal(other.status, 409, other.text);
    const nodeId = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { ...body, id: a.id },
    });
    assert.equal(nodeId.status, 409, nodeId.text);
    assert.equal(nodeId.body.message, other.body.message);
    assert.deepEqual(
      (await events(alice, boardId)).filter((e) => e.startsWith('edge')),
      [`edge.created ${id}`],
    );
  });
});

describe('batch creates with client-chosen ids', () => {
  const ops = (nodeA: string, nodeB: string, edge: string) => [
    { op: 'create_node', id: nodeA, ref: 'a', type: 'note', position: { x: 0, y: 0 }, data: { text: 'a' } },
    { op: 'create_node', id: nodeB, type: 'note', position: { x: 9, y: 0 }, data: { text: 'b' }, parent_ref: 'a' },
    // One end by ref, the other by the client id of a node made earlier in the batch.
    { op: 'create_edge', id: edge, source_ref: 'a', target_node_id: nodeB },
  ];

  test('a repeated batch answers the same results and writes nothing', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const [nodeA, nodeB, edge] = [randomUUID(), randomUUID(), randomUUID()];
    const first = await server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: ops(nodeA, nodeB, edge) },
    });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.data.results.map((r) => r.id),
      [nodeA, nodeB, edge],
    );
    const again = await server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: ops(nodeA, nodeB, edge) },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, first.body);
    assert.equal(await nodeCount(alice, boardId), 2);
    assert.deepEqual(await events(alice, boardId), [`node.created ${nodeA}`, `node.created ${nodeB}`, `edge.created ${edge}`]);
    // And the single routes recognise the batch's creates (the same body).
    const single = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { id: nodeA, type: 'note', position: { x: 0, y: 0 }, data: { text: 'a' } },
    });
    assert.equal(single.status, 201, single.text);
  });

  test("one used id (another user's) fails the whole batch with the same 409, naming the operation", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice);
    const bobBoard = await server.makeBoard(bob);
    const bobNode = await server.makeNode(bob, bobBoard);
    const single = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: noteBody(bobNode.id),
    });
    const res = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: ops(randomUUID(), bobNode.id, randomUUID()) },
    });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.message, `operations[1]: ${single.body.message}`);
    assert.equal(await nodeCount(alice, boardId), 0);
    assert.deepEqual(await events(alice, boardId), []);
  });

  test('a repeat with one operation changed is 409 and writes nothing', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const [nodeA, nodeB, edge] = [randomUUID(), randomUUID(), randomUUID()];
    const first = await server.request('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: ops(nodeA, nodeB, edge) },
    });
    assert.equal(first.status, 200, first.text);
    const changed = ops(nodeA, nodeB, edge);
    changed.push({ op: 'create_node', id: randomUUID(), type: 'note', position: { x: 5, y: 5 }, data: { text: 'new' } } as never);
    changed[2] = { op: 'create_edge', id: edge, source_ref: 'a', target_node_id: nodeA };
    const res = await server.request<ErrorBody>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: changed },
    });
    assert.equal(res.status, 409, res.text);
    assert.match(res.body.message, /^operations\[2\]: /);
    assert.equal(await nodeCount(alice, boardId), 2);
  });
});

describe('repeated deletes', () => {
  test('a node or edge this board had succeeds again with no event; an id it never had stays 404', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice);
    const a = await server.makeNode(alice, boardId);
    const b = await server.makeNode(alice, boardId);
    const c = await server.makeNode(alice, boardId);
    const edge = await server.makeEdge(alice, boardId, a.id, b.id);
    const attached = await server.makeEdge(alice, boardId, b.id, c.id);
    for (let i = 0; i < 2; i++) {
      const node = await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/nodes/${a.id}`, { token: alice.token });
      assert.equal(node.status, 200, node.text);
      assert.deepEqual(node.body.data, { id: a.id, deleted: true });
      const e = await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/edges/${edge.id}`, { token: alice.token });
      assert.equal(e.status, 200, e.text);
    }
    // Deleted with its node: its deletion can be repeated too, also in a batch.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${c.id}`, { token: alice.token })).status, 200);
    const batch = await server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: {
        operations: [
          { op: 'delete_edge', id: attached.id },
          { op: 'delete_node', id: c.id },
        ],
      },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(await events(alice, boardId), [
      `node.created ${a.id}`,
      `node.created ${b.id}`,
      `node.created ${c.id}`,
      `edge.created ${edge.id}`,
      `edge.created ${attached.id}`,
      `edge.deleted ${edge.id}`,
      `node.deleted ${a.id}`,
      `edge.deleted ${attached.id}`,
      `node.deleted ${c.id}`,
    ]);
    // An id the board never had, a node's id as an edge, another board's deleted node: 404.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${randomUUID()}`, { token: alice.token })).status, 404);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/edges/${a.id}`, { token: alice.token })).status, 404);
    const other = await server.makeBoard(alice);
    assert.equal((await server.request('DELETE', `/v1/boards/${other}/nodes/${a.id}`, { token: alice.token })).status, 404);
    // Another user repeating the delete on alice's private board: 404, as for any of her resources.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${a.id}`, { token: bob.token })).status, 404);
  });
});

describe('repeated updates with If-Match', () => {
  test('a stale If-Match whose change is already there answers 200 with the current ETag and writes nothing', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const node = await server.makeNode(alice, boardId, { data: { text: 'a', label: 'x' } });
    const base = (await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token })).headers.get(
      'etag',
    )!;
    const patch = { position: { x: 7, y: 8 }, data: { label: null, color: '2' } };
    const first = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: alice.token,
      body: patch,
      headers: { 'if-match': base },
    });
    assert.equal(first.status, 200, first.text);
    const again = await server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: alice.token,
      body: patch,
      headers: { 'if-match': base },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    // A change that is not there yet is still refused.
    const stale = await server.request<ErrorBody>('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: alice.token,
      body: { position: { x: 9, y: 9 } },
      headers: { 'if-match': base },
    });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.headers.get('etag'), first.headers.get('etag'));
    // In a batch too.
    const batch = await server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: [{ op: 'update_node', id: node.id, if_match: base, ...patch }] },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(await events(alice, boardId), [`node.created ${node.id}`, `node.updated ${node.id}`]);
  });

  test('the same for an edge', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const a = await server.makeNode(alice, boardId);
    const edge = await server.makeEdge(alice, boardId, a.id, a.id);
    const base = (await server.request<EdgeBody>('GET', `/v1/boards/${boardId}/edges/${edge.id}`, { token: alice.token })).headers.get(
      'etag',
    )!;
    const patch = { type: 'flow', data: { label: 'next' } };
    const send = () =>
      server.request<EdgeBody>('PATCH', `/v1/boards/${boardId}/edges/${edge.id}`, {
        token: alice.token,
        body: patch,
        headers: { 'if-match': base },
      });
    const first = await send();
    assert.equal(first.status, 200, first.text);
    const again = await send();
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    const stale = await server.request('PATCH', `/v1/boards/${boardId}/edges/${edge.id}`, {
      token: alice.token,
      body: { data: {} },
      headers: { 'if-match': base },
    });
    assert.equal(stale.status, 412, stale.text);
    assert.deepEqual(
      (await events(alice, boardId)).filter((e) => e.startsWith('edge.updated')),
      [`edge.updated ${edge.id}`],
    );
  });
});

describe('MCP create_nodes and connect_nodes with ids', () => {
  interface ToolAnswer {
    result?: { isError?: boolean; content: { type: string; text: string }[] };
  }
  const call = (user: TestUser, name: string, args: Record<string, unknown>) =>
    server.request<ToolAnswer>('POST', '/v1/mcp', {
      token: user.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });

  test('a repeated call creates nothing twice; a used id is that item failing', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice);
    const bobNode = await server.makeNode(bob, await server.makeBoard(bob));
    const [a, b, edge] = [randomUUID(), randomUUID(), randomUUID()];
    const nodes = {
      board_id: boardId,
      nodes: [
        { id: a, text: 'a' },
        { id: b, text: 'b' },
      ],
    };
    const edges = { board_id: boardId, edges: [{ id: edge, source_node_id: a, target_node_id: b, label: 'x' }] };
    for (let i = 0; i < 2; i++) {
      const created = await call(alice, 'create_nodes', nodes);
      assert.equal(created.status, 200, created.text);
      assert.ok(!created.body.result?.isError, created.text);
      const connected = await call(alice, 'connect_nodes', edges);
      assert.ok(!connected.body.result?.isError, connected.text);
    }
    assert.equal(await nodeCount(alice, boardId), 2);
    assert.deepEqual(await events(alice, boardId), [`node.created ${a}`, `node.created ${b}`, `edge.created ${edge}`]);
    const taken = await call(alice, 'create_nodes', { board_id: boardId, nodes: [{ id: bobNode.id, text: 'mine' }] });
    assert.ok(taken.body.result?.isError, taken.text);
    assert.match(taken.body.result!.content[0]!.text, /already used/);
  });
});
