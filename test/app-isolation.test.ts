// Two apps in one process share no state: each has its own requests in flight (which its background
// writers wait for), its own chunk purger, its own node cache and its own background tasks, so one
// app's traffic, purge requests, writes and closing never reach the other.
import assert from 'node:assert/strict';
import http from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { JobBody } from './helpers/api-types.js';
import { startServer, type TestServer, type TestUser } from './helpers/harness.js';

let a: TestServer;
let b: TestServer;
let aliceOfA: TestUser;
let aliceOfB: TestUser;

before(async () => {
  a = await startServer({ JOB_POLL_MS: '50' });
  b = await startServer({ JOB_POLL_MS: '50' });
  aliceOfA = await a.user();
  aliceOfB = await b.user();
});
after(async () => {
  await a.close();
  await b.close();
});

async function note(server: TestServer, user: TestUser, boardId: string): Promise<string> {
  return (await server.makeNode(user, boardId, { data: { text: 'a note' } })).id;
}

async function vectorize(server: TestServer, user: TestUser, boardId: string, nodeId: string): Promise<void> {
  const res = await server.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, {
    token: user.token,
    body: { text: 'Text about comets and their tails.', node_id: nodeId },
  });
  assert.equal(res.status, 202, res.text);
  assert.equal((await server.waitForJob(res.body.data.id, user.token)).status, 'completed');
}

/** 'idle' when `idle` resolves before the next turn of the event loop, else 'held'. */
const idleNow = (idle: Promise<void>) => Promise.race([idle.then(() => 'idle'), nextTurn('held')]);

test("a request in flight in one app does not hold back the other app's background writers", async () => {
  const foregroundA = a.built.services.foreground;
  const foregroundB = b.built.services.foreground;
  assert.notEqual(foregroundA, foregroundB);
  const board = await a.makeBoard(aliceOfA);
  // A request whose body has not all arrived yet: in flight from its headers on.
  const body = JSON.stringify({ name: 'renamed' });
  const url = new URL(`/v1/boards/${board}`, a.url);
  let unblock = () => {};
  const answered = new Promise<number>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'PATCH',
        headers: { authorization: `Bearer ${aliceOfA.token}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.write(body.slice(0, 5));
    unblock = () => request.end(body.slice(5));
  });
  for (let i = 0; i < 500 && foregroundA.requests === 0; i++) await sleep(10);
  assert.equal(foregroundA.requests, 1);
  assert.equal(foregroundB.requests, 0);
  assert.equal(await idleNow(foregroundB.idle(600_000)), 'idle');
  // Only the embedded database makes background writers wait for requests at all.
  const heldA = foregroundA.idle(600_000);
  assert.equal(await idleNow(heldA), a.database.embedded ? 'held' : 'idle');
  unblock();
  assert.equal(await answered, 200);
  await heldA;
  assert.equal(foregroundA.requests, 0);
});

test("a purge request in one app kicks its own chunk purger, not the other app's", async (t) => {
  assert.notEqual(a.built.services.purger, b.built.services.purger);
  const kickA = t.mock.method(a.built.services.purger, 'kick');
  const kickB = t.mock.method(b.built.services.purger, 'kick');
  const board = await a.makeBoard(aliceOfA);
  const node = await note(a, aliceOfA, board);
  await vectorize(a, aliceOfA, board, node);
  // The job's commit kicks too (any set it replaced), just after the job reads as completed: wait
  // for it, so the deletion's kick is counted alone. On a database both apps share (the wire run)
  // either app's worker may have run the job, so its kick is the purger of that app.
  const kicks = () => kickA.mock.callCount() + kickB.mock.callCount();
  for (let i = 0; i < 500 && kicks() === 0; i++) await sleep(10);
  assert.ok(kicks() >= 1);
  if (!a.database.embedded) await sleep(100); // a purger kicking itself again after its run
  const [kicksA, kicksB] = [kickA.mock.callCount(), kickB.mock.callCount()];
  const del = await a.request('DELETE', `/v1/boards/${board}/documents?node_id=${node}`, { token: aliceOfA.token });
  assert.equal(del.status, 200, del.text);
  // At least once more: a kick that lands while the purger runs makes it kick itself again after.
  assert.ok(kickA.mock.callCount() > kicksA);
  assert.equal(kickB.mock.callCount(), kicksB);
  // A's purger (the real one, called through the mock) reclaims the retired set's rows.
  for (let i = 0; i < 500; i++) {
    const left = await a.database.db.selectFrom('chunk_sets').select('id').where('board_id', '=', board).execute();
    if (left.length === 0) break;
    await sleep(20);
  }
  assert.deepEqual(await a.database.db.selectFrom('chunk_sets').select('id').where('board_id', '=', board).execute(), []);
});

test("one app's node writes invalidate its own node cache only", async (t) => {
  if (!a.database.embedded) return t.skip('the node cache is only on the embedded database');
  const cacheA = a.built.services.nodeCache;
  const cacheB = b.built.services.nodeCache;
  assert.ok(cacheA && cacheB);
  assert.notEqual(cacheA, cacheB);
  const board = await a.makeBoard(aliceOfA);
  const node = await note(a, aliceOfA, board);
  assert.equal((await a.request('GET', `/v1/boards/${board}/nodes/${node}`, { token: aliceOfA.token })).status, 200);
  const patched = await a.request('PATCH', `/v1/boards/${board}/nodes/${node}`, {
    token: aliceOfA.token,
    body: { position: { x: 1, y: 1 } },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(cacheA.generation(board), 1);
  assert.equal(cacheB.generation(board), 0);
});

test("closing one app stops its background work and leaves the other app's running", async () => {
  const board = await b.makeBoard(aliceOfB);
  const node = await note(b, aliceOfB, board);
  await a.built.close();
  // B's job worker still claims and completes jobs.
  await vectorize(b, aliceOfB, board, node);
});
