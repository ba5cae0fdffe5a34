// Who may see and change a board. Callers see their own boards and public boards; anything else is
// "Board not found", so the existence of another user's private board never shows.
import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { BoardsTable, Executor } from '../db/schema.js';
import { forbidden, notFound } from '../errors.js';

export type BoardRow = Selectable<BoardsTable>;

/**
 * The rule for seeing a board, in SQL: the caller owns it, or it is public. `board` names the
 * boards row in the surrounding query (a table name or alias). Every read of a board or of what is
 * on it goes through this or through canSeeBoard, its form for a row already in hand; they are
 * tested to agree.
 */
export function boardSeenBy(principal: Principal, board = 'boards'): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${board}.owner_id`)} = ${principal.userId} OR ${sql.ref(`${board}.is_public`)})`;
}

/** The same rule for a board row already read (the embedded node cache holds these two fields). */
export const canSeeBoard = (board: { owner_id: string; is_public: boolean }, principal: Principal): boolean =>
  board.owner_id === principal.userId || board.is_public;

export async function findVisibleBoard(db: Executor, principal: Principal, boardId: string): Promise<BoardRow> {
  const board = await db.selectFrom('boards').selectAll().where('id', '=', boardId).where(boardSeenBy(principal)).executeTakeFirst();
  if (!board) throw notFound('Board');
  return board;
}

/**
 * The same visibility rule as a condition inside another query, so a read of a board's nodes or
 * edges is one statement. When such a read finds nothing, call findVisibleBoard to tell a missing
 * board from a missing child.
 */
export function boardVisibleTo(principal: Principal, boardId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM boards vb WHERE vb.id = ${boardId} AND ${boardSeenBy(principal, 'vb')})`;
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
