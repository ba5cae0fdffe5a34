// Chunk sets: the chunks one job wrote for one node (or one loose text) form a set, and a chunk is
// visible only while its set is `live`. A job writes its chunks into a `writing` set, in many small
// statements (so the single embedded connection is never held for long, and each row enters the
// HNSW index as it is written); completing the job flips the set to `live` and the node's earlier
// sets to `retired` by updating a few set rows, which is the atomic replace. Retired sets are then
// deleted in small batches in the background (src/documents/chunk-purge.ts).
//
// This replaces 0002's `pending_job_id`, whose publishing UPDATE touched every new row in one
// statement (and, with the HNSW index partial on it, inserted every row into the index there).
// Also: rows are kept uncompressed in the heap (toast_tuple_target at its maximum, embedding
// STORAGE MAIN), so an exact scan reads vectors without decompressing them (about 6x faster
// measured on PGlite); long contents are still moved out of line.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE chunk_sets (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      node_id uuid REFERENCES nodes(id) ON DELETE CASCADE,
      model text NOT NULL,
      state text NOT NULL CHECK (state IN ('writing', 'live', 'retired')),
      -- The number of chunks, set when the set goes live (search uses it to choose exact or index).
      chunks integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX chunk_sets_board_idx ON chunk_sets (board_id, node_id)`.execute(db);
  await sql`CREATE INDEX chunk_sets_node_idx ON chunk_sets (node_id) WHERE node_id IS NOT NULL`.execute(db);
  // Searches hide the few sets that are not live; the purge finds the retired ones.
  await sql`CREATE INDEX chunk_sets_hidden_idx ON chunk_sets (board_id) WHERE state <> 'live'`.execute(db);
  await sql`CREATE INDEX chunk_sets_retired_idx ON chunk_sets (created_at) WHERE state = 'retired'`.execute(db);

  // Existing chunks: one live set per board, node and model; unpublished ones are dropped (their
  // jobs are still `processing` and redo the work when claimed again).
  await sql`DELETE FROM document_chunks WHERE pending_job_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE document_chunks ADD COLUMN set_id uuid REFERENCES chunk_sets(id) ON DELETE CASCADE`.execute(db);
  await sql`
    INSERT INTO chunk_sets (id, board_id, node_id, model, state, chunks, created_at)
    SELECT gen_random_uuid(), board_id, node_id, model, 'live', count(*), min(created_at)
    FROM document_chunks GROUP BY board_id, node_id, model`.execute(db);
  await sql`
    UPDATE document_chunks c SET set_id = s.id FROM chunk_sets s
    WHERE s.board_id = c.board_id AND s.node_id IS NOT DISTINCT FROM c.node_id AND s.model = c.model`.execute(db);
  await sql`ALTER TABLE document_chunks ALTER COLUMN set_id SET NOT NULL`.execute(db);

  // The old indexes were partial on pending_job_id (the per-model HNSW ones too); the HNSW index
  // of the configured model is created again at start (src/documents/chunk-index.ts).
  await sql`
    DO $$ DECLARE r record; BEGIN
      FOR r IN SELECT indexname FROM pg_indexes WHERE tablename = 'document_chunks' AND indexname LIKE 'document_chunks_hnsw_%' LOOP
        EXECUTE format('DROP INDEX %I', r.indexname);
      END LOOP;
    END $$`.execute(db);
  await sql`DROP INDEX IF EXISTS document_chunks_board_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS document_chunks_pending_idx`.execute(db);
  await sql`ALTER TABLE document_chunks DROP COLUMN pending_job_id`.execute(db);
  await sql`CREATE INDEX document_chunks_board_idx ON document_chunks (board_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX document_chunks_set_idx ON document_chunks (set_id)`.execute(db);

  await sql`ALTER TABLE document_chunks SET (toast_tuple_target = 8160)`.execute(db);
  await sql`ALTER TABLE document_chunks ALTER COLUMN embedding SET STORAGE MAIN`.execute(db);
}
