// The opening of every node and edge write: the board must be visible and editable by the caller,
// and the board row is locked and its updated_at bumped. The lock serialises content writes per
// board, so checks that read other rows (a parent exists, no cycle, edge ends belong to the board)
// stay true until the transaction commits; the bump lets clients sort boards by last change.
import type { Principal } from '../auth/principal.js';
import { assertCanEditContent, findVisibleBoard, type BoardRow } from '../boards/access.js';
import type { Executor } from '../db/schema.js';
import { notFound } from '../errors.js';

/** Call first inside the write's transaction. */
export async function beginContentWrite(trx: Executor, principal: Principal, boardId: string, at: Date): Promise<BoardRow> {
  const seen = await findVisibleBoard(trx, principal, boardId);
  assertCanEditContent(seen, principal);
  const locked = await trx
    .updateTable('boards')
    .set({ updated_at: at })
    .where('id', '=', boardId)
    .returningAll()
    .executeTakeFirst();
  // Deleted or made private between the two statements: answer as if it had been so all along.
  if (!locked) throw notFound('Board');
  if (locked.owner_id !== principal.userId && !locked.is_public) throw notFound('Board');
  assertCanEditContent(locked, principal);
  return locked;
}
