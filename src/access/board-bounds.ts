// A board's bounds: at most BOARD_MAX_NODES nodes, BOARD_MAX_EDGES edges and BOARD_MAX_DATA_BYTES
// bytes of node and edge data (the length of their JSON text). They keep the full board read
// (GET /v1/boards/{id} with flow_state, which sends every node and edge at once) within a known
// size. The totals live on the board row (0010-board-totals.ts); every write that adds to a board
// checks them after its change, in its own transaction and behind the board lock, so two
// concurrent writes cannot both slip past a bound, and a refused write leaves nothing behind.
// Asset files have their own bound, BOARD_MAX_ASSET_BYTES, checked as an upload is completed.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { conflict } from '../errors.js';
import type { BoardBounds } from '../config.js';
import { assertStorageRoom } from './user-quota.js';

export interface BoardTotals {
  node_count: number;
  edge_count: number;
  data_bytes: number;
}

/** The totals of a new, empty board. */
const NO_TOTALS: BoardTotals = { node_count: 0, edge_count: 0, data_bytes: 0 };

/**
 * Refuses the write (409 conflict, nothing written once the transaction rolls back) when a total is
 * over its bound and the write made it grow; `before` are the totals when the board was locked
 * (none for a new board). A board over a bound lowered since stays usable: shrinking it is allowed.
 */
export async function assertWithinBounds(
  trx: Executor,
  boardId: string,
  bounds: BoardBounds,
  before: BoardTotals = NO_TOTALS,
): Promise<void> {
  const after = await trx
    .selectFrom('boards')
    .select(['node_count', 'edge_count', 'data_bytes'])
    .where('id', '=', boardId)
    .executeTakeFirstOrThrow();
  assertTotals(before, after, bounds);
}

/** The same check on totals already read: those the recording of the write's events answers (record.ts). */
export function assertTotals(before: BoardTotals, after: BoardTotals, bounds: BoardBounds): void {
  for (const [what, limit, key] of checks(bounds)) {
    if (after[key] > limit && after[key] > before[key]) {
      throw conflict(`A board may hold at most ${limit} ${what}; this board has ${before[key]} and this write would make it ${after[key]}`);
    }
  }
}

/** Refuses to copy a board over a bound (one lowered since it was filled) before any row is copied. */
export function assertCopyFits(original: BoardTotals, bounds: BoardBounds): void {
  for (const [what, limit, key] of checks(bounds)) {
    if (original[key] > limit)
      throw conflict(`A board may hold at most ${limit} ${what}; this board has ${original[key]}, too many to copy`);
  }
}

const checks = (bounds: BoardBounds) =>
  [
    ['nodes', bounds.maxNodes, 'node_count'],
    ['edges', bounds.maxEdges, 'edge_count'],
    ['bytes of node and edge data', bounds.maxDataBytes, 'data_bytes'],
  ] as const;

/**
 * Refuses an asset of `adding` bytes that would take the board's stored files past their bound, or
 * its owner past their stored-bytes quota (409 conflict); without `adding` (before the file is
 * read), refuses when the files or the quota are already full. Call inside the transaction that completes the upload: the board row is locked here, so two
 * uploads finishing at once are counted one after the other.
 */
export async function assertAssetRoom(trx: Executor, boardId: string, bounds: BoardBounds, adding?: number): Promise<void> {
  const { rows } = await sql<{ owner_id: string }>`SELECT owner_id FROM boards WHERE id = ${boardId} FOR NO KEY UPDATE`.execute(trx);
  // The owner's stored bytes too (user-quota.ts), their row locked after the board's, as writes do.
  if (rows[0]) await assertStorageRoom(trx, rows[0].owner_id, bounds.owner, adding);
  const { stored } = await trx
    .selectFrom('assets')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('stored'))
    .where('board_id', '=', boardId)
    .where('size', 'is not', null)
    .executeTakeFirstOrThrow();
  const limit = bounds.maxAssetBytes;
  if (adding === undefined) {
    if (Number(stored) >= limit) {
      throw conflict(`A board may hold at most ${limit} bytes of asset files; this board has ${Number(stored)}, no room for another file`);
    }
    return;
  }
  const total = Number(stored) + adding;
  if (total > limit) {
    throw conflict(
      `A board may hold at most ${bounds.maxAssetBytes} bytes of asset files; this board has ${Number(stored)} and this file would make it ${total}`,
    );
  }
}
