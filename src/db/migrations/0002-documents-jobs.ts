// Background jobs and document chunks (vectorized text). Chunk vectors are stored in an untyped
// `vector` column with the model that made them, so a change of embedding model needs no schema
// change; each model gets its own partial HNSW index over `embedding::vector(<dims>)`, created at
// start by ensureChunkIndex (src/documents/chunk-index.ts).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      board_id uuid REFERENCES boards(id) ON DELETE SET NULL,
      type text NOT NULL,
      status text NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
      result jsonb,
      error text,
      payload jsonb,
      attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((status = 'processing' AND result IS NULL AND error IS NULL)
          OR (status = 'completed' AND result IS NOT NULL AND error IS NULL)
          OR (status = 'failed' AND result IS NULL AND error IS NOT NULL))
    )`.execute(db);
  // The worker's queue: only unfinished jobs, oldest first.
  await sql`CREATE INDEX jobs_queue_idx ON jobs (created_at) WHERE status = 'processing'`.execute(db);
  await sql`CREATE INDEX jobs_user_idx ON jobs (user_id)`.execute(db);
  await sql`CREATE INDEX jobs_board_idx ON jobs (board_id)`.execute(db);
  await sql`
    CREATE TABLE document_chunks (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      node_id uuid REFERENCES nodes(id) ON DELETE CASCADE,
      content text NOT NULL,
      metadata jsonb NOT NULL,
      model text NOT NULL,
      embedding vector NOT NULL,
      -- Set while the job that writes the chunk runs: such chunks are invisible until the job
      -- completes and swaps them in (with the node's earlier chunks removed) in one transaction.
      pending_job_id uuid REFERENCES jobs(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX document_chunks_board_idx ON document_chunks (board_id, created_at, id) WHERE pending_job_id IS NULL`.execute(db);
  await sql`CREATE INDEX document_chunks_node_idx ON document_chunks (node_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX document_chunks_pending_idx ON document_chunks (pending_job_id) WHERE pending_job_id IS NOT NULL`.execute(db);
}
