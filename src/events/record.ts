// Recording a board's changes in its change log (0011-board-events.ts). Every write to a board's
// content or settings runs as a changeTransaction and calls recordChanges inside it, after the
// change: the board row's event_seq numbers the events. When the transaction commits, the changes
// are announced to the event streams of every instance on the database (announcer.ts); a write
// that rolls back announces nothing.
//
// The same call queues the events for the webhooks that want them (0012-webhooks.ts,
// src/webhooks/): a delivery commits with its change or not at all, so a process that dies between
// the commit and the sending loses nothing, and a change stays one round trip. The work is the
// database function record_board_changes (0014-record-function.ts, 0015-announce-after-commit.ts),
// whose plans PostgreSQL keeps, and which wakes the webhook senders on the channel below when it
// queued a delivery.
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../db/schema.js';
import { now } from '../lib/ids.js';
import { assertTotals, type BoardTotals } from '../access/board-bounds.js';
import { assertStorageQuota, ownerStoredBytesOf } from '../access/user-quota.js';
import { announcerOf } from './announcer.js';
import { type BoardChange, type CommittedChanges, notePending, tellCommitted } from './committed.js';

export type { BoardChange };
import type { BoardBounds } from '../config.js';

/** The channel a change that queued webhook deliveries notifies (empty payload): it wakes the senders. */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/**
 * What recording answers: the last event's number, the board's totals after the write
 * (board-bounds.ts), and the bytes its owner stores after the write (user-quota.ts).
 */
export interface Recorded {
  seq: number;
  totals: BoardTotals;
  ownerStoredBytes: number;
}

/** What each open changeTransaction has recorded: the last sequence number per board. */
const recorded = new WeakMap<Transaction<Database>, Map<string, number>>();
/** And the changes themselves, per board in order (committed.ts). */
const recordedChanges = new WeakMap<Transaction<Database>, Map<string, CommittedChanges[]>>();
/** And what notes a board's changes pending until the transaction has ended (committed.ts). */
const pendingOf = new WeakMap<Transaction<Database>, (boardId: string) => void>();

/**
 * Runs `write` in a transaction in which recordChanges may be called, and announces the changes it
 * recorded once it has committed.
 */
export async function changeTransaction<T>(db: Db, write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const boards = new Map<string, number>();
  const changes = new Map<string, CommittedChanges[]>();
  let end: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  try {
    const result = await db.transaction().execute((trx) => {
      recorded.set(trx, boards);
      recordedChanges.set(trx, changes);
      pendingOf.set(trx, (boardId) => notePending(db, boardId, ended));
      return write(trx);
    });
    if (boards.size > 0) {
      tellCommitted(db, changes);
      announcerOf(db).add(boards);
    }
    return result;
  } finally {
    end();
  }
}

/**
 * Records `changes` (in order) as the board's next events, in one statement, and returns the
 * sequence number of the last with the board's totals after the write, so that a write checks its
 * bounds without another round trip; undefined when the board is gone. Call it inside the writing
 * changeTransaction, which has locked the board row (content-write.ts) or holds it by updating it.
 * `touchBoard`: a content write, whose lock left the board's updated_at for this call to set to `at`.
 *
 * Each event is queued for every enabled webhook that wants its type and names its board (or, naming
 * none, belongs to the board's owner) and whose owner may read it: the board's owner, or anyone
 * while the board is public, and events meant for the owner (assets) only to the owner. The body
 * is the Standard Webhooks envelope around the event as the event stream sends it, built once by
 * the function so that every attempt sends (and signs) the same bytes.
 */
export async function recordChanges(
  trx: Transaction<Database>,
  boardId: string,
  actorId: string | null,
  changes: readonly BoardChange[],
  at: Date = now(),
  touchBoard = false,
): Promise<Recorded | undefined> {
  if (changes.length === 0) return undefined;
  const boards = recorded.get(trx);
  if (!boards) throw new Error('recordChanges runs inside a changeTransaction, which announces the changes once they commit');
  // The owner's stored bytes in the same round trip: the statement's snapshot, taken after the
  // write's own statements, sees the totals their triggers left on the owner's row (0019-user-usage.ts).
  const { rows } = await sql<{
    last_seq: number | null;
    total_nodes: number;
    total_edges: number;
    total_bytes: number;
    owner_stored_bytes: number | null;
  }>`
    SELECT r.*, ${ownerStoredBytesOf(boardId)} AS owner_stored_bytes
    FROM record_board_changes(${boardId}, ${actorId}, ${changes.map((c) => c.type)}::text[],
      ${changes.map((c) => c.audience ?? 'all')}::text[], ${changes.map((c) => JSON.stringify(c.data))}::text[],
      ${at}, ${at.toISOString()}, ${JSON.stringify(actorId)}, ${touchBoard}) r`.execute(trx);
  const row = rows[0];
  if (!row || row.last_seq === null) return undefined;
  if (!boards.has(boardId)) pendingOf.get(trx)!(boardId);
  boards.set(boardId, row.last_seq);
  const committed = recordedChanges.get(trx)!;
  committed.set(boardId, [...(committed.get(boardId) ?? []), { first: row.last_seq - changes.length + 1, changes: [...changes] }]);
  return {
    seq: row.last_seq,
    totals: { node_count: row.total_nodes, edge_count: row.total_edges, data_bytes: row.total_bytes },
    ownerStoredBytes: row.owner_stored_bytes ?? 0,
  };
}

/**
 * Records a content write's changes and checks the board's bounds against the totals the recording
 * answers: one round trip for both. `before`: the totals when the write locked the board. A write
 * that added data is checked against its owner's stored-bytes quota too (user-quota.ts), with the
 * owner's bytes the recording answered: only a write past the quota reads them again, to refuse it.
 */
export async function recordWithinBounds(
  trx: Transaction<Database>,
  boardId: string,
  actorId: string,
  changes: readonly BoardChange[],
  at: Date,
  bounds: BoardBounds,
  before: BoardTotals,
): Promise<void> {
  const recorded = await recordChanges(trx, boardId, actorId, changes, at, true);
  if (!recorded) return;
  assertTotals(before, recorded.totals, bounds);
  if (recorded.totals.data_bytes > before.data_bytes && recorded.ownerStoredBytes > bounds.owner.maxStoredBytes)
    await assertStorageQuota(trx, { boardId }, bounds.owner);
}
