// Board history over HTTP: versions kept by the service as a board changes and named by its owner,
// a version read as it was, a restore (whole board and one node) as new changes streamed to the
// board's events and itself undoable; tenancy (other users' boards and versions are 404), bad ids,
// a version of another board, scopes, and the retention of unnamed versions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BodyOf } from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, useServer, type TestServer, type TestUser } from './helpers/harness.js';

// Automatic versions at most every second, so the sweep's own versions show within a test.
const server = useServer({ HISTORY_SNAPSHOT_INTERVAL_SECONDS: '1' });

type VersionList = BodyOf<'/v1/boards/{boardId}/history', 'get'>;
type Version = BodyOf<'/v1/boards/{boardId}/history', 'post', 201>;
type VersionContent = BodyOf<'/v1/boards/{boardId}/history/{versionId}', 'get'>;
type Restore = BodyOf<'/v1/boards/{boardId}/history/{versionId}/restore', 'post'>;
type NodeList = BodyOf<'/v1/boards/{boardId}/nodes', 'get'>;
type EdgeList = BodyOf<'/v1/boards/{boardId}/edges', 'get'>;
interface EventPage {
  data: { seq: number; type: string; actor_id?: string | null; data: { id: string } }[];
}

async function nameVersion(s: TestServer, user: TestUser, boardId: string, name: string): Promise<Version['data']> {
  const res = await s.request<Version>('POST', `/v1/boards/${boardId}/history`, { token: user.token, body: { name } });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function boardState(s: TestServer, user: TestUser, boardId: string) {
  const nodes = await s.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?limit=100`, { token: user.token });
  const edges = await s.request<EdgeList>('GET', `/v1/boards/${boardId}/edges?limit=100`, { token: user.token });
  assert.equal(nodes.status, 200, nodes.text);
  return {
    nodes: new Map(nodes.body.data.map((n) => [n.id, n])),
    edges: new Map(edges.body.data.map((e) => [e.id, e])),
  };
}

async function eventually<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('the service keeps a version of a changing board by itself, and none of an unchanged one', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const note = await server.makeNode(alice, boardId, { data: { text: 'first' } });
  const list = await eventually(async () => {
    const res = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history`, { token: alice.token });
    assert.equal(res.status, 200, res.text);
    // The board's creation may have been kept before the node was added: wait for the version with it.
    return res.body.data[0]?.node_count === 1 ? res.body : undefined;
  }, 'an automatic version');
  const [version] = list.data;
  assert.equal(version!.kind, 'auto');
  assert.equal(version!.name, null);
  assert.equal(version!.created_by, null);
  assert.equal(version!.node_count, 1);
  assert.ok(version!.size_bytes > 0);
  const content = await server.request<VersionContent>('GET', `/v1/boards/${boardId}/history/${version!.id}`, { token: alice.token });
  assert.equal(content.status, 200, content.text);
  assert.equal(content.body.object, 'board_version');
  assert.deepEqual(
    content.body.data.nodes.map((n) => [n.id, n.node_data.text]),
    [[note.id, 'first']],
  );
  // Nothing changed since: the sweeps that follow keep nothing more.
  await new Promise((r) => setTimeout(r, 2500));
  const again = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history`, { token: alice.token });
  assert.equal(again.body.data.length, list.data.length);
});

test('a restore brings the board back as new changes, streamed as events, and is undone by its restore point', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const a = await server.makeNode(alice, boardId, { data: { text: 'A', label: 'keep' }, position: { x: 1, y: 2 } });
  const group = await server.makeNode(alice, boardId, { data: { text: 'group' } });
  const child = await server.makeNode(alice, boardId, { data: { text: 'child' }, parent_node_id: group.id });
  const edge = await server.makeEdge(alice, boardId, a.id, group.id, { type: 'link', data: { w: 1 } });
  const v1 = await nameVersion(server, alice, boardId, 'before the mess');
  assert.equal(v1.kind, 'named');
  assert.equal(v1.name, 'before the mess');
  assert.equal(v1.created_by, alice.userId);
  assert.deepEqual([v1.node_count, v1.edge_count], [3, 1]);

  // The mess: A moved and its text changed and its label dropped, the group deleted (its edge with
  // it, the child detached), the edge's data changed before that, a new node added.
  const patch = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${a.id}`, {
    token: alice.token,
    body: { position: { x: 50, y: 60 }, data: { text: 'A2', label: null, extra: true } },
  });
  assert.equal(patch.status, 200, patch.text);
  assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${group.id}`, { token: alice.token })).status, 200);
  const stray = await server.makeNode(alice, boardId, { data: { text: 'stray' } });
  const before = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?limit=100`, { token: alice.token });
  const lastSeq = before.body.data.at(-1)!.seq;

  const res = await server.request<Restore>('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { token: alice.token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.object, 'board_restore');
  const result = res.body.data;
  assert.equal(result.version_id, v1.id);
  assert.ok(result.restore_point_id);
  assert.deepEqual(
    [result.nodes_created, result.nodes_updated, result.nodes_deleted, result.edges_created, result.edges_deleted],
    [1, 2, 1, 1, 0],
  );

  const state = await boardState(server, alice, boardId);
  assert.deepEqual([...state.nodes.keys()].sort(), [a.id, group.id, child.id].sort());
  const restoredA = state.nodes.get(a.id)!;
  assert.deepEqual([restoredA.position_x, restoredA.position_y], [1, 2]);
  assert.deepEqual(restoredA.node_data, a.node_data);
  assert.equal(state.nodes.get(child.id)!.parent_node_id, group.id);
  assert.deepEqual(state.nodes.get(group.id)!.node_data, group.node_data);
  const restoredEdge = state.edges.get(edge.id);
  assert.ok(restoredEdge, 'the edge comes back with its id');
  assert.deepEqual([restoredEdge.edge_type, restoredEdge.edge_data], ['link', { w: 1 }]);

  // The restore is events on the board's stream, by the caller.
  const after = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=${lastSeq}&limit=100`, { token: alice.token });
  assert.equal(after.status, 200, after.text);
  const types = after.body.data.map((e) => `${e.type}:${e.data.id}`);
  assert.ok(types.includes(`node.deleted:${stray.id}`), types.join());
  assert.ok(types.includes(`node.created:${group.id}`), types.join());
  assert.ok(types.includes(`edge.created:${edge.id}`), types.join());
  assert.ok(types.includes(`node.updated:${a.id}`), types.join());

  // The restore point holds the board as it was just before; restoring it undoes the restore.
  const list = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history?limit=100`, { token: alice.token });
  const point = list.body.data.find((v) => v.id === result.restore_point_id);
  assert.equal(point?.kind, 'restore_point');
  const undo = await server.request<Restore>('POST', `/v1/boards/${boardId}/history/${point!.id}/restore`, { token: alice.token });
  assert.equal(undo.status, 200, undo.text);
  const undone = await boardState(server, alice, boardId);
  assert.deepEqual([...undone.nodes.keys()].sort(), [a.id, child.id, stray.id].sort());
  assert.equal(undone.nodes.get(a.id)!.position_x, 50);
  assert.equal(undone.nodes.get(child.id)!.parent_node_id, null);
  assert.equal(undone.edges.size, 0);

  // A restore onto a board already as the version changes nothing and keeps no restore point.
  await server.request('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { token: alice.token });
  const same = await server.request<Restore>('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { token: alice.token });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.body.data.restore_point_id, null);
});

test('one node can be restored to an earlier state, nothing else changing', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const a = await server.makeNode(alice, boardId, { data: { text: 'old A' } });
  const b = await server.makeNode(alice, boardId, { data: { text: 'old B' } });
  const edge = await server.makeEdge(alice, boardId, a.id, b.id);
  const v1 = await nameVersion(server, alice, boardId, 'v1');
  await server.request('PATCH', `/v1/boards/${boardId}/nodes/${a.id}`, { token: alice.token, body: { data: { text: 'new A' } } });
  await server.request('PATCH', `/v1/boards/${boardId}/nodes/${b.id}`, { token: alice.token, body: { data: { text: 'new B' } } });
  const res = await server.request<Restore>('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, {
    token: alice.token,
    body: { node_ids: [a.id] },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.nodes_updated, 1);
  let state = await boardState(server, alice, boardId);
  assert.equal(state.nodes.get(a.id)!.node_data.text, 'old A');
  assert.equal(state.nodes.get(b.id)!.node_data.text, 'new B');

  // A deleted node comes back alone, with its id and its edge to a node still there.
  await server.request('DELETE', `/v1/boards/${boardId}/nodes/${a.id}`, { token: alice.token });
  const back = await server.request<Restore>('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, {
    token: alice.token,
    body: { node_ids: [a.id] },
  });
  assert.equal(back.status, 200, back.text);
  assert.deepEqual([back.body.data.nodes_created, back.body.data.edges_created], [1, 1]);
  state = await boardState(server, alice, boardId);
  assert.equal(state.nodes.get(a.id)!.node_data.text, 'old A');
  assert.ok(state.edges.has(edge.id));
  assert.equal(state.nodes.get(b.id)!.node_data.text, 'new B');

  // A node the version does not have is 404, and nothing changes.
  const stray = await server.makeNode(alice, boardId);
  const absent = await server.request('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, {
    token: alice.token,
    body: { node_ids: [stray.id] },
  });
  assert.equal(absent.status, 404, absent.text);
  assert.ok(isErrorEnvelope(absent.body, 404));
  assert.ok((await boardState(server, alice, boardId)).nodes.has(stray.id));
});

test("another user's board and versions are 404; a public board's history is readable but not restorable", async () => {
  const alice = await server.user();
  const bob = await server.user();
  const boardId = await server.makeBoard(alice);
  await server.makeNode(alice, boardId);
  const v1 = await nameVersion(server, alice, boardId, 'v1');
  for (const [method, path] of [
    ['GET', `/v1/boards/${boardId}/history`],
    ['GET', `/v1/boards/${boardId}/history/${v1.id}`],
    ['POST', `/v1/boards/${boardId}/history/${v1.id}/restore`],
  ] as const) {
    const res = await server.request(method, path, { token: bob.token });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    assert.ok(isErrorEnvelope(res.body, 404));
  }
  const named = await server.request('POST', `/v1/boards/${boardId}/history`, { token: bob.token, body: { name: 'mine' } });
  assert.equal(named.status, 404, named.text);

  // A version of another board, through a board the caller owns: 404, nothing changes.
  const bobBoard = await server.makeBoard(bob);
  const bobNode = await server.makeNode(bob, bobBoard);
  for (const [method, path] of [
    ['GET', `/v1/boards/${bobBoard}/history/${v1.id}`],
    ['POST', `/v1/boards/${bobBoard}/history/${v1.id}/restore`],
  ] as const) {
    const res = await server.request(method, path, { token: bob.token });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
  }
  assert.deepEqual([...(await boardState(server, bob, bobBoard)).nodes.keys()], [bobNode.id]);

  // Public read-only: readable, not restorable nor nameable by others.
  const patch = await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: true } });
  assert.equal(patch.status, 200, patch.text);
  assert.equal((await server.request('GET', `/v1/boards/${boardId}/history`, { token: bob.token })).status, 200);
  assert.equal((await server.request('GET', `/v1/boards/${boardId}/history/${v1.id}`, { token: bob.token })).status, 200);
  const restore = await server.request('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { token: bob.token });
  assert.equal(restore.status, 403, restore.text);
  const name = await server.request('POST', `/v1/boards/${boardId}/history`, { token: bob.token, body: { name: 'x' } });
  assert.equal(name.status, 403, name.text);
});

test('bad ids, bad bodies and missing versions get the error envelope', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const v1 = await nameVersion(server, alice, boardId, 'v1');
  const cases: [string, string, unknown, number][] = [
    // A malformed id names nothing, as everywhere in the API.
    ['GET', `/v1/boards/not-a-uuid/history`, undefined, 404],
    ['GET', `/v1/boards/${boardId}/history/not-a-uuid`, undefined, 404],
    ['POST', `/v1/boards/${boardId}/history/not-a-uuid/restore`, undefined, 404],
    ['GET', `/v1/boards/${boardId}/history/${MISSING_ID}`, undefined, 404],
    ['GET', `/v1/boards/${MISSING_ID}/history`, undefined, 404],
    ['POST', `/v1/boards/${boardId}/history/${MISSING_ID}/restore`, undefined, 404],
    ['POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { node_ids: [] }, 400],
    ['POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { node_ids: ['nope'] }, 400],
    ['POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { everything: true }, 400],
    ['POST', `/v1/boards/${boardId}/history`, { name: '' }, 400],
    ['POST', `/v1/boards/${boardId}/history`, { name: '   ' }, 400],
    ['POST', `/v1/boards/${boardId}/history`, {}, 400],
    ['GET', `/v1/boards/${boardId}/history?cursor=garbage`, undefined, 400],
  ];
  for (const [method, path, body, status] of cases) {
    const res = await server.request(method, path, { token: alice.token, ...(body === undefined ? {} : { body }) });
    assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
    assert.ok(isErrorEnvelope(res.body, status), res.text);
  }
  const list = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history`, { token: alice.token });
  assert.deepEqual(
    list.body.data.map((v) => v.id),
    [v1.id],
  );
});

test('scopes: read lists and reads versions, write names and restores', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const v1 = await nameVersion(server, alice, boardId, 'v1');
  const reader = await alice.keyWith(['read']);
  assert.equal((await server.request('GET', `/v1/boards/${boardId}/history`, { token: reader.raw_key })).status, 200);
  assert.equal((await server.request('GET', `/v1/boards/${boardId}/history/${v1.id}`, { token: reader.raw_key })).status, 200);
  const restore = await server.request('POST', `/v1/boards/${boardId}/history/${v1.id}/restore`, { token: reader.raw_key });
  assert.equal(restore.status, 403, restore.text);
  const name = await server.request('POST', `/v1/boards/${boardId}/history`, { token: reader.raw_key, body: { name: 'x' } });
  assert.equal(name.status, 403, name.text);
});

test('unnamed versions older than the retention are dropped by the sweep; named ones are kept', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  await server.makeNode(alice, boardId);
  const named = await nameVersion(server, alice, boardId, 'keep me');
  const auto = await eventually(async () => {
    await server.makeNode(alice, boardId);
    const res = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history?limit=100`, { token: alice.token });
    return res.body.data.find((v) => v.kind === 'auto');
  }, 'an automatic version');
  const old = new Date(Date.now() - (server.config.history.retentionDays + 1) * 24 * 60 * 60 * 1000);
  await server.database.db.updateTable('board_history').set({ created_at: old }).where('board_id', '=', boardId).execute();
  await eventually(async () => {
    const res = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history?limit=100`, { token: alice.token });
    return res.body.data.some((v) => v.id === auto.id) ? undefined : res.body.data;
  }, 'the old automatic version to go');
  const res = await server.request<VersionList>('GET', `/v1/boards/${boardId}/history?limit=100`, { token: alice.token });
  assert.ok(res.body.data.some((v) => v.id === named.id));
});
