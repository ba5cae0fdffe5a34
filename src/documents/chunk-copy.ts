// Copies a board's live chunk sets and their chunks into its duplicate, inside the duplicate's
// transaction, with new ids (in the original order) and node ids remapped through the node_id_map
// table that the node copy fills. Sets still being written by a running job, or retired, are not
// copied. The copied live sets carry their term counts, which the chunk_sets trigger adds to the
// duplicate's term statistics.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { newId } from '../lib/ids.js';

export async function copyBoardChunks(trx: Executor, from: string, to: string): Promise<void> {
  const sets = await trx
    .selectFrom('chunk_sets')
    .select('id')
    .where('board_id', '=', from)
    .where('state', '=', 'live')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (sets.length === 0) return;
  const oldSetIds = sets.map((s) => s.id);
  const newSetIds = oldSetIds.map(() => newId());
  const { rows: ids } = await sql<{ id: string }>`
    SELECT c.id FROM document_chunks c JOIN chunk_sets s ON s.id = c.set_id AND s.state = 'live'
    WHERE c.board_id = ${from} ORDER BY c.created_at, c.id`.execute(trx);
  const oldIds = ids.map((r) => r.id);
  const newIds = oldIds.map(() => newId());
  // A board without nodes has no map yet; its chunks all have node_id null.
  await sql`CREATE TEMP TABLE IF NOT EXISTS node_id_map (old_id uuid PRIMARY KEY, new_id uuid NOT NULL) ON COMMIT DROP`.execute(trx);
  await sql`
    INSERT INTO chunk_sets (id, board_id, node_id, model, state, chunks, term_ids, term_df, text_sha256, created_at)
    SELECT sm.new_id, ${to}, nm.new_id, s.model, 'live', s.chunks, s.term_ids, s.term_df, s.text_sha256, s.created_at
    FROM chunk_sets s
    JOIN unnest(${oldSetIds}::uuid[], ${newSetIds}::uuid[]) AS sm(old_id, new_id) ON sm.old_id = s.id
    LEFT JOIN node_id_map nm ON nm.old_id = s.node_id`.execute(trx);
  if (oldIds.length === 0) return;
  await sql`
    INSERT INTO document_chunks (id, board_id, node_id, set_id, content, metadata, model, embedding, sparse_embedding, keywords, term_ids, created_at)
    SELECT cm.new_id, ${to}, nm.new_id, sm.new_id, c.content, c.metadata, c.model, c.embedding, c.sparse_embedding, c.keywords, c.term_ids, c.created_at
    FROM document_chunks c
    JOIN unnest(${oldIds}::uuid[], ${newIds}::uuid[]) AS cm(old_id, new_id) ON cm.old_id = c.id
    JOIN unnest(${oldSetIds}::uuid[], ${newSetIds}::uuid[]) AS sm(old_id, new_id) ON sm.old_id = c.set_id
    LEFT JOIN node_id_map nm ON nm.old_id = c.node_id
    WHERE c.board_id = ${from}`.execute(trx);
}
