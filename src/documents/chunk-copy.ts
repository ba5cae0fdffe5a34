// Copies a board's stored chunks into its duplicate, inside the duplicate's transaction, with new
// ids (in the original order) and node ids remapped through the node_id_map table that the node copy
// fills. Chunks still being written by a running job are not copied.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { newId } from '../lib/ids.js';

export async function copyBoardChunks(trx: Executor, from: string, to: string): Promise<void> {
  const ids = await trx.selectFrom('document_chunks').select('id').where('board_id', '=', from).where('pending_job_id', 'is', null).orderBy('created_at').orderBy('id').execute();
  if (ids.length === 0) return;
  const oldIds = ids.map((r) => r.id);
  const newIds = oldIds.map(() => newId());
  // A board without nodes has no map yet; its chunks all have node_id null.
  await sql`CREATE TEMP TABLE IF NOT EXISTS node_id_map (old_id uuid PRIMARY KEY, new_id uuid NOT NULL) ON COMMIT DROP`.execute(trx);
  await sql`
    INSERT INTO document_chunks (id, board_id, node_id, content, metadata, model, embedding, pending_job_id, created_at)
    SELECT cm.new_id, ${to}, nm.new_id, c.content, c.metadata, c.model, c.embedding, NULL, c.created_at
    FROM document_chunks c
    JOIN unnest(${oldIds}::uuid[], ${newIds}::uuid[]) AS cm(old_id, new_id) ON cm.old_id = c.id
    LEFT JOIN node_id_map nm ON nm.old_id = c.node_id
    WHERE c.board_id = ${from}`.execute(trx);
}
