// Two service processes on one PostgreSQL server and one Redis, as a scaled-out deployment runs:
// the rate limit is one count across both, a key revoked through one is refused by the other at
// once, vectorize jobs posted to both are each claimed and run exactly once, and a change or a
// presence made through one reaches the event streams held on the other, and a list page one keeps
// shows a change made through the other at once. Needs a real
// PostgreSQL (the wire run with TEST_POSTGRES_URL: CI starts one) and redis-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import type { BoardBody, ErrorBody, JobBody, NodeBody } from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { redisAvailable, startRedis, type RedisServer } from './helpers/redis.js';
import { realPostgres } from './helpers/wire-database.js';
import { follow } from './helpers/event-stream.js';
import { sql } from 'kysely';

const skip = !realPostgres
  ? 'needs a real PostgreSQL server (TEST_POSTGRES_URL)'
  : !redisAvailable()
    ? 'redis-server is not installed'
    : false;

const RATE_LIMIT = 20;

/** Sends a request to one instance; `T` is the body's type (see api-types.ts). */
async function call<T = unknown>(server: ChildServer, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

describe('two instances on one PostgreSQL and one Redis', { skip }, () => {
  let redis: RedisServer;
  let database: DatabaseHandle;
  let one: ChildServer;
  let two: ChildServer;

  before(async () => {
    redis = await startRedis();
    const env = {
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATABASE_POOL_MAX: '4',
      REDIS_URL: redis.url,
      RATE_LIMIT_API_KEY_PER_MINUTE: String(RATE_LIMIT),
      JOB_POLL_MS: '50',
    };
    // One after the other: the first checks the migrations (on a migrated copy, helpers/wire-template.ts).
    // The first runs without named prepared statements (as behind a proxy that cannot keep them),
    // the second with them (the default), so every test here runs both against a real PostgreSQL.
    one = await startChildServer({ ...env, DATABASE_PREPARED_STATEMENTS: 'false' });
    two = await startChildServer(env);
    database = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, databasePoolMax: 1, dataDir: '' });
  });
  after(async () => {
    await database?.close();
    await redis?.stop();
  });

  const newKey = async () =>
    new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(newId(), { name: 'multi', scopes: ['read', 'write', 'admin'] });

  test('the rate limit is one count across both instances', async () => {
    const { raw_key: token } = await newKey();
    for (let i = 1; i <= RATE_LIMIT; i++) {
      const res = await call(i % 2 ? one : two, token, 'GET', '/v1/boards');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('ratelimit-remaining'), String(RATE_LIMIT - i));
    }
    for (const server of [one, two]) {
      const res = await call<ErrorBody>(server, token, 'GET', '/v1/boards');
      assert.equal(res.status, 429, JSON.stringify(res.body));
      assert.equal(res.body.code, 'rate_limited');
    }
  });

  test('a key revoked through one instance is refused by the other at once', async () => {
    const key = await newKey();
    assert.equal((await call(two, key.raw_key, 'GET', '/v1/boards')).status, 200);
    const revoked = await call(one, key.raw_key, 'DELETE', `/v1/me/api-keys/${key.id}`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const refused = await call<ErrorBody>(two, key.raw_key, 'GET', '/v1/boards');
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'unauthorized');
  });

  test('a key both instances have served is refused by both at once when revoked outside them (the CLI)', async () => {
    const key = await newKey();
    // Twice each: any cache an instance kept of the key would be filled.
    for (const server of [one, two, one, two]) assert.equal((await call(server, key.raw_key, 'GET', '/v1/boards')).status, 200);
    await new ApiKeyService({ db: database.db, env: 'test' }).revokeById(key.id);
    for (const server of [one, two]) {
      const refused = await call(server, key.raw_key, 'GET', '/v1/boards');
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
    }
  });

  test('a list page kept by one instance shows a change made through the other at once', async () => {
    const { raw_key: token } = await newKey();
    const board = await call<BoardBody>(one, token, 'POST', '/v1/boards', { name: 'kept lists' });
    const boardId = board.body.data.id;
    const note = (text: string) => ({ type: 'note', position: { x: 0, y: 0 }, data: { text } });
    const first = await call<NodeBody>(two, token, 'POST', `/v1/boards/${boardId}/nodes`, note('first'));
    const texts = async () => {
      const list = await call<{ data: Array<{ node_data: { text: string } }> }>(one, token, 'GET', `/v1/boards/${boardId}/nodes`);
      assert.equal(list.status, 200, JSON.stringify(list.body));
      return list.body.data.map((n) => n.node_data.text);
    };
    // Read twice, so the second is answered from the page the first kept.
    assert.deepEqual(await texts(), ['first']);
    assert.deepEqual(await texts(), ['first']);
    assert.equal((await call(two, token, 'POST', `/v1/boards/${boardId}/nodes`, note('second'))).status, 201);
    assert.deepEqual(await texts(), ['second', 'first']);
    const changed = await call(two, token, 'PATCH', `/v1/boards/${boardId}/nodes/${first.body.data.id}`, { data: { text: 'changed' } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(await texts(), ['second', 'changed']);
    assert.equal((await call(two, token, 'DELETE', `/v1/boards/${boardId}/nodes/${first.body.data.id}`)).status, 200);
    assert.deepEqual(await texts(), ['second']);
  });

  test('a page one instance brought forward with its own changes shows the changes made through the other, and refuses as the database does', async () => {
    const { raw_key: token } = await newKey();
    const board = await call<BoardBody>(one, token, 'POST', '/v1/boards', { name: 'followed lists' });
    const boardId = board.body.data.id;
    const note = (text: string) => ({ type: 'note', position: { x: 0, y: 0 }, data: { text } });
    const made = await call<NodeBody>(one, token, 'POST', `/v1/boards/${boardId}/nodes`, note('a'));
    const texts = async (token_ = token) => {
      const list = await call<{ data: Array<{ node_data: { text: string } }> }>(one, token_, 'GET', `/v1/boards/${boardId}/nodes?limit=3`);
      assert.equal(list.status, 200, JSON.stringify(list.body));
      return list.body.data.map((n) => n.node_data.text);
    };
    assert.deepEqual(await texts(), ['a']);
    // Changes through one: its page follows them; through two, whether read before the next change
    // through one or not: one's page is read again, never brought forward over a change it did not see.
    const steps: Array<[ChildServer, string, string, unknown, string[] | undefined]> = [
      [one, 'POST', '', note('b'), ['b', 'a']],
      [two, 'POST', '', note('c'), undefined],
      [one, 'PATCH', `/${made.body.data.id}`, { data: { text: 'a2' } }, ['c', 'b', 'a2']],
      [one, 'POST', '', note('d'), ['d', 'c', 'b']],
      [two, 'PATCH', `/${made.body.data.id}`, { data: { text: 'a3' } }, ['d', 'c', 'b']],
      [two, 'POST', '', note('e'), undefined],
      [one, 'POST', '', note('f'), ['f', 'e', 'd']],
    ];
    for (const [server, method, path, body, expected] of steps) {
      const res = await call(server, token, method, `/v1/boards/${boardId}/nodes${path}`, body);
      assert.ok(res.status < 300, JSON.stringify(res.body));
      if (expected) assert.deepEqual(await texts(), expected);
    }
    // Another user's key: 404 from the page kept and followed; a key revoked through two: 401 on one.
    const stranger = await newKey();
    assert.equal((await call(one, stranger.raw_key, 'GET', `/v1/boards/${boardId}/nodes?limit=3`)).status, 404);
    const reader = await call<{ data: { id: string; raw_key: string } }>(two, token, 'POST', '/v1/me/api-keys', {
      name: 'reader',
      scopes: ['read'],
    });
    assert.deepEqual(await texts(reader.body.data.raw_key), ['f', 'e', 'd']);
    assert.equal(
      (await call(one, token, 'PATCH', `/v1/boards/${boardId}/nodes/${made.body.data.id}`, { data: { text: 'a4' } })).status,
      200,
    );
    assert.equal((await call(two, token, 'DELETE', `/v1/me/api-keys/${reader.body.data.id}`)).status, 200);
    assert.equal((await call(one, reader.body.data.raw_key, 'GET', `/v1/boards/${boardId}/nodes?limit=3`)).status, 401);
  });

  test('a single node kept by one instance shows a change made through the other at once, with its new ETag', async () => {
    const { raw_key: token } = await newKey();
    const board = await call<BoardBody>(one, token, 'POST', '/v1/boards', { name: 'kept nodes' });
    const boardId = board.body.data.id;
    const created = await call<NodeBody>(two, token, 'POST', `/v1/boards/${boardId}/nodes`, {
      type: 'note',
      position: { x: 0, y: 0 },
      data: { text: 'first' },
    });
    const path = `/v1/boards/${boardId}/nodes/${created.body.data.id}`;
    const read = async () => {
      const res = await call<NodeBody & { data: { node_data: { text: string } } }>(one, token, 'GET', path);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { text: res.body.data.node_data.text, tag: res.headers.get('etag') };
    };
    // Read three times, so the later reads are answered from what the first kept.
    const first = await read();
    assert.equal(first.text, 'first');
    assert.deepEqual(await read(), first);
    assert.deepEqual(await read(), first);
    const notModified = await fetch(`${one.url}${path}`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': first.tag! } });
    assert.equal(notModified.status, 304);
    const changed = await call(two, token, 'PATCH', path, { data: { text: 'changed' } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const after = await read();
    assert.equal(after.text, 'changed');
    assert.equal(after.tag, changed.headers.get('etag'));
    assert.notEqual(after.tag, first.tag);
    // A change to another node of the board raises its version: the node is read again, unchanged.
    assert.equal(
      (await call(two, token, 'POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 1, y: 1 }, data: { text: 'other' } }))
        .status,
      201,
    );
    assert.deepEqual(await read(), after);
    // Another user's key gets 404 for the private board, though the node is kept.
    const stranger = await newKey();
    assert.equal((await call(one, stranger.raw_key, 'GET', path)).status, 404);
    assert.equal((await call(two, token, 'DELETE', path)).status, 200);
    assert.equal((await call(one, token, 'GET', path)).status, 404);
  });

  test('the reads that check the key in their own statement refuse it at once after a revocation outside the instances', async () => {
    // The board is made with another key of the same user, so the read key's 20 a minute last the test.
    const subject = newId();
    const writer = await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(subject, {
      name: 'writer',
      scopes: ['write'],
    });
    const key = await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(subject, { name: 'reader', scopes: ['read'] });
    const board = await call<BoardBody>(one, writer.raw_key, 'POST', '/v1/boards', { name: 'confirmed in the statement' });
    const boardId = board.body.data.id;
    const note = { type: 'note', position: { x: 0, y: 0 }, data: { text: 'read' } };
    const node = await call<NodeBody>(one, writer.raw_key, 'POST', `/v1/boards/${boardId}/nodes`, note);
    const second = await call<NodeBody>(one, writer.raw_key, 'POST', `/v1/boards/${boardId}/nodes`, note);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const edge = await call<{ data: { id: string } }>(one, writer.raw_key, 'POST', `/v1/boards/${boardId}/edges`, {
      source_node_id: node.body.data.id,
      target_node_id: second.body.data.id,
    });
    assert.equal(edge.status, 201, JSON.stringify(edge.body));
    const reads = [
      `/v1/boards/${boardId}/nodes`,
      `/v1/boards/${boardId}/nodes/${node.body.data.id}`,
      `/v1/boards/${boardId}/edges`,
      `/v1/boards/${boardId}/edges/${edge.body.data.id}`,
    ];
    // Each read on each instance: the first fills the instance's record of the key, the others are
    // answered without reading it first. Another user's board and a missing node stay 404 for a valid key.
    for (const server of [one, two])
      for (const path of reads) assert.equal((await call(server, key.raw_key, 'GET', path)).status, 200, path);
    const stranger = await newKey();
    for (const server of [one, two]) {
      assert.equal((await call(server, stranger.raw_key, 'GET', `/v1/boards/${boardId}/nodes`)).status, 404);
      assert.equal((await call(server, stranger.raw_key, 'GET', `/v1/boards/${boardId}/nodes`)).status, 404);
      assert.equal((await call(server, key.raw_key, 'GET', `/v1/boards/${boardId}/nodes/${newId()}`)).status, 404);
    }
    await new ApiKeyService({ db: database.db, env: 'test' }).revokeById(key.id);
    for (const server of [one, two]) {
      for (const path of reads) {
        const refused = await call<ErrorBody>(server, key.raw_key, 'GET', path);
        assert.equal(refused.status, 401, `${path}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.code, 'unauthorized');
      }
    }
  });

  test('a key in use records when it was used, and a change of its scopes applies at once', async () => {
    const key = await newKey();
    assert.equal((await call(two, key.raw_key, 'GET', '/v1/boards')).status, 200);
    assert.equal((await call(two, key.raw_key, 'GET', '/v1/boards')).status, 200);
    // Written after the answer, so polled.
    let lastUsed: Date | null = null;
    for (const deadline = Date.now() + 10_000; lastUsed === null && Date.now() < deadline; ) {
      lastUsed = (await database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow())
        .last_used_at;
      if (lastUsed === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(lastUsed !== null, 'last_used_at was never written');
    await database.db
      .updateTable('api_keys')
      .set({ scopes: ['read'] })
      .where('id', '=', key.id)
      .execute();
    const write = await call(two, key.raw_key, 'POST', '/v1/boards', { name: 'after the scope change' });
    assert.equal(write.status, 403, JSON.stringify(write.body));
  });

  test('vectorize jobs posted to both instances are each claimed and run exactly once', async () => {
    // A user per instance, so no request meets the rate limit of the test above.
    const owners = [await newKey(), await newKey()];
    const jobs: { id: string; node: string }[] = [];
    for (const [i, server] of [one, two].entries()) {
      const token = owners[i]!.raw_key;
      const board = (await call<BoardBody>(server, token, 'POST', '/v1/boards', { name: `board ${i}` })).body.data.id;
      for (let n = 0; n < 3; n++) {
        const node = (
          await call<NodeBody>(server, token, 'POST', `/v1/boards/${board}/nodes`, {
            type: 'note',
            position: { x: n * 300, y: 0 },
            data: { text: `note ${n}`, label: `Note ${n}` },
          })
        ).body.data.id;
        const text = Array.from({ length: 40 }, (_, p) => `Paragraph ${p} of note ${n} on board ${i} about harbours and engines.`).join(
          '\n\n',
        );
        const posted = await call<JobBody>(server, token, 'POST', `/v1/boards/${board}/documents`, { text, node_id: node });
        assert.equal(posted.status, 202, JSON.stringify(posted.body));
        jobs.push({ id: posted.body.data.id, node });
      }
    }

    // Polled in the database: the API would count against the rate limit.
    for (const deadline = Date.now() + 120_000; ; ) {
      const open = await database.db
        .selectFrom('jobs')
        .select('id')
        .where(
          'id',
          'in',
          jobs.map((j) => j.id),
        )
        .where('status', '=', 'processing')
        .execute();
      if (open.length === 0) break;
      assert.ok(Date.now() < deadline, `jobs still processing: ${open.map((j) => j.id).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Each claimed once: one attempt, and one set of chunks per node (none written twice).
    const rows = await database.db
      .selectFrom('jobs')
      .select(['id', 'attempts', 'status', 'error'])
      .where(
        'id',
        'in',
        jobs.map((j) => j.id),
      )
      .execute();
    assert.equal(rows.length, jobs.length);
    for (const row of rows) {
      assert.equal(row.status, 'completed', `job ${row.id}: ${row.error}`);
      assert.equal(row.attempts, 1, `job ${row.id} was claimed ${row.attempts} times`);
    }
    for (const job of jobs) {
      const chunks = await database.db
        .selectFrom('document_chunks')
        .select(['content', 'set_id'])
        .where('node_id', '=', job.node)
        .execute();
      assert.ok(chunks.length > 0, `node ${job.node} has no chunks`);
      assert.equal(new Set(chunks.map((c) => c.set_id)).size, 1, `node ${job.node} has chunks of two runs`);
      assert.equal(new Set(chunks.map((c) => c.content)).size, chunks.length, `node ${job.node} has a chunk written twice`);
    }
  });

  test('a change, a presence and a revocation through one instance reach the streams held on the other', async () => {
    const owner = await newKey();
    const viewer = await newKey();
    const board = (await call<BoardBody>(one, owner.raw_key, 'POST', '/v1/boards', { name: 'live', is_public: true })).body.data.id;
    const stream = follow(two.url, board, viewer.raw_key);
    try {
      await stream.waitFor((e) => e.type === 'ready');
      const node = await call<NodeBody>(one, owner.raw_key, 'POST', `/v1/boards/${board}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { text: 'across instances' },
      });
      assert.equal(node.status, 201);
      const created = await stream.waitFor((e) => e.type === 'node.created');
      assert.deepEqual(created.data.data, node.body.data);
      assert.equal(created.id, '1');

      const presence = await call(one, owner.raw_key, 'PUT', `/v1/boards/${board}/presence`, {
        session_id: 'owner-tab-1',
        cursor: { x: 1, y: 2 },
      });
      assert.equal(presence.status, 200, JSON.stringify(presence.body));
      const seen = await stream.waitFor((e) => e.type === 'presence');
      assert.equal(seen.data.session_id, 'owner-tab-1');
      // The session is the owner's on the other instance too: the viewer can neither move nor end it.
      const spoofed = await call(two, viewer.raw_key, 'PUT', `/v1/boards/${board}/presence`, { session_id: 'owner-tab-1' });
      assert.equal(spoofed.status, 403, JSON.stringify(spoofed.body));
      const ended = await call(two, viewer.raw_key, 'DELETE', `/v1/boards/${board}/presence/owner-tab-1`);
      assert.equal(ended.status, 403, JSON.stringify(ended.body));

      // The listening connection of each instance dropped: they listen again and catch up.
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND datname = current_database() AND pid <> pg_backend_pid()`.execute(
        database.db,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await call<NodeBody>(one, owner.raw_key, 'POST', `/v1/boards/${board}/nodes`, {
        type: 'note',
        position: { x: 10, y: 0 },
        data: { text: 'after the connection dropped' },
      });
      assert.equal(later.status, 201);
      const caughtUp = await stream.waitFor((e) => e.id === '2', 15_000);
      assert.equal(caughtUp.type, 'node.created');

      const revoked = await call(one, viewer.raw_key, 'DELETE', `/v1/me/api-keys/${viewer.id}`);
      assert.equal(revoked.status, 200);
      await stream.ended();
    } finally {
      stream.close();
    }
  });
});
