// Reading a board's change log: where a reader starts (resuming after a sequence number, or told
// to reload when that point is no longer kept), and the polling form of the event stream.
import type { Principal } from '../auth/principal.js';
import { findVisibleBoard, isOwner, type BoardRow } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import type { BoardEvent, BoardEventPage } from '../contract/events.js';
import type { BoardEventHub, HubEvent } from './event-hub.js';

export interface StartPoint {
  board: BoardRow;
  /** The sequence number the reader continues after. */
  from: number;
  /** The asked-for point is older than the events kept, or ahead of the board: reload. */
  reset: boolean;
  latest: number;
}

/** Resolves `after` (undefined: from now) for a caller who may read the board; 404 otherwise. */
export async function startPoint(db: Db, principal: Principal, boardId: string, after: number | undefined): Promise<StartPoint> {
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

/** Whether a reader of this board receives the event: only the owner gets owner-only ones. */
export const receives = (event: HubEvent, board: BoardRow, principal: Principal): boolean =>
  event.audience === 'all' || isOwner(board, principal);

/** The polling form: the events after `after` the caller may see, a page at a time. */
export async function listEvents(
  hub: BoardEventHub,
  db: Db,
  principal: Principal,
  boardId: string,
  after: number | undefined,
  limit: number,
): Promise<BoardEventPage> {
  const start = await startPoint(db, principal, boardId, after ?? 0);
  const read = await hub.read(boardId, start.from, limit + 1);
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
