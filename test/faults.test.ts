// The service under load while what it stands on fails: its PostgreSQL restarted (`pg_ctl stop -m
// fast`, then started again), its connections killed (`pg_terminate_backend`, as a failover does),
// its Redis gone and back. Throughout, the process lives on, every answer is either a success or
// 503 `unavailable` with Retry-After, writes succeed again once the database is back, no
// acknowledged write is lost, and an open event stream delivers every change (kept open, or resumed
// by EventSource from its Last-Event-ID). Needs a real PostgreSQL's binaries (the wire run with
// TEST_POSTGRES_URL: CI installs them) and redis-server: the server here is the test's own, never the
// shared one.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test, type TestContext } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import type { BoardBody, ErrorBody, NodeBody } from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { follow, type FollowedStream, type ReceivedEvent } from './helpers/event-stream.js';
import { type PostgresCluster, startPostgresCluster } from './helpers/postgres-cluster.js';
import { redisAvailable, startRedis, type RedisServer } from './helpers/redis.js';
import { realPostgres } from './helpers/wire-database.js';

const skip = !realPostgres
  ? 'needs PostgreSQL 15 installed (the wire run with TEST_POSTGRES_URL)'
  : !redisAvailable()
    ? 'redis-server is not installed'
    : false;

interface Outcome {
  kind: 'create' | 'read';
  status: number;
  code?: string;
  retryAfter: string | null;
  /** RateLimit-Remaining and RateLimit-Limit: equal when nothing was counted (the store was away). */
  remaining: number;
  limit: number;
  sentAt: number;
}

/**
 * Two writers and four readers on one board, each sending its next request as soon as the last is
 * answered, every answer kept: so that when the database goes, some of the pool's connections are
 * lent to requests (a lent connection is the one whose loss ended the process).
 */
class Load {
  readonly outcomes: Outcome[] = [];
  readonly created: string[] = [];
  readonly failures: string[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];

  constructor(
    readonly server: ChildServer,
    private readonly token: string,
    readonly boardId: string,
  ) {
    this.loops = [...[1, 2].map(() => this.loop(() => this.create())), ...[1, 2, 3, 4].map(() => this.loop(() => this.read()))];
  }

  private async loop(send: () => Promise<void>): Promise<void> {
    while (!this.stopped) {
      await send();
      // A refused request comes back at once: a short pause keeps the load from spinning.
      await sleep(5);
    }
  }

  private async send(kind: Outcome['kind'], method: string, path: string, body?: unknown): Promise<Response | undefined> {
    const sentAt = Date.now();
    try {
      const res = await fetch(`${this.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(40_000),
      });
      const outcome: Outcome = {
        kind,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        remaining: Number(res.headers.get('ratelimit-remaining')),
        limit: Number(res.headers.get('ratelimit-limit')),
        sentAt,
      };
      this.outcomes.push(outcome);
      if (res.status >= 400) outcome.code = ((await res.json()) as ErrorBody).code;
      return res;
    } catch (error) {
      // The service itself went away (or hung): what the fault must never cause.
      this.failures.push(`${kind}: ${String((error as Error).cause ?? error)}`);
      return undefined;
    }
  }

  private async create(): Promise<void> {
    const text = `note ${this.created.length}`;
    const res = await this.send('create', 'POST', `/v1/boards/${this.boardId}/nodes`, {
      type: 'note',
      position: { x: 0, y: 0 },
      data: { text },
    });
    if (res?.status === 201) this.created.push(((await res.json()) as NodeBody).data.id);
  }

  private async read(): Promise<void> {
    const last = this.created.at(-1);
    const res = await this.send('read', 'GET', last ? `/v1/boards/${this.boardId}/nodes/${last}` : `/v1/boards/${this.boardId}`);
    if (res && !res.bodyUsed) await res.body?.cancel();
  }

  /** Resolves with how long after `since` the first create that then succeeded was sent. */
  async writesSucceedAfter(since: number): Promise<number> {
    const succeeded = () => this.outcomes.find((o) => o.kind === 'create' && o.status === 201 && o.sentAt >= since);
    await until(() => succeeded() !== undefined, 'a write succeeds once the database is back', this);
    return succeeded()!.sentAt - since;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

/** Waits until `done()` holds; fails with `what` and the load's last answers after `timeoutMs`. */
async function until(done: () => boolean, what: string, load: Load, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (load.server.proc.exitCode !== null) throw new Error(`${what}: the service exited\n${load.server.log().slice(-2000)}`);
    if (Date.now() > deadline)
      throw new Error(
        `${what} (not within ${timeoutMs} ms); last answers: ${JSON.stringify(load.outcomes.slice(-5))} ${load.failures.slice(-3)}`,
      );
    await sleep(20);
  }
}

describe('faults under load', { skip }, () => {
  let cluster: PostgresCluster;
  let redis: RedisServer;
  let server: ChildServer;
  let token: string;

  before(async () => {
    cluster = await startPostgresCluster();
    redis = await startRedis();
    server = await startChildServer({
      DATABASE_URL: cluster.databaseUrl,
      DATABASE_POOL_MAX: '4',
      REDIS_URL: redis.url,
      RATE_LIMIT_API_KEY_PER_MINUTE: '100000',
      RATE_LIMIT_USER_PER_MINUTE: '100000',
    });
    const database = await openDatabase({ databaseUrl: cluster.databaseUrl, databasePoolMax: 1, dataDir: '' });
    try {
      ({ raw_key: token } = await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(newId(), {
        name: 'faults',
        scopes: ['read', 'write'],
      }));
    } finally {
      await database.close();
    }
  });
  after(async () => {
    server?.proc.kill('SIGKILL');
    await redis?.stop();
    await cluster?.remove();
  });

  /** A board with load on it and a stream following it, for one fault. */
  async function underLoad(t: TestContext, fault: (load: Load) => Promise<void>): Promise<{ load: Load; stream: FollowedStream }> {
    const res = await fetch(`${server.url}/v1/boards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: t.name }),
    });
    assert.equal(res.status, 201);
    const boardId = ((await res.json()) as BoardBody).data.id;
    const stream = follow(server.url, boardId, token, { reconnect: true });
    await stream.waitFor((e) => e.type === 'ready');
    const load = new Load(server, token, boardId);
    try {
      await until(() => load.created.length >= 5, 'writes succeed before the fault', load);
      await fault(load);
      // A few more writes after the recovery, so the stream is seen to carry on.
      const count = load.created.length;
      await until(() => load.created.length >= count + 5, 'writes succeed after the fault', load);
    } finally {
      await load.stop();
    }
    return { load, stream };
  }

  /** What every fault must keep: the process, the envelope, the writes and the stream. */
  async function assertSurvived(load: Load, stream: FollowedStream): Promise<void> {
    assert.equal(server.proc.exitCode, null, `the service exited:\n${server.log().slice(-3000)}`);
    assert.deepEqual(load.failures, [], 'no request may fail without an answer');
    for (const o of load.outcomes) {
      if (o.status < 300) continue;
      assert.equal(o.status, 503, `only 503 while the database is away: ${JSON.stringify(o)}`);
      assert.equal(o.code, 'unavailable', JSON.stringify(o));
      assert.match(o.retryAfter ?? '', /^[1-9][0-9]*$/, `a 503 says when to retry: ${JSON.stringify(o)}`);
    }
    // Every acknowledged create is stored, and reached the open stream.
    for (const id of load.created) {
      const res = await fetch(`${server.url}/v1/boards/${load.boardId}/nodes/${id}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, `acknowledged node ${id} is stored`);
      await res.body?.cancel();
    }
    const streamed = (id: string) => (e: ReceivedEvent) =>
      e.type === 'node.created' && (e.data.data as { id?: string } | undefined)?.id === id;
    await Promise.all(load.created.map((id) => stream.waitFor(streamed(id), 20_000)));
    stream.close();
  }

  test('PostgreSQL stopped and started again (pg_ctl stop -m fast)', async (t) => {
    let downFor = 0;
    let recovered = 0;
    const { load, stream } = await underLoad(t, async (load) => {
      const downAt = Date.now();
      await cluster.down();
      await sleep(1500);
      await cluster.up();
      const upAt = Date.now();
      downFor = upAt - downAt;
      recovered = await load.writesSucceedAfter(upAt);
    });
    t.diagnostic(`database away ${downFor} ms; first write that succeeded was sent ${recovered} ms after it was back`);
    const unavailable = load.outcomes.filter((o) => o.status === 503).length;
    assert.ok(unavailable > 0, 'requests while the database was away were answered 503');
    await assertSurvived(load, stream);
  });

  test('every connection killed, three times (pg_terminate_backend, as in a failover)', async (t) => {
    let ended = 0;
    const { load, stream } = await underLoad(t, async (load) => {
      for (let i = 0; i < 3; i++) {
        ended += await cluster.terminateSessions();
        await sleep(300);
      }
      await load.writesSucceedAfter(Date.now());
    });
    t.diagnostic(`${ended} sessions ended`);
    assert.ok(ended > 0, 'the service had sessions to end');
    await assertSurvived(load, stream);
  });

  test('Redis stopped and started again: requests are served throughout, and limits count again once it is back', async (t) => {
    const { load, stream } = await underLoad(t, async (load) => {
      await redis.stop();
      const downAt = Date.now();
      await sleep(1500);
      redis = await startRedis(redis.port);
      const upAt = Date.now();
      // While it was away the service served without limits (it fails open: README, REDIS_URL).
      // While it was away the service served without counting (it fails open: README, REDIS_URL).
      const counted = (o: Outcome) => o.remaining < o.limit;
      await until(
        () => load.outcomes.some((o) => o.sentAt > downAt + 500 && o.sentAt < upAt && o.status < 300 && !counted(o)),
        'requests are served without Redis',
        load,
      );
      await until(
        () => load.outcomes.some((o) => o.sentAt > upAt && o.status < 300 && counted(o)),
        'rate limits count again once Redis is back',
        load,
      );
    });
    await assertSurvived(load, stream);
    assert.ok(
      load.outcomes.every((o) => o.status < 300),
      'a Redis outage is no outage of the service',
    );
  });
});
