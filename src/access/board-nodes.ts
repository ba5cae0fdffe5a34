// Which nodes a write may name: a node another resource points at (a parent, a comment's card, a
// chat's node or selection) must be a node of the same board, else the write is 400 naming the field.
import type { Executor } from '../db/schema.js';
import { invalid } from '../errors.js';

/** `nodeId` is a node of this board, or "invalid_request" naming `field`. */
export async function assertNodeOnBoard(db: Executor, boardId: string, nodeId: string, field: string): Promise<void> {
  const node = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).where('board_id', '=', boardId).executeTakeFirst();
  if (!node) throw invalid(`${field} is not a node of this board`);
}

/** `ids` without repeats, each a node of this board, or "invalid_request" naming `field`. */
export async function nodesOfBoard(db: Executor, boardId: string, ids: string[], field: string): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = await db.selectFrom('nodes').select('id').where('board_id', '=', boardId).where('id', 'in', unique).execute();
  if (found.length !== unique.length) throw invalid(`${field} names a node that is not on this board`);
  return unique;
}
