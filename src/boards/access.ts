// Who may see and change a board. Callers see their own boards and public boards; anything else is
// "Board not found", so the existence of another user's private board never shows.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { BoardsTable, Executor } from '../db/schema.js';
import { forbidden, notFound } from '../errors.js';

export type BoardRow = BoardsTable;

export async function findVisibleBoard(db: Executor, principal: Principal, boardId: string): Promise<BoardRow> {
  const board = await db
    .selectFrom('boards')
    .selectAll()
    .where('id', '=', boardId)
    .where((eb) => eb.or([eb('owner_id', '=', principal.userId), eb('is_public', '=', true)]))
    .executeTakeFirst();
  if (!board) throw notFound('Board');
  return board;
}

/**
 * The same visibility rule as a condition inside another query, so a read of a board's nodes or
 * edges is one statement. When such a read finds nothing, call findVisibleBoard to tell a missing
 * board from a missing child.
 */
export function boardVisibleTo(principal: Principal, boardId: string) {
  return sql<boolean>`EXISTS (SELECT 1 FROM boards vb WHERE vb.id = ${boardId} AND (vb.owner_id = ${principal.userId} OR vb.is_public))`;
}

export const isOwner = (board: BoardRow, principal: Principal): boolean => board.owner_id === principal.userId;

/** Creating, changing and deleting nodes and edges: the owner, or anyone on a public `edit` board. */
export function assertCanEditContent(board: BoardRow, principal: Principal): void {
  if (isOwner(board, principal) || (board.is_public && board.public_access_level === 'edit')) return;
  throw forbidden('This board is shared read-only');
}

/** Changing or deleting the board itself, its settings and its assets: the owner only. */
export function assertOwner(board: BoardRow, principal: Principal): void {
  if (!isOwner(board, principal)) throw forbidden("Only the board's owner may do this");
}
