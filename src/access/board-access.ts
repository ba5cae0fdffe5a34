// Who may see and change a board. Callers see their own boards and public boards; anything else is
// "Board not found", so the existence of another user's private board never shows.
import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { BoardsTable, Executor } from '../db/schema.js';
import { forbidden, notFound, unauthorized } from '../errors.js';

export type BoardRow = Selectable<BoardsTable>;

/**
 * The rule for seeing a board, in SQL: the caller owns it, or it is public. `board` names the
 * boards row in the surrounding query (a table name or alias). Every read of a board or of what is
 * on it goes through this or through canSeeBoard, its form for a row already in hand; they are
 * tested to agree.
 */
export function boardSeenBy(principal: Principal, board = 'boards'): RawBuilder<SqlBool> {
  const seen = sql<SqlBool>`(${sql.ref(`${board}.owner_id`)} = ${principal.userId} OR ${sql.ref(`${board}.is_public`)})`;
  return principal.unconfirmed ? sql<SqlBool>`(${seen} AND ${keyStillValid(principal)})` : seen;
}

/**
 * For a caller whose API key was not read for this request (Principal.unconfirmed): the key, as a
 * condition of the statement that reads for it, so a key revoked or expired a moment ago gets nothing.
 */
function keyStillValid(principal: Principal): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ${principal.keyId ?? null} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))`;
}

/** The same rule for a board row already read (the embedded node cache holds these two fields); an unconfirmed key sees nothing from memory. */
export const canSeeBoard = (board: { owner_id: string; is_public: boolean }, principal: Principal): boolean =>
  !principal.unconfirmed && (board.owner_id === principal.userId || board.is_public);

export async function findVisibleBoard(db: Executor, principal: Principal, boardId: string): Promise<BoardRow> {
  const board = await db.selectFrom('boards').selectAll().where('id', '=', boardId).where(boardSeenBy(principal)).executeTakeFirst();
  if (board) return board;
  if (principal.unconfirmed) {
    // Nothing seen: a missing board, or a key no longer valid, which is the caller's 401.
    const { rows } = await sql<{ valid: boolean }>`SELECT ${keyStillValid(principal)} AS valid`.execute(db);
    if (!rows[0]?.valid) throw unauthorized('Invalid, expired or revoked token');
  }
  throw notFound('Board');
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
