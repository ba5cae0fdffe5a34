// Idempotency-Key on POST (DECISIONS "Wire conventions"): the first outcome is replayed for a retry
// with the same body, a different body is 409, keys are per user, concurrent retries create one
// resource, and GET ignores the header.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { BoardBody, BoardList, DuplicateBody } from './helpers/api-types.js';
import { isErrorEnvelope, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();

async function boardNames(user: TestUser): Promise<string[]> {
  const res = await server.request<BoardList>('GET', '/v1/boards?limit=100', { token: user.token });
  assert.equal(res.status, 200);
  return res.body.data.map((b) => b.name);
}

const post = <T = BoardBody>(user: TestUser, path: string, key: string | undefined, body?: unknown) =>
  server.request<T>('POST', path, { token: user.token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

describe('idempotency keys', () => {
  test('same key and body: the first answer is replayed and one board is created', async () => {
    const user = await server.user();
    const key = randomUUID();
    const first = await post(user, '/v1/boards', key, { name: 'Once', viewport_zoom: 2 });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const second = await post(user, '/v1/boards', key, { name: 'Once', viewport_zoom: 2 });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.match(second.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(second.text, first.text, 'the replay is byte for byte the first answer');
    assert.deepEqual(await boardNames(user), ['Once']);
    // Without a key every POST creates.
    await post(user, '/v1/boards', undefined, { name: 'Free' });
    await post(user, '/v1/boards', undefined, { name: 'Free' });
    assert.deepEqual((await boardNames(user)).sort(), ['Free', 'Free', 'Once']);
  });

  test('same key with a different body is 409 conflict', async () => {
    const user = await server.user();
    const key = randomUUID();
    assert.equal((await post(user, '/v1/boards', key, { name: 'A' })).status, 201);
    const clash = await post<unknown>(user, '/v1/boards', key, { name: 'B' });
    assert.equal(clash.status, 409);
    assert.ok(isErrorEnvelope(clash.body, 409));
    assert.equal(clash.body.code, 'conflict');
    // The same key on another route is a different request too.
    const board = (await server.request<BoardList>('GET', '/v1/boards', { token: user.token })).body.data[0];
    const otherRoute = await post<unknown>(user, `/v1/boards/${board!.id}/duplicate`, key);
    assert.equal(otherRoute.status, 409);
    assert.deepEqual(await boardNames(user), ['A']);
  });

  test('a key of length 0 or over 255 is 400; 1 and 255 are accepted', async () => {
    const user = await server.user();
    for (const key of ['', 'k'.repeat(256), 'k'.repeat(1000)]) {
      const res = await post<unknown>(user, '/v1/boards', key, { name: 'bad key' });
      assert.equal(res.status, 400, `key of length ${key.length}`);
      assert.ok(isErrorEnvelope(res.body, 400));
      assert.match(res.body.message, /Idempotency-Key/);
    }
    assert.deepEqual(await boardNames(user), []);
    for (const key of ['k', 'k'.repeat(255)]) {
      assert.equal((await post(user, '/v1/boards', key, { name: `len ${key.length}` })).status, 201);
      assert.equal((await post(user, '/v1/boards', key, { name: `len ${key.length}` })).headers.get('idempotent-replayed'), 'true');
    }
    assert.equal((await boardNames(user)).length, 2);
  });

  test('keys are per user', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const key = randomUUID();
    const a = await post(alice, '/v1/boards', key, { name: 'Alice board' });
    const b = await post(bob, '/v1/boards', key, { name: 'Bob board' });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.notEqual(a.body.data.id, b.body.data.id);
    // Identical bodies from two users are still two boards.
    const a2 = await post(alice, '/v1/boards', 'shared', { name: 'Same' });
    const b2 = await post(bob, '/v1/boards', 'shared', { name: 'Same' });
    assert.notEqual(a2.body.data.id, b2.body.data.id);
    assert.deepEqual((await boardNames(alice)).sort(), ['Alice board', 'Same']);
    assert.deepEqual((await boardNames(bob)).sort(), ['Bob board', 'Same']);
    // Two API keys of one user share the key space.
    const second = await alice.keyWith(['read', 'write']);
    const replay = await server.request<BoardBody>('POST', '/v1/boards', {
      token: second.raw_key,
      body: { name: 'Same' },
      headers: { 'idempotency-key': 'shared' },
    });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.data.id, a2.body.data.id);
  });

  test('five concurrent retries create exactly one board', async () => {
    const user = await server.user();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post<unknown>(user, '/v1/boards', key, { name: 'Concurrent' })));
    const created = answers.filter((r) => r.status === 201);
    assert.ok(created.length >= 1, `statuses: ${answers.map((r) => r.status)}`);
    const id = (created[0]!.body as BoardBody).data.id;
    for (const res of answers) {
      if (res.status === 201) assert.equal((res.body as BoardBody).data.id, id);
      else {
        assert.equal(res.status, 409, `unexpected ${res.status}: ${res.text}`);
        assert.ok(isErrorEnvelope(res.body, 409), res.text);
        assert.equal(res.body.code, 'conflict');
      }
    }
    assert.equal(answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null).length, 1);
    assert.deepEqual(await boardNames(user), ['Concurrent']);
  });

  test('a 4xx first outcome is replayed as that same 4xx', async () => {
    const owner = await server.user();
    const other = await server.user();
    const board = (await post(owner, '/v1/boards', undefined, { name: 'Private' })).body.data;
    const key = randomUUID();
    const first = await post<unknown>(other, `/v1/boards/${board.id}/duplicate`, key);
    assert.equal(first.status, 404);
    // The board becomes visible, but the retry still gets the first outcome.
    assert.equal((await server.request('PATCH', `/v1/boards/${board.id}`, { token: owner.token, body: { is_public: true } })).status, 200);
    const retry = await post<unknown>(other, `/v1/boards/${board.id}/duplicate`, key);
    assert.equal(retry.status, 404);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body, first.body);
    assert.deepEqual(await boardNames(other), []);
    // A fresh key runs the request again.
    assert.equal((await post<DuplicateBody>(other, `/v1/boards/${board.id}/duplicate`, randomUUID())).status, 201);
  });

  test('a request that fails validation keeps no outcome (as Stripe), so the key stays usable', async () => {
    const user = await server.user();
    const key = randomUUID();
    assert.equal((await post(user, '/v1/boards', key, { name: 42 })).status, 400);
    assert.equal((await post(user, '/v1/boards', key, { name: 'Fixed' })).status, 201);
    assert.deepEqual(await boardNames(user), ['Fixed']);
  });

  test('a body nested thousands of levels deep with a key is a 400, not a 500', async () => {
    const user = await server.user();
    const board = (await post(user, '/v1/boards', undefined, { name: 'deep' })).body.data;
    const deep = `${'{"k":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const raw = `{"type":"note","position":{"x":0,"y":0},"data":{"text":"a","deep":${deep}}}`;
    const res = await server.request<unknown>('POST', `/v1/boards/${board.id}/nodes`, {
      token: user.token,
      raw,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    });
    assert.equal(res.status, 400, res.text);
    assert.ok(isErrorEnvelope(res.body, 400));
  });

  test('GET, PATCH and DELETE ignore the header', async () => {
    const user = await server.user();
    const board = (await post(user, '/v1/boards', 'used', { name: 'G' })).body.data;
    for (const key of ['used', '', 'k'.repeat(300)]) {
      const res = await server.request<BoardBody>('GET', `/v1/boards/${board.id}`, {
        token: user.token,
        headers: { 'idempotency-key': key },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('idempotent-replayed'), null);
    }
    const p1 = await server.request<BoardBody>('PATCH', `/v1/boards/${board.id}`, {
      token: user.token,
      body: { name: 'G2' },
      headers: { 'idempotency-key': 'used' },
    });
    assert.equal(p1.status, 200);
    assert.equal(p1.body.data.name, 'G2');
    const list = await server.request<BoardList>('GET', '/v1/boards', { token: user.token, headers: { 'idempotency-key': 'used' } });
    assert.equal(list.status, 200);
    assert.equal(list.body.object, 'list');
  });

  test('unauthenticated POSTs with a key are 401 and reserve nothing', async () => {
    const res = await server.request<unknown>('POST', '/v1/boards', { body: { name: 'x' }, headers: { 'idempotency-key': 'anon' } });
    assert.equal(res.status, 401);
    const user = await server.user();
    assert.equal((await post(user, '/v1/boards', 'anon', { name: 'x' })).status, 201);
  });
});
