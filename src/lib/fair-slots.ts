// Slots shared fairly between callers: at most `capacity` held at once, at most `perKey` by one
// caller (a user), and the rest waiting in a queue per caller. A freed slot goes to the waiting
// caller served longest ago (round-robin over the callers that wait, a newcomer first), not to
// whoever asked first: a caller with many requests waiting gets one slot per turn like a caller
// with one, and a caller that asks now and then waits for no more than the slots in use. A caller's queue is bounded in
// length and in time; past either, `refuse` makes the error to throw (src/errors.ts's ApiError).
//
// Used for the database connections (src/db/fair-pool.ts) and for a user's expensive work
// (the app's `heavyWork`: full reads, MCP tool calls, batches).

/** Frees the slot; calling it again does nothing. */
export type Release = () => void;

export interface FairSlotsOptions {
  /** Most slots held at once over all callers. */
  capacity: number;
  /** Most slots one caller holds at once. */
  perKey: number;
  /** Most requests one caller may have waiting; one more is refused at once. Unbounded when absent. */
  maxQueuedPerKey?: number;
  /** Longest a request waits for its slot before it is refused. Unbounded when absent. */
  maxWaitMs?: number;
  /** The error of a refused request: its caller's queue was full, or it waited `maxWaitMs`. */
  refuse(reason: 'queue_full' | 'timeout', key: string): Error;
}

interface Waiter {
  grant(): void;
  timer?: NodeJS.Timeout;
}

interface Caller {
  held: number;
  waiting: Waiter[];
  /** When it was last given a slot (a count of grants); 0: not since it was last idle. */
  served: number;
}

export class FairSlots {
  private readonly callers = new Map<string, Caller>();
  /** Callers with requests waiting. */
  private readonly turns: string[] = [];
  private held = 0;
  private grants = 0;

  constructor(private readonly options: FairSlotsOptions) {
    if (options.capacity < 1 || options.perKey < 1) throw new Error('FairSlots needs a capacity and a per-caller share of at least 1');
  }

  /** Slots held now (over all callers, or by `key`). */
  inUse(key?: string): number {
    return key === undefined ? this.held : (this.callers.get(key)?.held ?? 0);
  }

  /** Requests waiting now (over all callers, or of `key`). */
  queued(key?: string): number {
    if (key !== undefined) return this.callers.get(key)?.waiting.length ?? 0;
    let n = 0;
    for (const caller of this.callers.values()) n += caller.waiting.length;
    return n;
  }

  /** Waits for a slot for `key`; resolves to its release. */
  acquire(key: string): Promise<Release> {
    const caller = this.callerOf(key);
    if (caller.waiting.length === 0 && this.held < this.options.capacity && caller.held < this.options.perKey)
      return Promise.resolve(this.take(key, caller));
    const { maxQueuedPerKey, maxWaitMs } = this.options;
    if (maxQueuedPerKey !== undefined && caller.waiting.length >= maxQueuedPerKey) {
      this.forget(key, caller);
      return Promise.reject(this.options.refuse('queue_full', key));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { grant: () => resolve(this.take(key, caller)) };
      if (maxWaitMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const at = caller.waiting.indexOf(waiter);
          if (at >= 0) caller.waiting.splice(at, 1);
          const turn = this.turns.indexOf(key);
          if (caller.waiting.length === 0 && turn >= 0) this.turns.splice(turn, 1);
          this.forget(key, caller);
          reject(this.options.refuse('timeout', key));
        }, maxWaitMs);
        waiter.timer.unref?.();
      }
      if (caller.waiting.length === 0) this.turns.push(key);
      caller.waiting.push(waiter);
    });
  }

  private callerOf(key: string): Caller {
    let caller = this.callers.get(key);
    if (caller === undefined) {
      caller = { held: 0, waiting: [], served: 0 };
      this.callers.set(key, caller);
    }
    return caller;
  }

  /** Drops a caller that holds and awaits nothing (the map stays as large as the callers active). */
  private forget(key: string, caller: Caller): void {
    if (caller.held === 0 && caller.waiting.length === 0) this.callers.delete(key);
  }

  private take(key: string, caller: Caller): Release {
    this.held++;
    caller.held++;
    caller.served = ++this.grants;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      caller.held--;
      this.forget(key, caller);
      this.dispatch();
    };
  }

  /** Hands free slots to waiting callers, each time to the one served longest ago that is within its share. */
  private dispatch(): void {
    while (this.held < this.options.capacity) {
      let next = -1;
      let nextServed = Number.POSITIVE_INFINITY;
      for (let i = 0; i < this.turns.length; i++) {
        const caller = this.callers.get(this.turns[i]!);
        if (caller === undefined || caller.waiting.length === 0 || caller.held >= this.options.perKey) continue;
        if (caller.served < nextServed) {
          next = i;
          nextServed = caller.served;
        }
      }
      if (next < 0) return;
      const key = this.turns[next]!;
      const caller = this.callers.get(key)!;
      const waiter = caller.waiting.shift()!;
      if (waiter.timer) clearTimeout(waiter.timer);
      if (caller.waiting.length === 0) this.turns.splice(next, 1);
      waiter.grant();
    }
  }
}
