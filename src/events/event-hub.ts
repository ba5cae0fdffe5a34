// Wakes this instance's event streams when their board changes. Every committed change notifies
// `board_events` with `<boardId>:<seq>` (record.ts), on whichever instance made it; the hub passes it
// to the streams of that board held here, which read what they have not sent yet. Reads are shared:
// streams that ask for the same events at the same time (a hundred viewers of one board, woken by
// one change) make one query, and each event's JSON is built once for all of them.
import type { Db } from '../db/schema.js';
import type { Notifications } from '../db/notifications.js';
import type { BoardEventType } from '../contract/events.js';
import { BOARD_EVENTS_CHANNEL } from './record.js';

/** The channel a revoked or deleted API key is announced on, with its id (0011-board-events.ts). */
export const API_KEY_REVOKED_CHANNEL = 'api_key_revoked';

export interface HubEvent {
  seq: number;
  type: BoardEventType;
  audience: 'all' | 'owner';
  /** The resource (what a stream checks: a board made private). */
  data: Record<string, unknown>;
  /** The event as the API sends it, JSON. */
  json: string;
}

/** An open stream, as the hub sees it. */
export interface Subscriber {
  readonly boardId: string;
  readonly userId: string;
  readonly keyId: string | undefined;
  /** The board has events up to `seq` (Infinity: unknown, look). */
  wake(seq: number): void;
  /** Ends the stream (its key was revoked, or the app is closing). */
  end(): void;
}

export class BoardEventHub {
  private readonly boards = new Map<string, Set<Subscriber>>();
  private readonly perUser = new Map<string, number>();
  private readonly reads = new Map<string, Promise<HubEvent[]>>();

  constructor(
    private readonly db: Db,
    notifications: Notifications,
  ) {
    notifications.on(BOARD_EVENTS_CHANNEL, (payload) => {
      const at = payload.lastIndexOf(':');
      const seq = Number(payload.slice(at + 1));
      for (const subscriber of this.boards.get(payload.slice(0, at)) ?? []) subscriber.wake(seq);
    });
    notifications.on(API_KEY_REVOKED_CHANNEL, (keyId) => {
      for (const subscriber of this.all()) if (subscriber.keyId === keyId) subscriber.end();
    });
    // Notifications may have been missed while the listening connection was down.
    notifications.onResume(() => {
      for (const subscriber of this.all()) subscriber.wake(Number.POSITIVE_INFINITY);
    });
  }

  /** Open streams of a user on this instance. */
  streamsOf(userId: string): number {
    return this.perUser.get(userId) ?? 0;
  }

  /** Adds a stream; the returned function removes it. */
  subscribe(subscriber: Subscriber): () => void {
    const set = this.boards.get(subscriber.boardId) ?? new Set();
    this.boards.set(subscriber.boardId, set);
    set.add(subscriber);
    this.perUser.set(subscriber.userId, this.streamsOf(subscriber.userId) + 1);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(subscriber);
      if (set.size === 0 && this.boards.get(subscriber.boardId) === set) this.boards.delete(subscriber.boardId);
      const left = this.streamsOf(subscriber.userId) - 1;
      if (left > 0) this.perUser.set(subscriber.userId, left);
      else this.perUser.delete(subscriber.userId);
    };
  }

  /** Ends every stream (the app is closing: open streams would hold its server open). */
  endAll(): void {
    for (const subscriber of [...this.all()]) subscriber.end();
  }

  /** The board's events after `after`, oldest first, at most `limit`: one query for concurrent equal asks. */
  read(boardId: string, after: number, limit: number): Promise<HubEvent[]> {
    const key = `${boardId}:${after}:${limit}`;
    let read = this.reads.get(key);
    if (!read) {
      read = readEvents(this.db, boardId, after, limit).finally(() => this.reads.delete(key));
      this.reads.set(key, read);
    }
    return read;
  }

  private *all(): Iterable<Subscriber> {
    for (const set of this.boards.values()) yield* set;
  }
}

async function readEvents(db: Db, boardId: string, after: number, limit: number): Promise<HubEvent[]> {
  const rows = await db
    .selectFrom('board_events')
    .select(['seq', 'type', 'actor_id', 'audience', 'data', 'created_at'])
    .where('board_id', '=', boardId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((row) => {
    const data = row.data as Record<string, unknown>;
    const event = {
      seq: row.seq,
      type: row.type as BoardEventType,
      board_id: boardId,
      actor_id: row.actor_id,
      created_at: row.created_at,
      data,
    };
    return { seq: row.seq, type: event.type, audience: row.audience, data, json: JSON.stringify(event) };
  });
}
