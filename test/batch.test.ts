// POST /v1/boards/{id}/batch: many writes in one transaction, all or nothing, refs between them,
// results in order, one run of events, failures naming the operation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeList } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, useServer } from './helpers/harness.js';

const server = useServer();

interface BatchAnswer {
  data: {
    results: {
      op: string;
      id: string;
      ref?: string;
      node?: { id: string; parent_node_id: string | null; position_x: number };
      edge?: { source_node_id: string; target_node_id: string };
    }[];
  };
}
interface EventPage {
  data: { seq: number; type: string; data: { id: string } }[];
}

const note = (ref: string, x = 0, extra: Record<string, unknown> = {}) => ({
  op: 'create_node',
  ref,
  type: 'note',
  position: { x, y: 0 },
  data: { text: ref },
  ...extra,
});

test('creates, connects, updates and deletes in one request, results and events in order', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const existing = await server.makeNode(alice, boardId);
  const res = await server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
    token: alice.token,
    body: {
      operations: [
        note('group', 0, { data: { text: '', group: true } }),
        note('a', 10, { parent_ref: 'group' }),
        note('b', 20),
        { op: 'create_edge', source_ref: 'a', target_ref: 'b', data: { label: 'next' } },
        { op: 'create_edge', source_ref: 'b', target_node_id: existing.id },
        { op: 'update_node', id: existing.id, position: { x: 99, y: 9 } },
        { op: 'delete_node', id: existing.id },
      ],
    },
  });
  assert.equal(res.status, 200, res.text);
  const results = res.body.data.results;
  assert.deepEqual(
    results.map((r) => r.op),
    ['create_node', 'create_node', 'create_node', 'create_edge', 'create_edge', 'update_node', 'delete_node'],
  );
  const [group, a, b, edge] = results;
  assert.equal(a!.node!.parent_node_id, group!.id);
  assert.deepEqual([edge!.edge!.source_node_id, edge!.edge!.target_node_id], [a!.id, b!.id]);
  assert.equal(results[5]!.node!.position_x, 99);
  const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?limit=100`, { token: alice.token });
  assert.deepEqual(new Set(nodes.body.data.map((n) => n.id)), new Set([group!.id, a!.id, b!.id]));
  const events = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=1`, { token: alice.token });
  assert.deepEqual(
    events.body.data.map((e) => [e.seq, e.type]),
    [
      [2, 'node.created'],
      [3, 'node.created'],
      [4, 'node.created'],
      [5, 'edge.created'],
      [6, 'edge.created'],
      [7, 'node.updated'],
      [8, 'edge.deleted'],
      [9, 'node.deleted'],
    ],
  );
});

test('all or nothing: a failing operation is named, and nothing before it stays', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const count = async () =>
    (await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?limit=100`, { token: alice.token })).body.data.length;
  const cases: [unknown[], number, RegExp][] = [
    [
      [note('a'), note('b'), { op: 'create_edge', source_ref: 'a', target_ref: 'c' }],
      400,
      /^operations\[2\]: target_ref "c" names no node/,
    ],
    [[note('a'), { op: 'delete_node', id: '00000000-0000-4000-8000-000000000000' }], 404, /^operations\[1\]: Node not found/],
    [[note('a'), note('a')], 400, /^operations\[1\]: the ref "a" is used twice/],
    [[note('a'), { op: 'create_node', type: 'note', position: { x: 0, y: 0 }, data: {} }], 400, /^operations\[1\]: data\.text is required/],
    [[note('a'), { op: 'create_edge', source_ref: 'a' }], 400, /^operations\[1\]: an edge needs a source .* and a target/],
    [[{ op: 'explode' }], 400, /operations/],
  ];
  for (const [operations, status, message] of cases) {
    const res = await server.request('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });
    assert.ok(isErrorEnvelope(res.body, status), `${JSON.stringify(operations).slice(0, 100)}: ${res.text}`);
    assert.match(res.body.message, message);
  }
  assert.equal(await count(), 0);
  const events = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events`, { token: alice.token });
  assert.deepEqual(events.body.data, []);
  const tooMany = await server.request('POST', `/v1/boards/${boardId}/batch`, {
    token: alice.token,
    body: { operations: Array.from({ length: 501 }, (_, i) => note(`n${i}`)) },
  });
  assert.ok(isErrorEnvelope(tooMany.body, 400), tooMany.text);
  const none = await server.request('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations: [] } });
  assert.ok(isErrorEnvelope(none.body, 400), none.text);
});

test('if_match, idempotency, other users and the board bounds', async () => {
  const alice = await server.user();
  const bob = await server.user();
  const boardId = await server.makeBoard(alice);
  const node = await server.makeNode(alice, boardId);
  const got = await server.request('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token });
  const tag = got.headers.get('etag')!;
  await server.request('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, { token: alice.token, body: { position: { x: 5, y: 5 } } });
  const stale = await server.request('POST', `/v1/boards/${boardId}/batch`, {
    token: alice.token,
    body: { operations: [{ op: 'update_node', id: node.id, if_match: tag, position: { x: 1, y: 1 } }] },
  });
  assert.ok(isErrorEnvelope(stale.body, 412), stale.text);
  assert.match(stale.body.message, /^operations\[0\]/);

  const key = `batch-${Date.now()}`;
  const send = () =>
    server.request<BatchAnswer>('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      headers: { 'idempotency-key': key },
      body: { operations: [note('x'), note('y')] },
    });
  const first = await send();
  const again = await send();
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(again.body, first.body);
  const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?limit=100`, { token: alice.token });
  assert.equal(nodes.body.data.length, 3);

  const foreign = await server.request('POST', `/v1/boards/${boardId}/batch`, { token: bob.token, body: { operations: [note('z')] } });
  assert.ok(isErrorEnvelope(foreign.body, 404), foreign.text);

  const small = await startServer({ BOARD_MAX_NODES: '2' });
  try {
    const carol = await small.user();
    const board = await small.makeBoard(carol);
    const over = await small.request('POST', `/v1/boards/${board}/batch`, {
      token: carol.token,
      body: { operations: [note('a'), note('b'), note('c')] },
    });
    assert.ok(isErrorEnvelope(over.body, 409), over.text);
  } finally {
    await small.close();
  }
});
