// Semantic search over a board's chunks: the query is embedded with the configured model and
// compared (cosine) only with chunks embedded by that same model. Small candidate sets (a board or
// a few nodes with at most SEARCH_EXACT_MAX_CHUNKS chunks) are scanned exactly; larger ones use the
// model's HNSW index with an iterative scan (pgvector 0.8+), so a selective filter still yields
// `limit` rows. Results are keyset-paginated on (distance, id).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import { ApiError, invalid } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { knownIndexInfo, type ChunkIndexInfo } from './chunk-index.js';
import { vectorLiteral, type ChunkMetadata } from './chunk-store.js';

export interface ChunkHit {
  id: string;
  content: string;
  node_id: string | null;
  metadata: ChunkMetadata;
  score: number;
}

export interface SearchDeps {
  db: Db;
  embedder: Embedder;
  index?: ChunkIndexInfo;
  exactMaxChunks?: number;
}

export interface SearchOptions {
  limit: number;
  threshold?: number;
  nodeIds?: string[];
  cursor?: string;
}

interface Cursor {
  v: 1;
  k: string;
  d: number;
  i: string;
}

/** Searches a board's chunks; no access checks (callers check the board first). */
export async function searchBoardChunks(deps: SearchDeps, boardId: string, query: string, options: { limit: number; threshold?: number; nodeIds?: string[] }): Promise<ChunkHit[]> {
  return (await searchChunksPage(deps, boardId, query, options)).data;
}

export async function searchChunksPage(
  deps: SearchDeps,
  boardId: string,
  query: string,
  options: SearchOptions,
): Promise<{ data: ChunkHit[]; has_more: boolean; cursor: string | null }> {
  const { db, embedder } = deps;
  const threshold = options.threshold ?? 0;
  const nodeIds = options.nodeIds && options.nodeIds.length > 0 ? [...new Set(options.nodeIds)] : undefined;
  // The cursor is bound to everything that shapes the ranking.
  const key = createHash('sha256').update(JSON.stringify([boardId, query, threshold, nodeIds?.slice().sort() ?? null, embedder.model])).digest('base64url').slice(0, 22);
  const after = options.cursor === undefined ? undefined : readCursor(options.cursor, key);

  let vector: number[];
  try {
    [vector] = (await embedder.embed([query])) as [number[]];
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('upstream_error', 'The embedding provider failed');
  }
  const q = vectorLiteral(vector);
  const model = sql.lit(embedder.model);
  const dims = sql.lit(embedder.dimensions);
  const nodeFilter = nodeIds ? sql`AND node_id = ANY(${nodeIds}::uuid[])` : sql``;
  const maxDistance = 1 - threshold;

  const { rows: counted } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM document_chunks
      WHERE board_id = ${boardId} AND model = ${model} AND pending_job_id IS NULL ${nodeFilter}
      LIMIT ${(deps.exactMaxChunks ?? 20_000) + 1}) c`.execute(db);
  const exact = !(deps.index ?? knownIndexInfo)?.iterativeScan || counted[0]!.n <= (deps.exactMaxChunks ?? 20_000);

  type Row = { id: string; content: string; node_id: string | null; metadata: ChunkMetadata; distance: number };
  let rows: Row[];
  if (exact) {
    // The plain `embedding` column (no cast) does not match the index expression: an exact scan.
    const distance = sql`(embedding <=> ${q}::vector)`;
    const keyset = after ? sql`AND (${distance} > ${after.d} OR (${distance} = ${after.d} AND id > ${after.i}::uuid))` : sql``;
    ({ rows } = await sql<Row>`
      SELECT id, content, node_id, metadata, ${distance} AS distance FROM document_chunks
      WHERE board_id = ${boardId} AND model = ${model} AND pending_job_id IS NULL ${nodeFilter}
        AND ${distance} <= ${maxDistance} ${keyset}
      ORDER BY distance, id LIMIT ${options.limit + 1}`.execute(db));
  } else {
    const distance = sql`(embedding::vector(${dims}) <=> ${q}::vector(${dims}))`;
    const keyset = after ? sql`AND (${distance} > ${after.d} OR (${distance} = ${after.d} AND id > ${after.i}::uuid))` : sql``;
    rows = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL hnsw.iterative_scan = relaxed_order`.execute(trx);
      await sql`SELECT set_config('hnsw.ef_search', ${String(Math.max(40, Math.min(1000, (options.limit + 1) * 2)))}, true)`.execute(trx);
      const result = await sql<Row>`
        SELECT id, content, node_id, metadata, ${distance} AS distance FROM document_chunks
        WHERE model = ${model} AND pending_job_id IS NULL AND board_id = ${boardId} ${nodeFilter}
          AND ${distance} <= ${maxDistance} ${keyset}
        ORDER BY ${distance} LIMIT ${options.limit + 1}`.execute(trx);
      return result.rows;
    });
    // relaxed_order may return rows slightly out of order.
    rows.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
  }
  const has_more = rows.length > options.limit;
  const page = has_more ? rows.slice(0, options.limit) : rows;
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({ id: r.id, content: r.content, node_id: r.node_id, metadata: r.metadata, score: 1 - r.distance })),
    has_more,
    cursor: has_more && last ? Buffer.from(JSON.stringify({ v: 1, k: key, d: last.distance, i: last.id } satisfies Cursor)).toString('base64url') : null,
  };
}

function readCursor(raw: string, key: string): Cursor {
  let body: Cursor;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw invalid('cursor is not a valid cursor');
  }
  if (typeof body !== 'object' || body === null || body.v !== 1 || typeof body.d !== 'number' || !Number.isFinite(body.d) || typeof body.i !== 'string' || !isUuid(body.i)) {
    throw invalid('cursor is not a valid cursor');
  }
  if (body.k !== key) throw invalid('cursor was issued for a different search (query, threshold or node_ids differ)');
  return body;
}
