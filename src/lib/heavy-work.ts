// A user's expensive work, capped so that one user cannot take the instance from the others
// (issue 26, item 5): a board's full read (GET /v1/boards/{id}, the JSON Canvas export), an import, a duplicate, a batch
// and each MCP tool call run holding a slot. One user holds at most `perUser` at once and the
// instance at most `concurrency`; the rest wait in a queue per user, served in turn between users
// (FairSlots), and a request past its user's queue or its wait is refused: 429 rate_limited with
// Retry-After. Built once per app (the app's `heavyWork`); routes ask for it with the route option
// `config: { heavy: true }` (the app factory's hooks), the MCP tools through `guarded`.
import type { HeavyWorkConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { FairSlots, type Release } from './fair-slots.js';

export class HeavyWork {
  private readonly slots: FairSlots;

  /**
   * `onAcquired` runs in the caller's async context as it gets its slot: the app marks the
   * request's database caller heavy there, so its statements let other requests' go first.
   */
  constructor(
    config: HeavyWorkConfig,
    private readonly onAcquired: () => void = () => {},
  ) {
    const queueFull = config.queuePerUser === 0 ? 'one' : `${config.perUser + config.queuePerUser}`;
    this.slots = new FairSlots({
      capacity: config.concurrency,
      perKey: Math.min(config.perUser, config.concurrency),
      maxQueuedPerKey: config.queuePerUser,
      maxWaitMs: config.maxWaitMs,
      refuse: (reason) =>
        new ApiError(
          'rate_limited',
          reason === 'queue_full'
            ? `Too many expensive requests of yours at once (full reads, imports, duplicates, batches, MCP tool calls): at most ${queueFull} run or wait; try again when one has finished`
            : `Your expensive request waited ${Math.round(config.maxWaitMs / 1000)} s behind your others; try again when they have finished`,
          { 'Retry-After': '1' },
        ),
    });
  }

  /** Waits for a slot of `userId`'s; throws 429 when the user's queue is full or the wait too long. */
  async acquire(userId: string): Promise<Release> {
    const release = await this.slots.acquire(userId);
    this.onAcquired();
    return release;
  }

  /** Runs `work` holding a slot of `userId`'s. */
  async run<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(userId);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Slots held now (by `userId`, or in all). */
  inUse(userId?: string): number {
    return this.slots.inUse(userId);
  }

  /** Requests waiting now (of `userId`, or in all). */
  queued(userId?: string): number {
    return this.slots.queued(userId);
  }
}
