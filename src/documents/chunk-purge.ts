// Deletes retired chunk sets (a node's replaced or deleted chunks, a failed job's partial ones) in
// the background, a small paced batch per statement, so removing 100,000 chunks never holds the
// one embedded connection for long. Retired chunks are invisible from the moment they are retired;
// this only reclaims their rows. Any process may purge any retired set (deletes are idempotent), so
// several instances need no coordination. Runs at start (leftovers of a crash) and whenever the
// app's code that retires a set kicks it: one purger per app, handed down as `purger` (a
// `PurgeRequests`), so a retirement in one app never wakes another app's purger.
import type { Logger } from '../lib/logger.js';
import type { Db } from '../db/schema.js';
import type { Foreground } from '../jobs/foreground.js';
import { deleteSetChunks } from './chunk-store.js';

/** What code that retires chunk sets needs of the app's purger. */
export interface PurgeRequests {
  /** Asks the purger to look for retired sets now. */
  kick(): void;
}

export class ChunkPurger implements PurgeRequests {
  private running: Promise<void> | undefined;
  private again = false;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly foreground: Foreground,
    private readonly log: Logger,
  ) {}

  readonly name = 'chunk purge';

  start(): void {
    this.kick();
  }

  readonly kick = (): void => {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop()
      .catch((err: unknown) => {
        if (!this.stopping) this.log.warn({ err }, 'chunk purge failed; retried at the next request');
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopping) {
          this.again = false;
          this.kick();
        }
      });
  };

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const set = await this.db
        .selectFrom('chunk_sets')
        .select('id')
        .where('state', '=', 'retired')
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      if (!set) return;
      await deleteSetChunks(this.db, this.foreground, set.id, () => this.stopping);
      if (this.stopping) return;
      await this.db.deleteFrom('chunk_sets').where('id', '=', set.id).where('state', '=', 'retired').execute();
    }
  }
}
