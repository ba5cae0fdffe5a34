// Announces committed board changes to the event streams of every instance on the database: a
// notification on `board_events` whose payload lists `<boardId>:<seq>` entries, comma-separated
// (event-hub.ts reads them). The instance that commits a change sends it after the commit, at most
// once per ANNOUNCE_INTERVAL_MS for everything committed meanwhile: the first change after a quiet
// spell goes out at once, and a busy instance sends one notification per interval instead of one
// per write. (A notification sent inside each writing transaction woke every listening connection
// once per write; see 0015-announce-after-commit.ts.)
//
// An announcement that cannot be sent (the database unreachable, the process killed right after a
// commit) is not retried: the change is in the change log, and the streams' access recheck, once a
// minute (event-stream.ts), reads what a lost wake-up left behind.
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

/** The channel of the announcements; its payload is `<boardId>:<seq>[,<boardId>:<seq>…]`. */
export const BOARD_EVENTS_CHANNEL = 'board_events';

/** At most one announcement per this many milliseconds from one instance (database handle). */
export const ANNOUNCE_INTERVAL_MS = 10;

/** PostgreSQL refuses a notification payload of 8,000 bytes or more: longer lists go as several. */
const MAX_PAYLOAD_BYTES = 7_000;

class Announcer {
  /** The last committed sequence number of each board not yet announced. */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private lastSent = 0;

  constructor(private readonly db: Db) {}

  add(committed: ReadonlyMap<string, number>): void {
    for (const [boardId, seq] of committed) this.pending.set(boardId, Math.max(seq, this.pending.get(boardId) ?? 0));
    this.schedule();
  }

  /** Sends what is pending now, and waits for it (the app is closing). */
  async flush(): Promise<void> {
    // A send in flight schedules the next one when it ends: wait for it, then take that one's place.
    await this.sending;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size > 0) await this.send();
  }

  private schedule(): void {
    if (this.timer || this.sending || this.pending.size === 0) return;
    const wait = this.lastSent + ANNOUNCE_INTERVAL_MS - Date.now();
    if (wait <= 0) void this.send();
    else
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.send();
      }, wait);
  }

  private send(): Promise<void> {
    const payloads = joinPayloads([...this.pending].map(([boardId, seq]) => `${boardId}:${seq}`));
    this.pending.clear();
    this.lastSent = Date.now();
    this.sending = sql`SELECT pg_notify(${BOARD_EVENTS_CHANNEL}, payload) FROM unnest(${payloads}::text[]) AS payload`
      .execute(this.db)
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.sending = undefined;
        this.schedule();
      });
    return this.sending;
  }
}

function joinPayloads(entries: string[]): string[] {
  const payloads: string[] = [];
  let current = '';
  for (const entry of entries) {
    if (current && current.length + 1 + entry.length > MAX_PAYLOAD_BYTES) {
      payloads.push(current);
      current = '';
    }
    current = current ? `${current},${entry}` : entry;
  }
  if (current) payloads.push(current);
  return payloads;
}

const announcers = new WeakMap<Db, Announcer>();

/** The announcer of a database handle, made at its first use: one per handle, as its pool is. */
export function announcerOf(db: Db): Pick<Announcer, 'add' | 'flush'> {
  let announcer = announcers.get(db);
  if (!announcer) {
    announcer = new Announcer(db);
    announcers.set(db, announcer);
  }
  return announcer;
}

/** Reads an announcement's payload: each board with the last sequence number it announces. */
export function parseAnnouncement(payload: string): Array<[boardId: string, seq: number]> {
  return payload.split(',').map((entry) => {
    const at = entry.lastIndexOf(':');
    return [entry.slice(0, at), Number(entry.slice(at + 1))];
  });
}
