// The opening of every node and edge write: the board must be visible and editable by the caller,
// and the board row is locked and its updated_at bumped. The lock serialises content writes per
// board, so checks that read other rows (a parent exists, no cycle, edge ends belong to the board)
// stay true until the transaction commits; the bump lets clients sort boards by last change.
import type { Principal } from '../auth/principal.js';
import { assertCanEditContent, boardSeenBy, type BoardRow } from '../boards/access.js';
import type { Executor } from '../db/schema.js';
import { notFound } from '../errors.js';

/** Call first inside the write's transaction (a refusal rolls the bump back with it). */
export async function beginContentWrite(trx: Executor, principal: Principal, boardId: string, at: Date): Promise<BoardRow> {
  // One statement: the visibility rule (boardSeenBy), the lock and the bump.
  const board = await trx
    .updateTable('boards')
    .set({ updated_at: at })
    .where('id', '=', boardId)
    .where(boardSeenBy(principal))
    .returningAll()
    .executeTakeFirst();
  if (!board) throw notFound('Board');
  assertCanEditContent(board, principal);
  return board;
}
