// The database connections shared fairly between callers (issue 26: "one caller's calls never hold
// more than a fair share of the database connections"). Kysely asks this pool for a connection per
// statement (or per transaction); the pool answers in turn per caller (round-robin, FairSlots) and
// lets one caller hold at most `perCaller` connections at once. On the embedded database there is
// one connection, so one user's many statements no longer queue ahead of everyone else's: another
// caller's statement goes next.
//
// Who the caller is comes from the request: the app factory runs each request inside `enter`
// (AsyncLocalStorage) and names its user once authenticated. Work outside a request (the job
// worker, sweeps) is the caller ''. A caller that already holds a connection (a statement on `db`
// inside its own transaction, or statements started side by side) is never made to wait on its own
// share: it goes straight to the pool, as before, so no request can deadlock on itself.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { ApiError } from '../errors.js';
import { FairSlots } from '../lib/fair-slots.js';

/** One request's name at the pool and the connections it holds now. */
export interface CallerScope {
  key: string;
  held: number;
}

export interface FairPoolOptions {
  /** The pool's connections (its max). */
  connections: number;
  /** Most connections one caller holds at once. */
  perCaller: number;
  /** Longest a statement waits for a connection before it fails with 503. */
  waitMs: number;
}

export class FairPool implements PostgresPool {
  private readonly scopes = new AsyncLocalStorage<CallerScope>();
  private readonly slots: FairSlots;

  constructor(
    private readonly pool: PostgresPool,
    options: FairPoolOptions,
  ) {
    this.slots = new FairSlots({
      capacity: options.connections,
      perKey: Math.min(options.perCaller, options.connections),
      maxWaitMs: options.waitMs,
      refuse: () => new ApiError('unavailable', 'The database is busy; try again shortly', { 'Retry-After': '1' }),
    });
  }

  /** Runs `work` (and everything it starts) as the caller `scope`; `scope.key` may be renamed later. */
  enter<T>(scope: CallerScope, work: () => T): T {
    return this.scopes.run(scope, work);
  }

  /** The caller of the code running now, if it runs inside `enter`. */
  current(): CallerScope | undefined {
    return this.scopes.getStore();
  }

  async connect(): Promise<PostgresPoolClient> {
    const scope = this.scopes.getStore();
    if (scope !== undefined && scope.held > 0) return this.hold(scope, await this.pool.connect(), () => {});
    const release = await this.slots.acquire(scope?.key ?? '');
    let client: PostgresPoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      release();
      throw error;
    }
    return this.hold(scope, client, release);
  }

  private hold(scope: CallerScope | undefined, client: PostgresPoolClient, release: () => void): PostgresPoolClient {
    if (scope) scope.held++;
    let released = false;
    return {
      query: client.query.bind(client) as PostgresPoolClient['query'],
      release: () => {
        if (released) return;
        released = true;
        if (scope) scope.held--;
        client.release();
        release();
      },
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
