// The opening of every node and edge write: the board must be visible and editable by the caller,
// and the board row is locked. The lock serialises content writes per board, so checks that read
// other rows (a parent exists, no cycle, edge ends belong to the board) stay true until the
// transaction commits. The board's updated_at (which lets clients sort boards by last change) is
// bumped when the write records its changes (events/record.ts), in the update of the board row that
// recording makes anyway: one row version fewer per write than bumping it here.
import type { Principal } from '../auth/principal.js';
import { assertCanEditContent, boardSeenBy, memberRoleOf, type SeenBoard } from './board-access.js';
import type { Executor } from '../db/schema.js';
import { notFound } from '../errors.js';

/** Call first inside the write's transaction; record its changes with `touchBoard` (record.ts). */
export async function beginContentWrite(trx: Executor, principal: Principal, boardId: string): Promise<SeenBoard> {
  // One statement: the visibility rule (boardSeenBy) and the lock.
  const board = await trx
    .selectFrom('boards')
    .selectAll()
    .select(memberRoleOf(principal).as('member_role'))
    .where('id', '=', boardId)
    .where(boardSeenBy(principal))
    .forUpdate()
    .executeTakeFirst();
  if (!board) throw notFound('Board');
  assertCanEditContent(board, principal);
  return board;
}
