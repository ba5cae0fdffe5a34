// One partial HNSW index per embedding model over `embedding::vector(<dims>)`, created at start for
// the configured model (the column itself has no fixed dimension, so models of any size coexist).
// Also reports whether pgvector supports iterative index scans (0.8+), which keep a filtered HNSW
// search going until it has found `limit` rows.
//
// m = 8 rather than pgvector's default 16: inserting into an HNSW index on disk costs about three
// times less (measured in PGlite: 8 against 25 ms per 512-dimension row under load), which is what
// a vectorize job spends most of its time on; the recall lost is won back at search time with a
// larger ef_search (see search-service.ts and BENCHMARKS.md).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import type { DenseEmbedder, Embedder } from '../providers/embeddings/embedder.js';

export interface ChunkIndexInfo {
  iterativeScan: boolean;
}

export const HNSW_M = 8;
export const HNSW_EF_CONSTRUCTION = 64;

export const indexName = (model: string, dimensions: number) =>
  `document_chunks_hnsw_${createHash('sha256').update(`${model}:${dimensions}:m${HNSW_M}:ef${HNSW_EF_CONSTRUCTION}`).digest('hex').slice(0, 16)}`;

/** What the last ensureChunkIndex found (every database of one process runs the same pgvector). */
export let knownIndexInfo: ChunkIndexInfo | undefined;

/** Creates the dense model's index (the local lexical model's searches scan its board exactly). */
export async function ensureChunkIndex(db: Db, embedder: Embedder): Promise<ChunkIndexInfo> {
  if (embedder.kind === 'dense') await createDenseIndex(db, embedder);
  const { rows } = await sql<{ extversion: string }>`SELECT extversion FROM pg_extension WHERE extname = 'vector'`.execute(db);
  const [major = 0, minor = 0] = (rows[0]?.extversion ?? '0.0').split('.').map(Number);
  knownIndexInfo = { iterativeScan: major > 0 || minor >= 8 };
  return knownIndexInfo;
}

async function createDenseIndex(db: Db, embedder: DenseEmbedder): Promise<void> {
  const name = indexName(embedder.model, embedder.dimensions);
  await sql`
    CREATE INDEX IF NOT EXISTS ${sql.id(name)} ON document_chunks
    USING hnsw ((embedding::vector(${sql.lit(embedder.dimensions)})) vector_cosine_ops)
    WITH (m = ${sql.lit(HNSW_M)}, ef_construction = ${sql.lit(HNSW_EF_CONSTRUCTION)})
    WHERE model = ${sql.lit(embedder.model)}`.execute(db);
}
