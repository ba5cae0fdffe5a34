// Rate limits: per principal (API key, or a user's JWTs), separate limits for the two kinds, all of
// a user's API keys together under a per-user limit, the 429 error envelope and its headers,
// counters shared through Redis by two instances, and failing open when Redis goes away.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, type Response, type TestServer, type TestUser, useServer } from './helpers/harness.js';
import { redisAvailable, startRedis, type RedisServer } from './helpers/redis.js';
import { wireRun } from './helpers/wire-database.js';

function assertLimited(res: Response, limit: number): void {
  assert.equal(res.status, 429, res.text);
  assert.ok(isErrorEnvelope(res.body, 429));
  assert.equal(res.body.code, 'rate_limited');
  assert.match(res.body.message, new RegExp(`Rate limit of ${limit} requests per minute exceeded`));
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message', 'object', 'status']);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(res.headers.get('ratelimit-limit'), String(limit));
  assert.equal(res.headers.get('ratelimit-remaining'), '0');
  const reset = Number(res.headers.get('ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset > 0 && reset <= 60, `RateLimit-Reset ${reset}`);
}

describe('rate limits on one instance', () => {
  const server = useServer({ RATE_LIMIT_API_KEY_PER_MINUTE: '5', RATE_LIMIT_JWT_PER_MINUTE: '3' });
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  test('the 6th API-key request in a minute is 429 with the envelope and headers', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await server.request('GET', '/v1/boards', { token: alice.token });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
      assert.ok(Number(res.headers.get('ratelimit-reset')) > 0);
      assert.equal(res.headers.get('retry-after'), null);
    }
    const limited = await server.request('GET', '/v1/boards', { token: alice.token });
    assertLimited(limited, 5);
    // Writes count against the same budget.
    assertLimited(await server.request('POST', '/v1/boards', { token: alice.token, body: { name: 'x' } }), 5);
  });

  test('counts are per API key: another key, of the same or another user, is unaffected', async () => {
    const second = await alice.keyWith(['read']);
    assert.equal((await server.request('GET', '/v1/boards', { token: second.raw_key })).status, 200);
    const res = await server.request('GET', '/v1/boards', { token: bob.token });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), '4');
  });

  test('JWTs have their own, per-user limit', async () => {
    // alice's API key is exhausted; her JWTs are counted separately, with the JWT limit.
    for (let i = 1; i <= 3; i++) {
      const res = await server.request('GET', '/v1/boards', { token: await alice.jwt() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('ratelimit-limit'), '3');
    }
    // A fresh token of the same user is the same principal.
    assertLimited(await server.request('GET', '/v1/boards', { token: await alice.jwt() }), 3);
    assert.equal((await server.request('GET', '/v1/boards', { token: await bob.jwt() })).status, 200);
  });

  test('public routes and rejected requests are not limited', async () => {
    for (let i = 0; i < 8; i++) assert.equal((await server.request('GET', '/healthz')).status, 200);
    const res = await server.request('GET', '/v1/boards', { token: 'bwk_test_nope' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('ratelimit-limit'), null);
  });
});

describe("rate limits across one user's API keys", () => {
  const server = useServer({ RATE_LIMIT_API_KEY_PER_MINUTE: '5', RATE_LIMIT_USER_PER_MINUTE: '8', RATE_LIMIT_JWT_PER_MINUTE: '3' });
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  test('more keys do not mean more requests: the keys of one user share RATE_LIMIT_USER_PER_MINUTE', async () => {
    const keys = [alice.token, (await alice.keyWith(['read'])).raw_key, (await alice.keyWith(['read'])).raw_key];
    for (let i = 1; i <= 4; i++) {
      const res = await server.request('GET', '/v1/boards', { token: keys[0] });
      assert.equal(res.status, 200, res.text);
      // The key's own budget has less left than the user's: its numbers are shown.
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
    }
    for (let i = 5; i <= 8; i++) {
      const res = await server.request('GET', '/v1/boards', { token: keys[1] });
      assert.equal(res.status, 200, res.text);
      if (i >= 7) {
        // Now the user's budget has less left than the second key's.
        assert.equal(res.headers.get('ratelimit-limit'), '8');
        assert.equal(res.headers.get('ratelimit-remaining'), String(8 - i));
      }
    }
    // A third key, unused so far, is refused: the user has spent the budget.
    const limited = await server.request('GET', '/v1/boards', { token: keys[2] });
    assert.equal(limited.status, 429, limited.text);
    assert.ok(isErrorEnvelope(limited.body, 429));
    assert.equal(limited.body.code, 'rate_limited');
    assert.match(limited.body.message, /Rate limit of 8 requests per minute across all of this user's API keys exceeded/);
    assert.equal(limited.headers.get('ratelimit-limit'), '8');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // So is a key made now.
    const fresh = await alice.keyWith(['read']);
    assert.equal((await server.request('GET', '/v1/boards', { token: fresh.raw_key })).status, 429);
    // Other users, and the same user's JWTs (their own limit), are unaffected.
    assert.equal((await server.request('GET', '/v1/boards', { token: bob.token })).status, 200);
    assert.equal((await server.request('GET', '/v1/boards', { token: await alice.jwt() })).status, 200);
    // Public routes are not counted.
    assert.equal((await server.request('GET', '/healthz', { token: keys[2] })).status, 200);
  });
});

describe('a key revoked by another instance', {
  skip: wireRun ? false : 'the embedded database has one instance, through which keys are revoked',
}, () => {
  const server = useServer({ RATE_LIMIT_API_KEY_PER_MINUTE: '5', RATE_LIMIT_USER_PER_MINUTE: '12' });

  test('is refused with 401 before it is counted, even on the lists (which confirm keys in their own statement)', async () => {
    const carol = await server.user();
    const boardId = await server.makeBoard(carol);
    const leaked = await carol.keyWith(['read']);
    const nodes = `/v1/boards/${boardId}/nodes`;
    for (let i = 1; i <= 5; i++) assert.equal((await server.request('GET', nodes, { token: leaked.raw_key })).status, 200);
    assertLimited(await server.request('GET', nodes, { token: leaked.raw_key }), 5);
    // Revoked where this instance does not see it: by another instance, the CLI or SQL.
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${leaked.id}`.execute(server.database.db);
    for (let i = 0; i < 10; i++) {
      const res = await server.request('GET', nodes, { token: leaked.raw_key });
      assert.equal(res.status, 401, `request ${i + 1} after the revocation: ${res.text}`);
      assert.equal(res.headers.get('ratelimit-limit'), null, 'a refused request is not counted');
    }
    // carol's own key has the rest of her budget (12, of which her board and the leaked key's 200s used 6).
    const own = await server.request('GET', '/v1/boards', { token: carol.token });
    assert.equal(own.status, 200, own.text);
  });

  test("within its limit: the list's statement refuses it once, and the key's row is read from then on", async () => {
    const dan = await server.user();
    const boardId = await server.makeBoard(dan);
    const leaked = await dan.keyWith(['read']);
    const nodes = `/v1/boards/${boardId}/nodes`;
    assert.equal((await server.request('GET', nodes, { token: leaked.raw_key })).status, 200);
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${leaked.id}`.execute(server.database.db);
    // Counted, then refused by the statement that checks the key with the board.
    const first = await server.request('GET', nodes, { token: leaked.raw_key });
    assert.equal(first.status, 401, first.text);
    for (let i = 0; i < 5; i++) {
      const res = await server.request('GET', nodes, { token: leaked.raw_key });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.headers.get('ratelimit-limit'), null, `request ${i + 2} after the revocation is refused before it is counted`);
    }
  });
});

describe('rate limits shared through Redis', { skip: redisAvailable() ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let one: TestServer;
  let two: TestServer;
  let rawKey: string;
  let otherKeys: string[];

  before(async () => {
    redis = await startRedis();
    // Each instance gets its own embedded database (DATABASE_URL '' overrides the wire run's
    // TEST_DATABASE_URL) holding the same user and key row, as two instances sharing one
    // PostgreSQL would see it. A single PGlite behind pglite-socket with two connections is not a
    // safe stand-in: its multiplexer interleaves the extended-protocol messages of concurrent
    // connections, so one connection's Parse can replace another's unnamed statement.
    const env = { REDIS_URL: redis.url, RATE_LIMIT_API_KEY_PER_MINUTE: '5', RATE_LIMIT_USER_PER_MINUTE: '7', DATABASE_URL: '' };
    one = await startServer(env);
    two = await startServer(env);
    const user = await one.user();
    rawKey = user.token;
    const userRow = await one.database.db.selectFrom('users').selectAll().where('id', '=', user.userId).executeTakeFirstOrThrow();
    const keyRow = await one.database.db.selectFrom('api_keys').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    await two.database.db.insertInto('users').values(userRow).execute();
    await two.database.db.insertInto('api_keys').values(keyRow).execute();
    // Two more keys of the same user, on both instances.
    otherKeys = [];
    for (let i = 0; i < 2; i++) {
      const key = await user.keyWith(['read']);
      otherKeys.push(key.raw_key);
      const row = await one.database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
      await two.database.db.insertInto('api_keys').values(row).execute();
    }
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await redis?.stop();
  });

  test('3 requests on one instance and 3 on the other exceed a limit of 5', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await one.request('GET', '/v1/boards', { token: rawKey });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
    }
    for (let i = 4; i <= 5; i++) {
      const res = await two.request('GET', '/v1/boards', { token: rawKey });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
    }
    assertLimited(await two.request('GET', '/v1/boards', { token: rawKey }), 5);
    assertLimited(await one.request('GET', '/v1/boards', { token: rawKey }), 5);
  });

  test("the per-user count of a user's keys is shared too", async () => {
    // The 7 requests above, on both instances, counted for the user too (the two the key's limit
    // refused included): the user's 8th, through another key, is over RATE_LIMIT_USER_PER_MINUTE.
    const res = await one.request<ErrorBody>('GET', '/v1/boards', { token: otherKeys[0] });
    assert.equal(res.status, 429, res.text);
    assert.match(res.body.message, /Rate limit of 7 requests per minute across all of this user's API keys exceeded/);
    assert.equal((await two.request('GET', '/v1/boards', { token: otherKeys[1] })).status, 429);
  });

  test('when Redis goes down the service fails open instead of failing requests', async () => {
    await redis.stop();
    for (const server of [one, two]) {
      const res = await server.request('GET', '/v1/boards', { token: rawKey });
      assert.equal(res.status, 200, res.text);
      const created = await server.request('POST', '/v1/boards', { token: rawKey, body: { name: 'still served' } });
      assert.equal(created.status, 201, created.text);
    }
  });
});
