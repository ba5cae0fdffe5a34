// /v1/me/api-keys: create (raw key shown once), list (own keys, paginated, no secrets), revoke
// (immediate, also for a key cached by this instance), expiry, validation, last_used_at, and only
// the SHA-256 of a key stored.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import type { ApiError } from '../src/errors.js';
import { newId } from '../src/lib/ids.js';
import type { ApiKey, ApiKeyCreated, ApiKeyList, Deleted, ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, type Response, type TestUser, TIMESTAMP, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

const RECORD_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes'];

async function createKey<T = ApiKeyCreated>(user: TestUser, body: Record<string, unknown>) {
  return server.request<T>('POST', '/v1/me/api-keys', { token: user.token, body });
}

async function listAll(user: TestUser): Promise<ApiKey[]> {
  const all: ApiKey[] = [];
  let cursor: string | null = null;
  do {
    const res: Response<ApiKeyList> = await server.request<ApiKeyList>(
      'GET',
      `/v1/me/api-keys?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      {
        token: user.token,
      },
    );
    assert.equal(res.status, 200, res.text);
    all.push(...res.body.data);
    cursor = res.body.cursor;
  } while (cursor);
  return all;
}

describe('api keys', () => {
  test('create returns 201 with the raw key once', async () => {
    const res = await createKey(alice, { name: 'ci', scopes: ['write', 'read'] });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.object, 'api_key');
    const key = res.body.data;
    assert.deepEqual(Object.keys(key).sort(), [...RECORD_FIELDS, 'raw_key'].sort());
    assert.match(key.raw_key, /^bwk_test_[A-Za-z0-9_-]+$/);
    // At least 32 random bytes behind the prefix.
    assert.ok(Buffer.from(key.raw_key.slice('bwk_test_'.length), 'base64url').length >= 32);
    assert.equal(key.prefix, key.raw_key.slice(0, 12));
    assert.equal(key.name, 'ci');
    assert.deepEqual(key.scopes, ['read', 'write']);
    assert.match(key.created_at, TIMESTAMP);
    assert.equal(key.expires_at, null);
    assert.equal(key.last_used_at, null);
    assert.equal(key.revoked_at, null);
    assert.equal((await server.request('GET', '/v1/boards', { token: key.raw_key })).status, 200);
    const again = await createKey(alice, { name: 'ci', scopes: ['read'] });
    assert.notEqual(again.body.data.raw_key, key.raw_key);
  });

  test('list is paginated, shows only own keys and never the raw key or its hash', async () => {
    const carol = await server.user();
    for (const name of ['k1', 'k2', 'k3', 'k4']) assert.equal((await createKey(carol, { name, scopes: ['read'] })).status, 201);
    await createKey(bob, { name: 'bobs', scopes: ['read'] });
    const p1 = await server.request<ApiKeyList>('GET', '/v1/me/api-keys?limit=2', { token: carol.token });
    assert.equal(p1.status, 200);
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(
      p1.body.data.map((k) => k.name),
      ['k4', 'k3'],
    );
    assert.equal(p1.body.has_more, true);
    for (const k of p1.body.data) assert.deepEqual(Object.keys(k).sort(), RECORD_FIELDS);
    const p2 = await server.request<ApiKeyList>('GET', `/v1/me/api-keys?limit=2&cursor=${p1.body.cursor}`, { token: carol.token });
    assert.deepEqual(
      p2.body.data.map((k) => k.name),
      ['k2', 'k1'],
    );
    const p3 = await server.request<ApiKeyList>('GET', `/v1/me/api-keys?limit=2&cursor=${p2.body.cursor}`, { token: carol.token });
    // The harness's own key of carol (name "test") comes last.
    assert.deepEqual(
      p3.body.data.map((k) => k.name),
      ['test'],
    );
    assert.equal(p3.body.has_more, false);
    assert.equal(p3.body.cursor, null);
    assert.ok(!p1.text.includes('raw_key') && !p1.text.includes('hash'));
    // A cursor of carol's list is not valid for bob's.
    assert.equal((await server.request('GET', `/v1/me/api-keys?cursor=${p1.body.cursor}`, { token: bob.token })).status, 400);
    assert.ok((await listAll(bob)).every((k) => k.name !== 'k1'));
  });

  test('revoke answers the deletion envelope and the key fails at once, even one just used', async () => {
    const key = (await createKey(alice, { name: 'short-lived', scopes: ['read'] })).body.data;
    // Used first, so an instance that caches keys has it cached when it is revoked.
    assert.equal((await server.request('GET', '/v1/boards', { token: key.raw_key })).status, 200);
    const res = await server.request<Deleted>('DELETE', `/v1/me/api-keys/${key.id}`, { token: alice.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { object: 'api_key', data: { id: key.id, deleted: true } });
    const used = await server.request<ErrorBody>('GET', '/v1/boards', { token: key.raw_key });
    assert.equal(used.status, 401);
    assert.ok(isErrorEnvelope(used.body, 401));
    assert.equal(used.body.code, 'unauthorized');
    const listed = (await listAll(alice)).find((k) => k.id === key.id);
    assert.match(listed?.revoked_at ?? '', TIMESTAMP);
    // Revoking again is fine and keeps the first revocation time.
    const twice = await server.request<Deleted>('DELETE', `/v1/me/api-keys/${key.id}`, { token: alice.token });
    assert.equal(twice.status, 200);
    assert.deepEqual(twice.body, { object: 'api_key', data: { id: key.id, deleted: true } });
    assert.equal((await listAll(alice)).find((k) => k.id === key.id)?.revoked_at, listed?.revoked_at);
  });

  test('a key can revoke itself', async () => {
    const key = (await createKey(alice, { name: 'self', scopes: ['admin'] })).body.data;
    const res = await server.request<Deleted>('DELETE', `/v1/me/api-keys/${key.id}`, { token: key.raw_key });
    assert.equal(res.status, 200);
    assert.equal((await server.request('GET', '/v1/me/api-keys', { token: key.raw_key })).status, 401);
  });

  test("another user's key or an unknown id is 404, and the key keeps working", async () => {
    const bobs = (await createKey(bob, { name: 'bobs', scopes: ['read'] })).body.data;
    const res = await server.request<ErrorBody>('DELETE', `/v1/me/api-keys/${bobs.id}`, { token: alice.token });
    assert.equal(res.status, 404);
    assert.ok(isErrorEnvelope(res.body, 404));
    assert.equal((await server.request('DELETE', `/v1/me/api-keys/${newId()}`, { token: alice.token })).status, 404);
    assert.equal((await server.request('DELETE', '/v1/me/api-keys/not-a-uuid', { token: alice.token })).status, 404);
    assert.equal((await server.request('GET', '/v1/boards', { token: bobs.raw_key })).status, 200);
  });

  test('an expired key is rejected', async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const res = await createKey(alice, { name: 'expiring', scopes: ['read'], expires_at: expiresAt.toISOString() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.expires_at, expiresAt.toISOString());
    const raw = res.body.data.raw_key;
    assert.equal((await server.request('GET', '/v1/boards', { token: raw })).status, 200);
    while (Date.now() <= expiresAt.getTime() + 50) await sleep(100);
    const expired = await server.request<ErrorBody>('GET', '/v1/boards', { token: raw });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, 'unauthorized');
  });

  test('validation errors are 400 and name the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ scopes: ['read'] }, /name is required/],
      [{ name: '', scopes: ['read'] }, /name/],
      [{ name: '   ', scopes: ['read'] }, /name/],
      [{ name: 'x'.repeat(101), scopes: ['read'] }, /name/],
      [{ name: 42, scopes: ['read'] }, /name/],
      [{ name: 'n' }, /scopes is required/],
      [{ name: 'n', scopes: [] }, /scopes/],
      [{ name: 'n', scopes: 'read' }, /scopes/],
      [{ name: 'n', scopes: ['delete'] }, /scopes/],
      [{ name: 'n', scopes: ['read', 'read'] }, /scopes/],
      [{ name: 'n', scopes: ['read'], expires_at: '2020-01-01T00:00:00.000Z' }, /expires_at must be in the future/],
      [{ name: 'n', scopes: ['read'], expires_at: 'tomorrow' }, /expires_at/],
      [{ name: 'n', scopes: ['read'], expires_at: 1893456000 }, /expires_at/],
      [{ name: 'n', scopes: ['read'], raw_key: 'bwk_test_mine' }, /raw_key is not a recognised field/],
      [{ name: 'n', scopes: ['read'], scope: ['read'] }, /scope is not a recognised field/],
    ];
    for (const [body, message] of cases) {
      const res = await createKey<ErrorBody>(alice, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(isErrorEnvelope(res.body, 400));
      assert.equal(res.body.code, 'invalid_request');
      assert.match(res.body.message, message, JSON.stringify(body));
    }
    const ok = await createKey(alice, { name: 'n'.repeat(100), scopes: ['admin', 'read'], expires_at: null });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body.data.scopes, ['read', 'admin']);
  });

  test('last_used_at is set on use and written at most once a minute', async () => {
    const key = (await createKey(alice, { name: 'usage', scopes: ['read'] })).body.data;
    assert.equal(key.last_used_at, null);
    assert.equal((await server.request('GET', '/v1/boards', { token: key.raw_key })).status, 200);
    // The write does not hold up the request; wait for it without assuming how long it takes.
    let first: string | null = null;
    for (let i = 0; i < 100 && first === null; i++) {
      const listed = (await listAll(alice)).find((k) => k.id === key.id);
      assert.ok(listed, 'the key is listed');
      first = listed.last_used_at;
      if (first === null) await sleep(20);
    }
    assert.ok(first !== null, 'last_used_at was never written');
    assert.match(first, TIMESTAMP);
    assert.ok(new Date(first).getTime() >= new Date(key.created_at).getTime());
    assert.equal((await server.request('GET', '/v1/boards', { token: key.raw_key })).status, 200);
    assert.equal((await server.request('GET', '/v1/boards', { token: key.raw_key })).status, 200);
    const row = await server.database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow();
    assert.equal(row.last_used_at?.toISOString(), first);
  });

  test('only the SHA-256 of the key is stored', async () => {
    const key = (await createKey(alice, { name: 'hashed', scopes: ['read'] })).body.data;
    const row = await server.database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(key.raw_key).digest('hex'));
    assert.equal(row.prefix, key.raw_key.slice(0, 12));
    const secret = key.raw_key.slice(12);
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      assert.ok(!text.includes(secret), `column ${column} holds part of the raw key`);
    }
  });

  test('a key made with a key neither outlives it nor holds more than it', async () => {
    const user = await server.user();
    const inAnHour = new Date(Date.now() + 3_600_000);
    const parent = await user.keyWith(['read', 'write', 'admin'], { expires_at: inAnHour.toISOString() });
    const make = (body: Record<string, unknown>) =>
      server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', { token: parent.raw_key, body: { name: 'child', ...body } });

    // Never expiring, or expiring after the parent: 400, and nothing is created.
    const before = (await listAll(user)).length;
    for (const expires_at of [null, new Date(inAnHour.getTime() + 1000).toISOString(), '2999-01-01T00:00:00Z']) {
      const res = await server.request<ErrorBody>('POST', '/v1/me/api-keys', {
        token: parent.raw_key,
        body: { name: 'child', scopes: ['admin'], expires_at },
      });
      assert.ok(isErrorEnvelope(res.body, 400), `${expires_at}: ${res.text}`);
      assert.match(res.body.message, /expires_at/);
    }
    assert.equal((await listAll(user)).length, before);
    // No expires_at: the parent's. An earlier one is kept.
    const inherits = await make({ scopes: ['admin'] });
    assert.equal(inherits.status, 201, inherits.text);
    assert.equal(inherits.body.data.expires_at, inAnHour.toISOString());
    const sooner = new Date(Date.now() + 600_000).toISOString();
    const earlier = await make({ scopes: ['read'], expires_at: sooner });
    assert.equal(earlier.status, 201, earlier.text);
    assert.equal(earlier.body.data.expires_at, sooner);
    // Its child in turn is bound by the earlier expiry.
    const grandchild = await server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', {
      token: inherits.body.data.raw_key,
      body: { name: 'grandchild', scopes: ['read'], expires_at: new Date(Date.now() + 1_800_000).toISOString() },
    });
    assert.equal(grandchild.status, 201, grandchild.text);

    // A key that never expires makes keys as before; so does a JWT.
    const forever = await user.keyWith(['admin']);
    const free = await server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', {
      token: forever.raw_key,
      body: { name: 'free', scopes: ['read'] },
    });
    assert.equal(free.status, 201, free.text);
    assert.equal(free.body.data.expires_at, null);
    const viaJwt = await server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', {
      token: await user.jwt(),
      body: { name: 'jwt', scopes: ['admin'] },
    });
    assert.equal(viaJwt.status, 201, viaJwt.text);
    assert.equal(viaJwt.body.data.expires_at, null);
    // Scopes: the route needs admin, which holds every scope; the rule itself, for a narrower key.
    const writer = await user.keyWith(['write']);
    await assert.rejects(
      new ApiKeyService({ db: server.database.db, env: 'test' }).create(
        user.userId,
        { name: 'wider', scopes: ['admin'] },
        {
          userId: user.userId,
          kind: 'api_key',
          keyId: writer.id,
          scopes: ['write'],
        },
      ),
      (error: ApiError) => error.code === 'forbidden' && /scope admin/.test(error.message),
    );
    for (const key of [inherits, earlier, grandchild, free, viaJwt]) {
      await server.request('DELETE', `/v1/me/api-keys/${key.body.data.id}`, { token: user.token });
    }
  });

  test('the routes need the admin scope', async () => {
    const write = await alice.keyWith(['write']);
    const res = await server.request<ErrorBody>('GET', '/v1/me/api-keys', { token: write.raw_key });
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'Missing required scope: admin');
  });
});

describe('the cap on live API keys per user', () => {
  const capped = useServer({ API_KEYS_MAX_PER_USER: '3' });

  test('creating one more live key than API_KEYS_MAX_PER_USER is 409; revoked and expired keys do not count', async () => {
    const carol = await capped.user(); // holds one key already
    const dave = await capped.user();
    const create = <T = ApiKeyCreated>(user: TestUser, name: string) =>
      capped.request<T>('POST', '/v1/me/api-keys', { token: user.token, body: { name, scopes: ['read'] } });
    assert.equal((await create(carol, 'second')).status, 201);
    const third = await create(carol, 'third');
    assert.equal(third.status, 201, third.text);
    const refused = await create<ErrorBody>(carol, 'fourth');
    assert.equal(refused.status, 409, refused.text);
    assert.ok(isErrorEnvelope(refused.body, 409));
    assert.equal(refused.body.code, 'conflict');
    assert.match(refused.body.message, /3 live API keys.*revoke/);
    // Nothing was made, and another user is not affected.
    assert.equal((await capped.request<ApiKeyList>('GET', '/v1/me/api-keys', { token: carol.token })).body.data.length, 3);
    assert.equal((await create(dave, 'first of his own')).status, 201);
    // A revoked key frees its place.
    assert.equal((await capped.request('DELETE', `/v1/me/api-keys/${third.body.data.id}`, { token: carol.token })).status, 200);
    const again = await create(carol, 'fourth, after a revoke');
    assert.equal(again.status, 201, again.text);
    assert.equal((await create(carol, 'fifth')).status, 409);
    // So does an expired one (expired here by hand: no test waits for a clock).
    await capped.database.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('id', '=', again.body.data.id)
      .execute();
    assert.equal((await create(carol, 'fifth, after an expiry')).status, 201);
    // Keys made at once cannot overshoot the cap.
    const eve = await capped.user();
    const burst = await Promise.all([1, 2, 3, 4].map((i) => create(eve, `burst ${i}`)));
    assert.deepEqual(burst.map((r) => r.status).sort(), [201, 201, 409, 409]);
  });
});
