// Reading a board's change log: where a reader starts (resuming after a sequence number, or told
// to reload when that point is no longer kept), the polling form of the event stream, the stream,
// and presence on a board.
import type { Principal } from '../auth/principal.js';
import type { Presence, PresenceBody } from '../contract/presence.js';
import { ApiError } from '../errors.js';
import type { SseWriter } from '../lib/sse.js';
import { BoardEventStream, receives } from './event-stream.js';
import { announcePresence, sweepPresence } from './presence.js';
import { findVisibleBoard, type SeenBoard } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import type { BoardEvent, BoardEventPage } from '../contract/events.js';
import type { BoardEventHub } from './event-hub.js';

export interface StartPoint {
  board: SeenBoard;
  /** The sequence number the reader continues after. */
  from: number;
  /** The asked-for point is older than the events kept, or ahead of the board: reload. */
  reset: boolean;
  latest: number;
}

/** What the event service is built with, once per app (src/modules/services.ts). */
export interface BoardEventDeps {
  db: Db;
  /** The app's event streams, woken by the database's notifications. */
  hub: BoardEventHub;
  /** EVENT_STREAMS_PER_USER: a user's open streams at most. */
  streamsPerUser: number;
  /** How often an open stream checks that its reader may still read the board. */
  recheckMs: number;
}

/** The app's board events and presence. */
export class BoardEventService {
  constructor(private readonly deps: BoardEventDeps) {}

  /** Resolves `after` (undefined: from now) for a caller who may read the board; 404 otherwise. */
  async startPoint(principal: Principal, boardId: string, after: number | undefined): Promise<StartPoint> {
    const { db } = this.deps;
    const board = await findVisibleBoard(db, principal, boardId);
    const latest = board.event_seq;
    if (after === undefined || after === latest) return { board, from: latest, reset: false, latest };
    let reset = after > latest;
    if (!reset) {
      const oldest = await db
        .selectFrom('board_events')
        .select((eb) => eb.fn.min('seq').as('seq'))
        .where('board_id', '=', boardId)
        .executeTakeFirst();
      // Events after `after` must all be kept: the first kept one is after + 1 or earlier.
      reset = oldest?.seq == null || Number(oldest.seq) > after + 1;
    }
    return { board, from: reset ? latest : after, reset, latest };
  }

  /** The polling form: the events after `after` the caller may see, a page at a time. */
  async list(principal: Principal, boardId: string, after: number | undefined, limit: number): Promise<BoardEventPage> {
    const start = await this.startPoint(principal, boardId, after ?? 0);
    const read = await this.deps.hub.read(boardId, start.from, limit + 1);
    const page = read.slice(0, limit);
    const last = page.at(-1)?.seq;
    return {
      object: 'list',
      data: page.filter((event) => receives(event, start.board, principal)).map((event) => JSON.parse(event.json) as BoardEvent),
      has_more: read.length > limit,
      cursor: last === undefined ? null : String(last),
      latest_seq: start.latest,
      reset: start.reset,
    };
  }

  /** 429 when the caller already has EVENT_STREAMS_PER_USER streams open. */
  assertStreamRoom(principal: Principal): void {
    const { hub, streamsPerUser } = this.deps;
    if (hub.streamsOf(principal.userId) >= streamsPerUser) {
      throw new ApiError('rate_limited', `At most ${streamsPerUser} event streams may be open at once; close one first`);
    }
  }

  /** Takes one of the caller's places for a stream before the first await; the returned function gives it back once the stream holds its own. */
  reserveStream(principal: Principal): () => void {
    return this.deps.hub.reserve(principal.userId);
  }

  /** A stream of the board's changes from the start point, written to `sse` once started. */
  stream(principal: Principal, start: StartPoint, sse: SseWriter): BoardEventStream {
    const { hub, db, recheckMs } = this.deps;
    return new BoardEventStream(hub, db, principal, start.board, start.from, sse, { recheckMs });
  }

  /** Announces a session's presence on a board the caller may read (presence.ts). */
  async announce(principal: Principal, boardId: string, input: PresenceBody): Promise<Presence> {
    await findVisibleBoard(this.deps.db, principal, boardId);
    return this.send(principal, boardId, input);
  }

  /** Ends one of the caller's sessions on a board they may read. */
  async leave(principal: Principal, boardId: string, sessionId: string): Promise<Presence> {
    await findVisibleBoard(this.deps.db, principal, boardId);
    return this.endSession(principal, boardId, sessionId);
  }

  /** Ends the session of a stream that closed (its board was readable when the stream opened). */
  endSession(principal: Principal, boardId: string, sessionId: string): Promise<Presence> {
    return this.send(principal, boardId, { session_id: sessionId, left: true });
  }

  /** Forgets the sessions gone quiet (the hourly sweep). */
  sweepPresence(): Promise<void> {
    return sweepPresence(this.deps.db);
  }

  private async send(principal: Principal, boardId: string, input: PresenceBody & { left?: boolean }): Promise<Presence> {
    return announcePresence(this.deps.db, principal, boardId, input, await this.deps.hub.initialOf(principal.userId));
  }
}
