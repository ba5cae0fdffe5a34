// A user's quotas: at most USER_MAX_BOARDS boards and USER_MAX_STORED_BYTES bytes stored on them
// (node and edge data, asset files, document chunk text), so that one account cannot fill the
// server's disk. The totals live on the user's row (0019-user-usage.ts), kept by triggers that the
// writing transaction fires, which lock that row: a write checks the quota after its change, in
// its own transaction, so two concurrent writes of one user cannot both slip past it, and a refused
// write leaves nothing behind. What is stored on a board counts against the board's owner, whoever
// wrote it. Like the board bounds (board-bounds.ts), a user over a quota lowered since stays able to
// delete and to shrink; only writes that add are refused, with 409 conflict.
import { sql } from 'kysely';
import type { Usage } from '../contract/usage.js';
import type { Executor } from '../db/schema.js';
import { conflict } from '../errors.js';
import type { UserQuotas } from '../config.js';

interface UserTotals {
  board_count: number;
  data_bytes: number;
  asset_bytes: number;
  chunk_bytes: number;
}

const stored = (t: UserTotals) => t.data_bytes + t.asset_bytes + t.chunk_bytes;

/** The bytes the owner of `boardId` stores (what `stored` sums), as a scalar subquery for a statement's select list. */
export const ownerStoredBytesOf = (boardId: string) =>
  sql<number | null>`(SELECT u.data_bytes + u.asset_bytes + u.chunk_bytes FROM users u JOIN boards b ON b.owner_id = u.id
    WHERE b.id = ${boardId})`;
const breakdown = (t: UserTotals) =>
  `${t.data_bytes} of node and edge data, ${t.asset_bytes} of asset files, ${t.chunk_bytes} of document chunks`;

function storedQuotaError(quotas: UserQuotas, t: UserTotals, adding = 0) {
  const after = stored(t) + adding;
  return conflict(
    `Stored bytes quota reached: an account may store at most ${quotas.maxStoredBytes} bytes (USER_MAX_STORED_BYTES); ` +
      `this write would make it ${after} (${breakdown(t)}${adding ? `, and ${adding} more` : ''}); delete something first`,
  );
}

async function totalsOf(trx: Executor, userId: string, lock = false): Promise<UserTotals> {
  const { rows } = await sql<UserTotals>`
    SELECT board_count, data_bytes, asset_bytes, chunk_bytes FROM users WHERE id = ${userId}
    ${lock ? sql`FOR NO KEY UPDATE` : sql``}`.execute(trx);
  return rows[0] ?? { board_count: 0, data_bytes: 0, asset_bytes: 0, chunk_bytes: 0 };
}

/** Refuses a board just created in this transaction when it takes the user past USER_MAX_BOARDS. */
export async function assertBoardQuota(trx: Executor, userId: string, quotas: UserQuotas): Promise<void> {
  const t = await totalsOf(trx, userId);
  if (t.board_count > quotas.maxBoards) {
    throw conflict(
      `Boards quota reached: an account may own at most ${quotas.maxBoards} boards (USER_MAX_BOARDS) and owns ${t.board_count - 1}; delete one first`,
    );
  }
}

/**
 * Refuses a write that added stored bytes to the board's owner, in this transaction and after the
 * change, when it took them past USER_MAX_STORED_BYTES. Call only for a write that added bytes.
 */
export async function assertStorageQuota(
  trx: Executor,
  target: { boardId: string } | { userId: string },
  quotas: UserQuotas,
): Promise<void> {
  const { rows } = await ('userId' in target
    ? sql<UserTotals>`SELECT board_count, data_bytes, asset_bytes, chunk_bytes FROM users WHERE id = ${target.userId}`
    : sql<UserTotals>`
        SELECT u.board_count, u.data_bytes, u.asset_bytes, u.chunk_bytes FROM users u JOIN boards b ON b.owner_id = u.id
        WHERE b.id = ${target.boardId}`
  ).execute(trx);
  const t = rows[0];
  if (t && stored(t) > quotas.maxStoredBytes) throw storedQuotaError(quotas, t);
}

/**
 * Before a write of `adding` bytes that cannot be checked after it (an upload's file is stored
 * before its row counts it): locks the owner's row for the rest of the transaction and refuses
 * when the bytes would not fit; without `adding`, refuses when the quota is already full.
 */
export async function assertStorageRoom(trx: Executor, userId: string, quotas: UserQuotas, adding?: number): Promise<void> {
  const t = await totalsOf(trx, userId, adding !== undefined);
  if (adding === undefined ? stored(t) >= quotas.maxStoredBytes : stored(t) + adding > quotas.maxStoredBytes)
    throw storedQuotaError(quotas, t, adding);
}

/** GET /v1/me/usage: the user's use of each quota. */
export async function usageOf(db: Executor, userId: string, quotas: UserQuotas): Promise<Usage> {
  const t = await totalsOf(db, userId);
  return {
    object: 'usage',
    boards: { used: t.board_count, limit: quotas.maxBoards },
    stored_bytes: {
      used: stored(t),
      limit: quotas.maxStoredBytes,
      node_data: t.data_bytes,
      assets: t.asset_bytes,
      chunks: t.chunk_bytes,
    },
  };
}
