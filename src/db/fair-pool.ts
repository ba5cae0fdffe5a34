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
//
// Light statements first: a caller doing expensive work (marked `heavy` once it holds one of its
// user's slots of src/lib/heavy-work.ts: a full read, an export, an MCP tool call) starts each new
// statement only when no other request's statement is waiting or running, or after `yieldMs` at
// most. A full read is a statement per page, so another user's read waits for the page in hand,
// not for the heavy user's stream of pages: the two cores (the embedded engine's one thread, the
// service's event loop, the PostgreSQL backends) go to the light request first. The heavy work
// still moves (never starved: at most `yieldMs` per statement) and runs at full speed when alone.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { ApiError } from '../errors.js';
import { FairSlots } from '../lib/fair-slots.js';

/** One request's name at the pool and the connections it holds now. */
export interface CallerScope {
  key: string;
  held: number;
  /** Doing expensive work: its statements let other requests' statements go first. */
  heavy?: boolean;
}

export interface FairPoolOptions {
  /** The pool's connections (its max). */
  connections: number;
  /** Most connections one caller holds at once. */
  perCaller: number;
  /** Longest a statement waits for a connection before it fails with 503. */
  waitMs: number;
  /** Longest a heavy caller's statement waits for other requests' statements to finish. */
  yieldMs: number;
}

export class FairPool implements PostgresPool {
  private readonly scopes = new AsyncLocalStorage<CallerScope>();
  private readonly slots: FairSlots;
  private readonly yieldMs: number;
  /** Statements of callers that are not heavy, waiting for a connection or holding one. */
  private light = 0;
  /** Heavy callers' statements waiting for the light ones to finish. */
  private yielding = new Set<() => void>();
  private waking = false;

  constructor(
    private readonly pool: PostgresPool,
    options: FairPoolOptions,
  ) {
    this.yieldMs = options.yieldMs;
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

  /** Marks the caller of the code running now as doing expensive work (for the rest of its request). */
  markHeavy(): void {
    const scope = this.scopes.getStore();
    if (scope) scope.heavy = true;
  }

  async connect(): Promise<PostgresPoolClient> {
    const scope = this.scopes.getStore();
    if (scope !== undefined && scope.held > 0) return this.hold(scope, await this.pool.connect(), () => {});
    // Work outside a request (the job worker, sweeps) neither yields nor is yielded to.
    const light = scope !== undefined && scope.heavy !== true;
    if (scope?.heavy) await this.lightGone();
    if (light) this.light++;
    let release: () => void = () => {};
    let client: PostgresPoolClient;
    try {
      release = await this.slots.acquire(scope?.key ?? '');
      client = await this.pool.connect();
    } catch (error) {
      release();
      if (light) this.lightDone();
      throw error;
    }
    return this.hold(scope, client, () => {
      release();
      if (light) this.lightDone();
    });
  }

  /** Resolves when no light statement waits or runs, or after `yieldMs`. */
  private lightGone(): Promise<void> {
    if (this.light === 0 || this.yieldMs === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.yielding.delete(go);
        resolve();
      };
      const timer = setTimeout(go, this.yieldMs);
      this.yielding.add(go);
    });
  }

  private lightDone(): void {
    this.light--;
    if (this.light > 0 || this.yielding.size === 0 || this.waking) return;
    // After the light request's own continuation (its answer is serialised in the callbacks that
    // follow its statement), and only if no other light statement has started meanwhile.
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      if (this.light > 0) return;
      for (const go of [...this.yielding]) go();
    });
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
