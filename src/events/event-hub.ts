// Wakes this instance's event streams when their board changes. Committed changes are announced
// on `board_events` (announcer.ts) by whichever instance made them; the hub passes each board's
// last sequence number to the streams of that board held here, which read what they have not sent
// yet. Reads are shared: streams that ask for the same events at the same time (a hundred viewers
// of one board, woken by one change) make one query, and each event's JSON is built once for all.
//
// Presence (presence.ts) comes the same way, on `board_presence`: the hub passes it to the board's
// streams here and remembers the latest of each session for a while, for streams that start later.
import type { Db } from '../db/schema.js';
import type { Notifications } from '../db/notifications.js';
import type { BoardEventType } from '../contract/events.js';
import { BOARD_EVENTS_CHANNEL, parseAnnouncement } from './announcer.js';
import { BOARD_PRESENCE_CHANNEL, initialOf, PRESENCE_TTL_MS, unpackPresence } from './presence.js';

/** Sessions remembered per board; beyond it the oldest is forgotten (its next announcement brings it back). */
const MAX_SESSIONS_PER_BOARD = 500;
const MAX_INITIALS = 10_000;

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
  /** Passes on a session's presence (JSON). */
  presence(json: string): void;
  /** Ends the stream (its key was revoked, or the app is closing). */
  end(): void;
}

export class BoardEventHub {
  private readonly boards = new Map<string, Set<Subscriber>>();
  private readonly perUser = new Map<string, number>();
  private readonly reads = new Map<string, Promise<HubEvent[]>>();
  /** The latest presence of each session, by board, for boards with streams here. */
  private readonly sessions = new Map<string, Map<string, { json: string; at: number }>>();
  private readonly initials = new Map<string, string>();

  constructor(
    private readonly db: Db,
    notifications: Notifications,
  ) {
    notifications.on(BOARD_EVENTS_CHANNEL, (payload) => {
      for (const [boardId, seq] of parseAnnouncement(payload)) {
        for (const subscriber of this.boards.get(boardId) ?? []) subscriber.wake(seq);
      }
    });
    notifications.on(BOARD_PRESENCE_CHANNEL, (payload) => this.passPresence(payload));
    notifications.on(API_KEY_REVOKED_CHANNEL, (keyId) => {
      for (const subscriber of this.all()) if (subscriber.keyId === keyId) subscriber.end();
    });
    // Notifications may have been missed while the listening connection was down.
    notifications.onResume(() => {
      for (const subscriber of this.all()) subscriber.wake(Number.POSITIVE_INFINITY);
    });
  }

  /** Open streams of a user on this instance, with those still starting (reserved). */
  streamsOf(userId: string): number {
    return this.perUser.get(userId) ?? 0;
  }

  /**
   * Counts a stream that is starting (its start point is being read) against its user at once, so
   * streams opened together cannot all pass the check; the returned function, called once the
   * stream has subscribed or has given up, gives the place back.
   */
  reserve(userId: string): () => void {
    this.perUser.set(userId, this.streamsOf(userId) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(userId);
    };
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
      if (set.size === 0 && this.boards.get(subscriber.boardId) === set) {
        this.boards.delete(subscriber.boardId);
        this.sessions.delete(subscriber.boardId);
      }
      this.release(subscriber.userId);
    };
  }

  private release(userId: string): void {
    const left = this.streamsOf(userId) - 1;
    if (left > 0) this.perUser.set(userId, left);
    else this.perUser.delete(userId);
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

  /** The presence (JSON) of the sessions heard from lately on the board. */
  presenceOn(boardId: string): string[] {
    const sessions = this.sessions.get(boardId);
    if (!sessions) return [];
    const since = Date.now() - PRESENCE_TTL_MS;
    for (const [id, session] of sessions) if (session.at < since) sessions.delete(id);
    return [...sessions.values()].map((session) => session.json);
  }

  /** The user's initial as presence shows it (looked up once per user). */
  async initialOf(userId: string): Promise<string> {
    let initial = this.initials.get(userId);
    if (initial === undefined) {
      initial = await initialOf(this.db, userId);
      if (this.initials.size >= MAX_INITIALS) this.initials.clear();
      this.initials.set(userId, initial);
    }
    return initial;
  }

  private passPresence(payload: string): void {
    let message: { board_id: string; presence: Parameters<typeof unpackPresence>[0] };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    const subscribers = this.boards.get(message.board_id);
    if (!subscribers) return;
    const json = JSON.stringify(unpackPresence(message.presence));
    const sessions = this.sessions.get(message.board_id) ?? new Map<string, { json: string; at: number }>();
    this.sessions.set(message.board_id, sessions);
    sessions.delete(message.presence.session_id);
    if (!message.presence.left) {
      sessions.set(message.presence.session_id, { json, at: Date.now() });
      if (sessions.size > MAX_SESSIONS_PER_BOARD) sessions.delete(sessions.keys().next().value!);
    }
    for (const subscriber of subscribers) subscriber.presence(json);
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
