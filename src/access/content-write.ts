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
  const board = await lockSeenBoard(trx, principal, boardId, 'update');
  if (!board) throw notFound('Board');
  assertCanEditContent(board, principal);
  return board;
}

/**
 * The board row as the caller sees it, locked until the transaction ends, in one statement (the
 * visibility rule, boardSeenBy, and the lock); undefined when they cannot see it. `no key update`
 * lets rows that only point at the board (a comment's, a job's) be added meanwhile.
 */
export function lockSeenBoard(
  trx: Executor,
  principal: Principal,
  boardId: string,
  lock: 'update' | 'no key update',
): Promise<SeenBoard | undefined> {
  const query = trx
    .selectFrom('boards')
    .selectAll()
    .select(memberRoleOf(principal).as('member_role'))
    .where('id', '=', boardId)
    .where(boardSeenBy(principal));
  return (lock === 'update' ? query.forUpdate() : query.forNoKeyUpdate()).executeTakeFirst();
}
