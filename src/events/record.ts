// Recording a board's changes in its change log (0011-board-events.ts). Every write to a board's
// content or settings calls recordChanges inside its own transaction, after the change: the board
// row's event_seq numbers the events, and pg_notify (delivered by PostgreSQL only when the
// transaction commits, and never for one that rolls back) wakes the event streams of every
// instance on the database (event-hub.ts).
//
// The same call queues the events for the webhooks that want them (0012-webhooks.ts,
// src/webhooks/): a delivery commits with its change or not at all, so a process that dies between
// the commit and the sending loses nothing, and a change stays one round trip. The work is the
// database function record_board_changes (0014-record-function.ts), whose plans PostgreSQL keeps,
// and which notifies the two channels below by name.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { now } from '../lib/ids.js';
import type { BoardEventType } from '../contract/events.js';
import { assertTotals, type BoardBounds, type BoardTotals } from '../boards/board-bounds.js';

/** The channel of the notification each committed change sends; its payload is `<boardId>:<seq>`. */
export const BOARD_EVENTS_CHANNEL = 'board_events';
/** The channel a change that queued webhook deliveries notifies (empty payload): it wakes the senders. */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/** What recording answers: the last event's number, and the board's totals after the write (board-bounds.ts). */
export interface Recorded {
  seq: number;
  totals: BoardTotals;
}

export interface BoardChange {
  type: BoardEventType;
  /** The resource as the API answers it; for a deletion `{ id }`. */
  data: unknown;
  /** Who may see the event: everyone who may read the board (default), or only its owner. */
  audience?: 'all' | 'owner';
}

/**
 * Records `changes` (in order) as the board's next events, in one statement, and returns the
 * sequence number of the last with the board's totals after the write, so that a write checks its
 * bounds without another round trip; undefined when the board is gone. Call it inside the writing
 * transaction, which has locked the board row (content-write.ts) or holds it by updating it.
 * `touchBoard`: a content write, whose lock left the board's updated_at for this call to set to `at`.
 *
 * Each event is queued for every enabled webhook that wants its type and names its board (or, naming
 * none, belongs to the board's owner) and whose owner may read it: the board's owner, or anyone
 * while the board is public, and events meant for the owner (assets) only to the owner. The body
 * is the Standard Webhooks envelope around the event as the event stream sends it, built once by
 * the function so that every attempt sends (and signs) the same bytes.
 */
export async function recordChanges(
  trx: Executor,
  boardId: string,
  actorId: string | null,
  changes: readonly BoardChange[],
  at: Date = now(),
  touchBoard = false,
): Promise<Recorded | undefined> {
  if (changes.length === 0) return undefined;
  const { rows } = await sql<{ last_seq: number | null; total_nodes: number; total_edges: number; total_bytes: number }>`
    SELECT * FROM record_board_changes(${boardId}, ${actorId}, ${changes.map((c) => c.type)}::text[],
      ${changes.map((c) => c.audience ?? 'all')}::text[], ${changes.map((c) => JSON.stringify(c.data))}::text[],
      ${at}, ${at.toISOString()}, ${JSON.stringify(actorId)}, ${touchBoard})`.execute(trx);
  const row = rows[0];
  if (!row || row.last_seq === null) return undefined;
  return { seq: row.last_seq, totals: { node_count: row.total_nodes, edge_count: row.total_edges, data_bytes: row.total_bytes } };
}

/**
 * Records a content write's changes and checks the board's bounds against the totals the recording
 * answers: one round trip for both. `before`: the totals when the write locked the board.
 */
export async function recordWithinBounds(
  trx: Executor,
  boardId: string,
  actorId: string,
  changes: readonly BoardChange[],
  at: Date,
  bounds: BoardBounds,
  before: BoardTotals,
): Promise<void> {
  const recorded = await recordChanges(trx, boardId, actorId, changes, at, true);
  if (recorded) assertTotals(before, recorded.totals, bounds);
}
