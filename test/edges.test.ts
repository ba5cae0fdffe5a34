import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { Deleted, Edge, EdgeBody, EdgeInput, EdgeList, ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, type Response, type TestUser, TIMESTAMP, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

const EDGE_FIELDS = ['board_id', 'created_at', 'edge_data', 'edge_type', 'id', 'source_node_id', 'target_node_id', 'updated_at'];

const makeBoard = (user: TestUser, extra?: Record<string, unknown>) => server.makeBoard(user, extra);

/** A blank note's id. */
const makeNode = async (user: TestUser, boardId: string) => (await server.makeNode(user, boardId)).id;

function postEdge(token: string, boardId: string, body: unknown) {
  return server.request<EdgeBody>('POST', `/v1/boards/${boardId}/edges`, { token, body });
}

const makeEdge = (user: TestUser, boardId: string, body: EdgeInput) =>
  server.makeEdge(user, boardId, body.source_node_id, body.target_node_id, body);

function assert400(res: Response<unknown>, pattern: RegExp): void {
  assert.equal(res.status, 400, res.text);
  assert.ok(isErrorEnvelope(res.body, 400));
  assert.equal(res.body.code, 'invalid_request');
  assert.match(res.body.message, pattern);
}

describe('edges: create', () => {
  test('defaults, given type and data, self-loops', async () => {
    const boardId = await makeBoard(alice);
    const [a, b] = [await makeNode(alice, boardId), await makeNode(alice, boardId)];
    const res = await postEdge(alice.token, boardId, { source_node_id: a, target_node_id: b });
    assert.equal(res.status, 201);
    assert.equal(res.body.object, 'edge');
    const e = res.body.data;
    assert.deepEqual(Object.keys(e).sort(), EDGE_FIELDS);
    assert.equal(e.board_id, boardId);
    assert.deepEqual([e.source_node_id, e.target_node_id, e.edge_type, e.edge_data], [a, b, 'default', {}]);
    assert.match(e.created_at, TIMESTAMP);
    assert.equal(e.created_at, e.updated_at);
    const typed = await makeEdge(alice, boardId, {
      source_node_id: b,
      target_node_id: a,
      type: 'smoothstep',
      data: { weight: 0.5, label: 'x', nested: { k: [1] } },
    });
    assert.equal(typed.edge_type, 'smoothstep');
    assert.deepEqual(typed.edge_data, { weight: 0.5, label: 'x', nested: { k: [1] } });
    const loop = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: a });
    assert.equal(loop.source_node_id, loop.target_node_id);
  });

  test('validation: required ends, unknown fields, type and data bounds', async () => {
    const boardId = await makeBoard(alice);
    const [a, b] = [await makeNode(alice, boardId), await makeNode(alice, boardId)];
    const ok = { source_node_id: a, target_node_id: b };
    assert400(await postEdge(alice.token, boardId, { target_node_id: b }), /source_node_id is required/);
    assert400(await postEdge(alice.token, boardId, { source_node_id: a }), /target_node_id is required/);
    assert400(await postEdge(alice.token, boardId, { ...ok, source_node_id: 'abc' }), /source_node_id/);
    assert400(await postEdge(alice.token, boardId, { ...ok, weight: 1 }), /weight is not a recognised field/);
    assert400(await postEdge(alice.token, boardId, { ...ok, type: '' }), /type/);
    assert400(await postEdge(alice.token, boardId, { ...ok, type: 'x'.repeat(101) }), /type/);
    assert400(await postEdge(alice.token, boardId, { ...ok, type: 3 }), /type/);
    assert400(await postEdge(alice.token, boardId, { ...ok, type: 'a\u0000b' }), /type/);
    assert400(await postEdge(alice.token, boardId, { ...ok, data: [] }), /data/);
    assert400(await postEdge(alice.token, boardId, { ...ok, data: null }), /data/);
    assert400(await postEdge(alice.token, boardId, { ...ok, data: { blob: 'x'.repeat(64 * 1024) } }), /data is larger than 64 KiB/);
    assert400(await postEdge(alice.token, boardId, { ...ok, data: { s: 'a\u0000' } }), /NUL/);
    assert.equal((await postEdge(alice.token, boardId, { ...ok, type: 'x'.repeat(100) })).status, 201);
  });

  test('both ends must be nodes of this board', async () => {
    const boardId = await makeBoard(alice);
    const a = await makeNode(alice, boardId);
    const foreign = await makeNode(alice, await makeBoard(alice));
    const bobs = await makeNode(bob, await makeBoard(bob));
    assert400(
      await postEdge(alice.token, boardId, { source_node_id: foreign, target_node_id: a }),
      /^source_node_id is not a node of this board$/,
    );
    assert400(
      await postEdge(alice.token, boardId, { source_node_id: a, target_node_id: bobs }),
      /^target_node_id is not a node of this board$/,
    );
    assert400(
      await postEdge(alice.token, boardId, { source_node_id: a, target_node_id: MISSING_ID }),
      /^target_node_id is not a node of this board$/,
    );
    assert.deepEqual((await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: alice.token })).body.data, []);
  });
});

describe('edges: list and get', () => {
  test('pagination with inserts between pages; node_id filter', async () => {
    const boardId = await makeBoard(alice);
    const [a, b, c] = [await makeNode(alice, boardId), await makeNode(alice, boardId), await makeNode(alice, boardId)];
    const pairs = [
      [a, b],
      [b, c],
      [c, a],
      [b, b],
      [c, c],
    ] as const;
    const edges: Edge[] = [];
    for (const [s, t] of pairs) edges.push(await makeEdge(alice, boardId, { source_node_id: s, target_node_id: t }));
    const url = `/v1/boards/${boardId}/edges`;
    const p1 = await server.request<EdgeList>('GET', `${url}?limit=2`, { token: alice.token });
    assert.equal(p1.status, 200);
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(
      p1.body.data.map((e) => e.id),
      [edges[4]?.id, edges[3]?.id],
    );
    assert.deepEqual(Object.keys(p1.body.data[0] ?? {}).sort(), EDGE_FIELDS);
    assert.equal(p1.body.has_more, true);
    const late = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: c });
    const p2 = await server.request<EdgeList>('GET', `${url}?limit=2&cursor=${p1.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      p2.body.data.map((e) => e.id),
      [edges[2]?.id, edges[1]?.id],
    );
    assert.equal(p2.body.has_more, true);
    const p3 = await server.request<EdgeList>('GET', `${url}?limit=2&cursor=${p2.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      p3.body.data.map((e) => e.id),
      [edges[0]?.id],
    );
    assert.equal(p3.body.has_more, false);
    assert.equal(p3.body.cursor, null);
    const asc = await server.request<EdgeList>('GET', `${url}?order=asc&limit=6`, { token: alice.token });
    assert.deepEqual(
      asc.body.data.map((e) => e.id),
      [...edges.map((e) => e.id), late.id],
    );
    assert.equal(asc.body.has_more, false);

    // edges touching a: a->b, c->a, a->c (late), newest first, paged
    const t1 = await server.request<EdgeList>('GET', `${url}?node_id=${a}&limit=2`, { token: alice.token });
    assert.deepEqual(
      t1.body.data.map((e) => e.id),
      [late.id, edges[2]?.id],
    );
    assert.equal(t1.body.has_more, true);
    const t2 = await server.request<EdgeList>('GET', `${url}?node_id=${a}&limit=2&cursor=${t1.body.cursor}`, { token: alice.token });
    assert.deepEqual(
      t2.body.data.map((e) => e.id),
      [edges[0]?.id],
    );
    assert.equal(t2.body.has_more, false);
    const touchingB = await server.request<EdgeList>('GET', `${url}?node_id=${b}`, { token: alice.token });
    assert.deepEqual(
      touchingB.body.data.map((e) => e.id),
      [edges[3]?.id, edges[1]?.id, edges[0]?.id],
    );
    assert.deepEqual((await server.request<EdgeList>('GET', `${url}?node_id=${MISSING_ID}`, { token: alice.token })).body.data, []);
    // cursors are bound to the board and the filter
    assert400(await server.request<EdgeList>('GET', `${url}?cursor=${t1.body.cursor}`, { token: alice.token }), /cursor/);
    assert400(await server.request<EdgeList>('GET', `${url}?node_id=${b}&cursor=${t1.body.cursor}`, { token: alice.token }), /cursor/);
    const other = await makeBoard(alice);
    assert400(
      await server.request<EdgeList>('GET', `/v1/boards/${other}/edges?cursor=${p1.body.cursor}`, { token: alice.token }),
      /cursor/,
    );
    assert400(await server.request<EdgeList>('GET', `${url}?node_id=nope`, { token: alice.token }), /node_id/);
    assert400(
      await server.request<EdgeList>('GET', `${url}?type=default`, { token: alice.token }),
      /type is not a recognised query parameter/,
    );
  });

  test('get one; unknown and malformed ids are 404', async () => {
    const boardId = await makeBoard(alice);
    const a = await makeNode(alice, boardId);
    const e = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: a, data: { weight: 2 } });
    const got = await server.request<EdgeBody>('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, { object: 'edge', data: e });
    const missing = await server.request<ErrorBody>('GET', `/v1/boards/${boardId}/edges/${MISSING_ID}`, { token: alice.token });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'Edge not found');
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/edges/xyz`, { token: alice.token })).status, 404);
  });
});

describe('edges: update and delete', () => {
  test('patch replaces type and/or data and changes updated_at', async () => {
    const boardId = await makeBoard(alice);
    const [a, b] = [await makeNode(alice, boardId), await makeNode(alice, boardId)];
    const e = await makeEdge(alice, boardId, {
      source_node_id: a,
      target_node_id: b,
      type: 'step',
      data: { weight: 1, color: 'red' },
    });
    const patch = (body: unknown) => server.request<EdgeBody>('PATCH', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token, body });
    await sleep(5);
    const r1 = await patch({ data: { weight: 2 } });
    assert.equal(r1.status, 200);
    assert.equal(r1.body.object, 'edge');
    assert.equal(r1.body.data.edge_type, 'step');
    assert.deepEqual(r1.body.data.edge_data, { weight: 2 });
    assert.ok(r1.body.data.updated_at > e.updated_at);
    assert.equal(r1.body.data.created_at, e.created_at);
    const r2 = await patch({ type: 'bezier' });
    assert.deepEqual([r2.body.data.edge_type, r2.body.data.edge_data], ['bezier', { weight: 2 }]);
    const r3 = await patch({ type: 'default', data: {} });
    assert.deepEqual([r3.body.data.edge_type, r3.body.data.edge_data], ['default', {}]);
    assert.deepEqual([r3.body.data.source_node_id, r3.body.data.target_node_id], [a, b]);
    assert400(await patch({}), /body/);
    assert400(await patch({ source_node_id: b }), /source_node_id is not a recognised field/);
    assert400(await patch({ type: '' }), /type/);
    assert400(await patch({ data: 'x' }), /data/);
    assert400(await patch({ data: { big: 'x'.repeat(70_000) } }), /64 KiB/);
    assert.deepEqual(
      (await server.request<EdgeBody>('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token })).body.data,
      r3.body.data,
    );
  });

  test('delete answers the deletion envelope and is permanent', async () => {
    const boardId = await makeBoard(alice);
    const a = await makeNode(alice, boardId);
    const e = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: a });
    const del = await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { object: 'edge', data: { id: e.id, deleted: true } });
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token })).status, 404);
    // Deleting it again succeeds with no change, so a replayed delete is harmless (test/client-ids.test.ts).
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token })).status, 200);
    assert.equal(
      (await server.request('PATCH', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token, body: { type: 'x' } })).status,
      404,
    );
    // the nodes stay
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/nodes/${a}`, { token: alice.token })).status, 200);
  });
});

describe('edges: access', () => {
  test("another user's private board is 404 on every edge route", async () => {
    const boardId = await makeBoard(alice);
    const a = await makeNode(alice, boardId);
    const e = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: a });
    for (const [method, path, payload] of [
      ['POST', `/v1/boards/${boardId}/edges`, { source_node_id: a, target_node_id: a }],
      ['GET', `/v1/boards/${boardId}/edges`],
      ['GET', `/v1/boards/${boardId}/edges/${e.id}`],
      ['PATCH', `/v1/boards/${boardId}/edges/${e.id}`, { type: 'x' }],
      ['DELETE', `/v1/boards/${boardId}/edges/${e.id}`],
    ] as const) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body: payload });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Board not found');
    }
    assert.deepEqual((await server.request<EdgeBody>('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: alice.token })).body.data, e);
  });

  test('an edge of another board is 404 under my board', async () => {
    const mine = await makeBoard(bob);
    const theirs = await makeBoard(alice);
    const a = await makeNode(alice, theirs);
    const foreign = await makeEdge(alice, theirs, { source_node_id: a, target_node_id: a });
    for (const [method, payload] of [['GET'], ['PATCH', { type: 'x' }], ['DELETE']] as const) {
      const res = await server.request<ErrorBody>(method, `/v1/boards/${mine}/edges/${foreign.id}`, { token: bob.token, body: payload });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.message, 'Edge not found');
    }
    // and a node id of another board cannot be an end of my edge
    const mineNode = await makeNode(bob, mine);
    assert400(
      await postEdge(bob.token, mine, { source_node_id: mineNode, target_node_id: a }),
      /target_node_id is not a node of this board/,
    );
    assert.deepEqual(
      (await server.request<EdgeBody>('GET', `/v1/boards/${theirs}/edges/${foreign.id}`, { token: alice.token })).body.data,
      foreign,
    );
  });

  test('public view board: others read, writes are 403', async () => {
    const boardId = await makeBoard(alice, { is_public: true });
    const a = await makeNode(alice, boardId);
    const e = await makeEdge(alice, boardId, { source_node_id: a, target_node_id: a });
    assert.deepEqual((await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: bob.token })).body.data, [e]);
    assert.deepEqual((await server.request<EdgeBody>('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: bob.token })).body.data, e);
    for (const [method, path, payload] of [
      ['POST', `/v1/boards/${boardId}/edges`, { source_node_id: a, target_node_id: a }],
      ['PATCH', `/v1/boards/${boardId}/edges/${e.id}`, { type: 'x' }],
      ['DELETE', `/v1/boards/${boardId}/edges/${e.id}`],
    ] as const) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body: payload });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'forbidden');
    }
  });

  test('public edit board: others write with the write scope, not with read only', async () => {
    const boardId = await makeBoard(alice, { is_public: true, public_access_level: 'edit' });
    const a = await makeNode(alice, boardId);
    const e = await makeEdge(bob, boardId, { source_node_id: a, target_node_id: a, type: 'bob' });
    const readOnly = (await bob.keyWith(['read'])).raw_key;
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/edges/${e.id}`, { token: readOnly })).status, 200);
    const denied = await server.request<ErrorBody>('PATCH', `/v1/boards/${boardId}/edges/${e.id}`, {
      token: readOnly,
      body: { type: 'x' },
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'Missing required scope: write');
    assert.equal(
      (await server.request('PATCH', `/v1/boards/${boardId}/edges/${e.id}`, { token: bob.token, body: { type: 'x' } })).status,
      200,
    );
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/edges/${e.id}`, { token: await bob.jwt() })).status, 200);
  });
});
