// Duplicating a board: a copy of its nodes, edges and document chunks under new ids, for the
// caller. Above the content domains, as it combines what each of them holds.
import { sql } from 'kysely';
import { findVisibleBoard } from '../access/board-access.js';
import { assertCopyFits, assertWithinBounds } from '../access/board-bounds.js';
import { assertBoardQuota, assertStorageQuota } from '../access/user-quota.js';
import type { Principal } from '../auth/principal.js';
import type { BoardBounds } from '../config.js';
import { Board } from '../contract/boards.js';
import { fieldsOf } from '../contract/common.js';
import type { Db, Executor } from '../db/schema.js';
import { copyBoardChunks } from '../documents/chunk-copy.js';
import { newId, now } from '../lib/ids.js';

/** The board's columns, in the order of its schema. */
const boardColumns = fieldsOf(Board);

/** The app's duplicates of boards, built once per app with the database and the bounds (src/modules/services.ts). */
export class DuplicateService {
  constructor(private readonly deps: { db: Db; bounds: BoardBounds }) {}

  /**
   * Copies a visible board with its nodes, edges (and, once they exist, document chunks) under new
   * ids, every reference remapped. New ids are made in the original order, so lists keep their order.
   * The copy must fit the board bounds: a board over a bound lowered since is refused before copying.
   */
  async copy(principal: Principal, boardId: string): Promise<Board> {
    const { db, bounds } = this.deps;
    return db.transaction().execute(async (trx) => {
      const board = await findVisibleBoard(trx, principal, boardId);
      assertCopyFits(board, bounds);
      const at = now();
      const copy = await trx
        .insertInto('boards')
        .values({
          id: newId(),
          owner_id: principal.userId,
          name: `${board.name} (Copy)`,
          is_public: false,
          public_access_level: null,
          viewport_x: board.viewport_x,
          viewport_y: board.viewport_y,
          viewport_zoom: board.viewport_zoom,
          view_mode: board.view_mode,
          auto_read: board.auto_read,
          created_at: at,
          updated_at: at,
        })
        .returning(boardColumns)
        .executeTakeFirstOrThrow();
      await copyRows(trx, 'nodes', board.id, copy.id, at);
      await copyRows(trx, 'edges', board.id, copy.id, at);
      await copyBoardChunks(trx, board.id, copy.id);
      // The original was read without a lock: a write that committed meanwhile is counted here.
      await assertWithinBounds(trx, copy.id, bounds);
      // The copy is the caller's: their boards and stored bytes (its data and chunks) grew.
      await assertBoardQuota(trx, principal.userId, bounds.owner);
      await assertStorageQuota(trx, { userId: principal.userId }, bounds.owner);
      return copy;
    });
  }
}

async function copyRows(trx: Executor, table: 'nodes' | 'edges', from: string, to: string, at: Date): Promise<void> {
  // Node ids are remapped through a temporary table so edges and parents can join on it.
  const ids = await trx.selectFrom(table).select('id').where('board_id', '=', from).orderBy('created_at').orderBy('id').execute();
  if (ids.length === 0) return;
  const oldIds = ids.map((r) => r.id);
  const newIds = oldIds.map(() => newId());
  if (table === 'nodes') {
    await sql`CREATE TEMP TABLE IF NOT EXISTS node_id_map (old_id uuid PRIMARY KEY, new_id uuid NOT NULL) ON COMMIT DROP`.execute(trx);
    await sql`INSERT INTO node_id_map SELECT * FROM unnest(${oldIds}::uuid[], ${newIds}::uuid[])`.execute(trx);
    await sql`
      INSERT INTO nodes (id, board_id, node_type, position_x, position_y, node_data, parent_node_id, created_at, updated_at)
      SELECT m.new_id, ${to}, n.node_type, n.position_x, n.position_y, n.node_data, pm.new_id, ${at}, ${at}
      FROM nodes n
      JOIN node_id_map m ON m.old_id = n.id
      LEFT JOIN node_id_map pm ON pm.old_id = n.parent_node_id
      WHERE n.board_id = ${from}`.execute(trx);
  } else {
    await sql`
      INSERT INTO edges (id, board_id, source_node_id, target_node_id, edge_type, edge_data, created_at, updated_at)
      SELECT em.new_id, ${to}, s.new_id, t.new_id, e.edge_type, e.edge_data, ${at}, ${at}
      FROM edges e
      JOIN unnest(${oldIds}::uuid[], ${newIds}::uuid[]) AS em(old_id, new_id) ON em.old_id = e.id
      JOIN node_id_map s ON s.old_id = e.source_node_id
      JOIN node_id_map t ON t.old_id = e.target_node_id
      WHERE e.board_id = ${from}`.execute(trx);
  }
}
