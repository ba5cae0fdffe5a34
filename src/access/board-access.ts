// Who may see and change a board: the one rule (issue 31). A board's owner does everything; a
// member does what their role allows (viewer < commenter < editor); anyone may read a public board,
// and change the content of a public `edit` board, as before members existed. Anything a caller may
// not see is "Board not found", so the existence of another user's private board never shows.
//
// The rule has a TypeScript form (accessOf, for a row in hand with the caller's membership) and a
// SQL form for reading (boardSeenBy, and its database copies visible_board_version and the webhook
// audience of record_board_changes, 0024-board-members.ts); test/access.test.ts holds them together.
import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { BoardsTable, Executor } from '../db/schema.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import type { BoardPermissions, BoardRole, MemberRole } from '../contract/members.js';

export type BoardRow = Selectable<BoardsTable>;
/** A board as its reader reads it: with the reader's membership (null when they are none). */
export type SeenBoard = BoardRow & { member_role: MemberRole | null };

const RANK: Record<BoardRole, number> = { viewer: 1, commenter: 2, editor: 3, owner: 4 };
/** Whether `role` is `least` or above it. */
export const atLeast = (role: BoardRole | null, least: BoardRole): boolean => role !== null && RANK[role] >= RANK[least];

/** What the rule reads of a board. */
export type BoardAccessFields = Pick<BoardRow, 'owner_id' | 'is_public' | 'public_access_level'>;

/**
 * The rule, in TypeScript. `role` is the caller's own (owner or their member role; null for a
 * visitor of a public board). A public board lets anyone read it and chat about it, and a public
 * `edit` board lets anyone change its content (not its assets): the public flags as they were.
 */
export function accessOf(
  board: BoardAccessFields,
  memberRole: MemberRole | null,
  principal: Principal,
): { role: BoardRole | null; permissions: BoardPermissions } {
  const role: BoardRole | null = board.owner_id === principal.userId ? 'owner' : memberRole;
  const publicEdit = board.is_public && board.public_access_level === 'edit';
  return {
    role,
    permissions: {
      read: role !== null || board.is_public,
      comment: atLeast(role, 'commenter') || publicEdit,
      edit: atLeast(role, 'editor') || publicEdit,
      upload: atLeast(role, 'editor'),
      chat: atLeast(role, 'editor') || board.is_public,
      manage: role === 'owner',
      delete: role === 'owner',
    },
  };
}

/** The caller's member role on the board `board` names, in SQL (null when none). */
export function memberRoleOf(principal: Principal, board = 'boards'): RawBuilder<MemberRole | null> {
  return sql<MemberRole | null>`(SELECT m.role FROM board_members m WHERE m.board_id = ${sql.ref(`${board}.id`)} AND m.user_id = ${principal.userId})`;
}

/**
 * The rule for seeing a board, in SQL: the caller owns it, is a member, or it is public. `board`
 * names the boards row in the surrounding query (a table name or alias). Every read of a board or
 * of what is on it goes through this or through accessOf; they are tested to agree.
 */
export function boardSeenBy(principal: Principal, board = 'boards'): RawBuilder<SqlBool> {
  const seen = sql<SqlBool>`(${sql.ref(`${board}.owner_id`)} = ${principal.userId} OR ${sql.ref(`${board}.is_public`)}
    OR EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = ${sql.ref(`${board}.id`)} AND m.user_id = ${principal.userId}))`;
  return principal.unconfirmed ? sql<SqlBool>`(${seen} AND ${keyStillValid(principal)})` : seen;
}

/**
 * For a caller whose API key was not read for this request (Principal.unconfirmed): the key, as a
 * condition of the statement that reads for it, so a key revoked or expired a moment ago gets nothing.
 */
function keyStillValid(principal: Principal): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ${principal.keyId ?? null} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))`;
}

/**
 * The rule for a board row already read without the caller's membership (the embedded node cache
 * holds these two fields): the owner, or anyone on a public board. A member is not known here, so
 * a false answer means "read it from the database"; an unconfirmed key sees nothing from memory.
 */
export const canSeeBoard = (board: { owner_id: string; is_public: boolean }, principal: Principal): boolean =>
  !principal.unconfirmed && (board.owner_id === principal.userId || board.is_public);

/** The board with the caller's membership, when the caller may see it; else 404 (or the caller's 401). */
export async function findVisibleBoard(db: Executor, principal: Principal, boardId: string): Promise<SeenBoard> {
  const board = await db
    .selectFrom('boards')
    .selectAll()
    .select(memberRoleOf(principal).as('member_role'))
    .where('id', '=', boardId)
    .where(boardSeenBy(principal))
    .executeTakeFirst();
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

const permitted = (board: SeenBoard, principal: Principal) => accessOf(board, board.member_role, principal).permissions;

/** Creating, changing and deleting nodes and edges, vectorizing: editors, the owner, anyone on a public `edit` board. */
export function assertCanEditContent(board: SeenBoard, principal: Principal): void {
  if (!permitted(board, principal).edit) throw forbidden('Your role on this board does not allow changing its content');
}

/** Uploading, listing and deleting asset files: editors and the owner. */
export function assertCanUpload(board: SeenBoard, principal: Principal): void {
  if (!permitted(board, principal).upload) throw forbidden("Only the board's owner and its editors may do this");
}

/** Holding chats about the board: editors, the owner, anyone on a public board. */
export function assertCanChat(board: SeenBoard, principal: Principal): void {
  if (!permitted(board, principal).chat) throw forbidden('Your role on this board does not allow chats');
}

/** Changing or deleting the board itself, its settings, sharing and members: the owner only. */
export function assertOwner(board: BoardRow, principal: Principal): void {
  if (!isOwner(board, principal)) throw forbidden("Only the board's owner may do this");
}
