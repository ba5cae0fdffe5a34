// Recording a board's changes in its change log (0011-board-events.ts). Every write to a board's
// content or settings calls recordChanges inside its own transaction, after the change: the board
// row's event_seq numbers the events, and pg_notify (delivered by PostgreSQL only when the
// transaction commits, and never for one that rolls back) wakes the event streams of every
// instance on the database (event-hub.ts).
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { now } from '../lib/ids.js';
import type { BoardEventType } from '../contract/events.js';

/** The channel of the notification each committed change sends; its payload is `<boardId>:<seq>`. */
export const BOARD_EVENTS_CHANNEL = 'board_events';

export interface BoardChange {
  type: BoardEventType;
  /** The resource as the API answers it; for a deletion `{ id }`. */
  data: unknown;
  /** Who may see the event: everyone who may read the board (default), or only its owner. */
  audience?: 'all' | 'owner';
}

/**
 * Records `changes` (in order) as the board's next events, in one statement, and returns the
 * sequence number of the last; undefined when the board is gone. Call it inside the writing
 * transaction, which has locked the board row (content-write.ts) or holds it by updating it.
 */
export async function recordChanges(
  trx: Executor,
  boardId: string,
  actorId: string | null,
  changes: readonly BoardChange[],
  at: Date = now(),
): Promise<number | undefined> {
  if (changes.length === 0) return undefined;
  if (changes.length === 1) return recordOne(trx, boardId, actorId, changes[0]!, at);
  const n = changes.length;
  const { rows } = await sql<{ seq: number }>`
    WITH bumped AS (
      UPDATE boards SET event_seq = event_seq + ${n} WHERE id = ${boardId} RETURNING event_seq
    ), recorded AS (
      INSERT INTO board_events (board_id, seq, type, actor_id, audience, data, created_at)
      SELECT ${boardId}, bumped.event_seq - ${n} + c.ord, c.type, ${actorId}, c.audience, c.data, ${at}
      FROM bumped, unnest(${changes.map((c) => c.type)}::text[], ${changes.map((c) => c.audience ?? 'all')}::text[],
                          ${changes.map((c) => JSON.stringify(c.data))}::jsonb[]) WITH ORDINALITY AS c(type, audience, data, ord)
    )
    SELECT event_seq AS seq, pg_notify(${BOARD_EVENTS_CHANNEL}, ${boardId} || ':' || event_seq) FROM bumped`.execute(trx);
  return rows[0]?.seq;
}

/**
 * The same for one change, the case of nearly every write, in a plainer statement: no arrays to
 * build, send and unnest, and the event's JSON sent as one jsonb parameter. Measured on a node
 * create's transaction alone it gave back about 40% of what recording cost there; through the whole
 * HTTP request the difference was lost in the noise of a loaded machine (BENCHMARKS.md, "Board events").
 */
async function recordOne(
  trx: Executor,
  boardId: string,
  actorId: string | null,
  change: BoardChange,
  at: Date,
): Promise<number | undefined> {
  const { rows } = await sql<{ seq: number }>`
    WITH bumped AS (
      UPDATE boards SET event_seq = event_seq + 1 WHERE id = ${boardId} RETURNING event_seq
    )
    INSERT INTO board_events (board_id, seq, type, actor_id, audience, data, created_at)
    SELECT ${boardId}, event_seq, ${change.type}, ${actorId}, ${change.audience ?? 'all'}, ${JSON.stringify(change.data)}, ${at} FROM bumped
    RETURNING seq, pg_notify(${BOARD_EVENTS_CHANNEL}, ${boardId} || ':' || seq)`.execute(trx);
  return rows[0]?.seq;
}
