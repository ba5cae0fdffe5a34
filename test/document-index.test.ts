// GET /v1/boards/{boardId}/documents/nodes: each vectorized node's live chunk set with a hash of the
// text vectorized, so a client can tell an index that is behind its node's text.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, test } from 'node:test';
import type { DuplicateBody, JobBody, NodeIndexList } from './helpers/api-types.js';
import { TIMESTAMP, type TestUser, useServer } from './helpers/harness.js';

const server = useServer({ JOB_POLL_MS: '50' });
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function vectorize(boardId: string, body: Record<string, unknown>): Promise<void> {
  const res = await server.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, { token: alice.token, body });
  assert.equal(res.status, 202, res.text);
  assert.equal((await server.waitForJob(res.body.data.id, alice.token)).status, 'completed');
}

const indexes = (boardId: string, token = alice.token) =>
  server.request<NodeIndexList>('GET', `/v1/boards/${boardId}/documents/nodes`, { token });

test('lists each vectorized node once, with the hash of the newest text; loose text and other boards are not listed', async () => {
  const board = await server.makeBoard(alice);
  const a = (await server.makeNode(alice, board, { data: { text: 'first' } })).id;
  const b = (await server.makeNode(alice, board, { data: { text: 'other' } })).id;
  const empty = await indexes(board);
  assert.equal(empty.status, 200, empty.text);
  assert.deepEqual(empty.body, { object: 'list', data: [], has_more: false, cursor: null });

  await vectorize(board, { node_id: a, text: 'Comets have tails of dust. ✨' });
  await vectorize(board, { node_id: a, text: 'Comets have tails of dust and ice. ✨' });
  await vectorize(board, { node_id: b, text: 'Asteroids are rocky.' });
  await vectorize(board, { text: 'Loose text, no node.' });
  const list = await indexes(board);
  assert.equal(list.status, 200, list.text);
  const byNode = new Map(list.body.data.map((row) => [row.node_id, row]));
  assert.deepEqual([...byNode.keys()].sort(), [a, b].sort());
  const rowA = byNode.get(a)!;
  assert.deepEqual(Object.keys(rowA).sort(), ['chunks', 'indexed_at', 'node_id', 'text_sha256']);
  assert.equal(rowA.text_sha256, sha256('Comets have tails of dust and ice. ✨'));
  assert.equal(rowA.chunks, 1);
  assert.match(String(rowA.indexed_at), TIMESTAMP);

  // Removing the node's chunks takes it off the list.
  assert.equal((await server.request('DELETE', `/v1/boards/${board}/documents?node_id=${b}`, { token: alice.token })).status, 200);
  assert.deepEqual(
    (await indexes(board)).body.data.map((row) => row.node_id),
    [a],
  );

  // A duplicate's copied chunks keep the hash (its node has the same text).
  const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${board}/duplicate`, { token: alice.token });
  assert.equal(dup.status, 201, dup.text);
  const copied = await indexes(dup.body.data.id);
  assert.equal(copied.body.data.length, 1);
  assert.notEqual(copied.body.data[0]?.node_id, a);
  assert.equal(copied.body.data[0]?.text_sha256, sha256('Comets have tails of dust and ice. ✨'));
  assert.equal(copied.body.data[0]?.chunks, 1);
});

test('a private board is 404 to others; a public one is listed to any reader', async () => {
  const board = await server.makeBoard(alice);
  const a = (await server.makeNode(alice, board, { data: { text: 'x' } })).id;
  await vectorize(board, { node_id: a, text: 'Shared knowledge.' });
  assert.equal((await indexes(board, bob.token)).status, 404);
  const patch = await server.request('PATCH', `/v1/boards/${board}`, { token: alice.token, body: { is_public: true } });
  assert.equal(patch.status, 200, patch.text);
  const seen = await indexes(board, bob.token);
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(
    seen.body.data.map((row) => row.text_sha256),
    [sha256('Shared knowledge.')],
  );
});
