// Semantic search over a board's chunks: the query is embedded with the configured model and
// compared (cosine) only with chunks embedded by that same model, in live sets. Small candidate sets
// (a board or a few nodes with at most SEARCH_EXACT_MAX_CHUNKS chunks), and selective ones (under a
// fifth of the model's chunks, up to 20,000) are scanned exactly; larger ones use the model's HNSW
// index with an iterative scan (pgvector 0.8+), so a filter still yields `limit` rows, and fall back
// to the exact scan when the index scan gives up first.
// Results are keyset-paginated on (distance, id).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import { ApiError, invalid } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { knownIndexInfo, type ChunkIndexInfo } from './chunk-index.js';
import { vectorLiteral, visibleChunk, type ChunkMetadata } from './chunk-store.js';
import { queueReembed } from './reembed.js';

/**
 * Up to this many candidate chunks an exact scan is about as fast as the index on the embedded
 * database (rows are stored uncompressed; see BENCHMARKS.md) and exact; SEARCH_EXACT_MAX_CHUNKS.
 */
export const DEFAULT_EXACT_MAX_CHUNKS = 3000;
/** Candidates kept per index scan: pgvector's maximum, the setting the recall in BENCHMARKS.md was measured with. */
const HNSW_EF_SEARCH = 1000;
/** Where an iterative index scan gives up (then the exact scan answers). */
const HNSW_MAX_SCAN_TUPLES = 20_000;
/** A candidate set under this share of the model's chunks, and at most SELECTIVE_EXACT_MAX, is scanned exactly. */
const SELECTIVE_SHARE = 0.2;
const SELECTIVE_EXACT_MAX = 20_000;

/** Live chunks of a model on all boards: one small aggregate over chunk_sets (a row per vectorized text). */
async function modelTotal(db: Db, model: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT coalesce(sum(chunks), 0)::int AS n FROM chunk_sets WHERE model = ${model} AND state = 'live'`.execute(db);
  return rows[0]!.n;
}

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
  const nodeFilter = nodeIds ? sql`AND node_id = ANY(${nodeIds}::uuid[])` : sql``;
  const maxDistance = 1 - threshold;

  // The candidate count (from the sets' counts, so nothing is scanned) picks exact or index; a
  // board that still has chunks of another model gets a re-embed job.
  const { rows: stats } = await sql<{ candidates: number; stale: boolean }>`
    SELECT coalesce(sum(chunks), 0)::int AS candidates, coalesce(bool_or(model <> ${embedder.model}), false) AS stale
    FROM chunk_sets WHERE board_id = ${boardId} AND state = 'live' ${nodeFilter}`.execute(db);
  const { candidates, stale } = stats[0]!;
  if (stale) await queueReembed(db, boardId);
  if (candidates === 0) return { data: [], has_more: false, cursor: null };

  const exact =
    !(deps.index ?? knownIndexInfo)?.iterativeScan ||
    (await prefersExactScan(candidates, deps.exactMaxChunks ?? DEFAULT_EXACT_MAX_CHUNKS, () => modelTotal(db, embedder.model)));
  let rows: Row[] | undefined;
  if (!exact) {
    rows = await indexSearch(db, { boardId, vector, dims: embedder.dimensions, model: embedder.model, nodeIds, after, limit: options.limit });
    // Fewer rows than asked: the scan gave up (hnsw.max_scan_tuples) before the filter let
    // enough through. The exact scan settles it.
    if (rows.length <= options.limit) rows = undefined;
    else rows = rows.filter((r) => r.distance <= maxDistance);
  }
  if (!rows) {
    // The plain `embedding` column (no cast) does not match the index expression: an exact scan.
    // `model` is tested first, so the distance is only computed on vectors of this model's size.
    const distance = sql`(embedding <=> ${q}::vector)`;
    const keyset = after ? sql`AND (${distance} > ${after.d} OR (${distance} = ${after.d} AND id > ${after.i}::uuid))` : sql``;
    ({ rows } = await sql<Row>`
      SELECT id, content, node_id, metadata, ${distance} AS distance FROM document_chunks
      WHERE model = ${model} AND board_id = ${boardId} ${nodeFilter} AND ${visibleChunk(boardId)}
        AND ${distance} <= ${maxDistance} ${keyset}
      ORDER BY distance, id LIMIT ${options.limit + 1}`.execute(db));
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

/**
 * Whether `candidates` chunks are better scanned exactly than through the index: a small set (at most
 * `exactMax`), or a selective one (a node, or a small board, under a fifth of the model's chunks and
 * at most SELECTIVE_EXACT_MAX): the index's cost follows the whole index and most of what it visits
 * would be filtered away, so the exact scan is faster there as well as exact. `exactMax` 0 turns
 * both off (the index whenever pgvector can iterate). `modelTotal` is only asked when it matters.
 */
export async function prefersExactScan(candidates: number, exactMax: number, modelTotal: () => Promise<number>): Promise<boolean> {
  if (candidates <= exactMax) return true;
  if (exactMax === 0 || candidates > SELECTIVE_EXACT_MAX) return false;
  return candidates < SELECTIVE_SHARE * (await modelTotal());
}

type Row = { id: string; content: string; node_id: string | null; metadata: ChunkMetadata; distance: number };

/**
 * The nearest `limit + 1` rows through the model's HNSW index, whatever their score (the threshold
 * is applied by the caller: as a filter here it would make the scan run on to max_scan_tuples
 * whenever fewer rows pass it). Iterative scanning continues past rows the filters drop, so a
 * selective filter (one node of a large board) still fills the page; `relaxed_order` may return
 * rows slightly out of order, so they are sorted again. (Exported for the tests, which check it
 * without the exact fallback.)
 */
export async function indexSearch(
  db: Db,
  s: { boardId: string; vector: number[]; dims: number; model: string; nodeIds?: string[]; after?: Cursor; limit: number; efSearch?: number },
): Promise<Row[]> {
  const dims = sql.lit(s.dims);
  const distance = sql`(embedding::vector(${dims}) <=> ${vectorLiteral(s.vector)}::vector(${dims}))`;
  const nodeFilter = s.nodeIds ? sql`AND node_id = ANY(${s.nodeIds}::uuid[])` : sql``;
  const keyset = s.after ? sql`AND (${distance} > ${s.after.d} OR (${distance} = ${s.after.d} AND id > ${s.after.i}::uuid))` : sql``;
  const rows = await db.transaction().execute(async (trx) => {
    // Without statistics (PGlite never runs autovacuum) the planner may prefer a sequential scan
    // and a sort; this query is only sent when the index is the right plan.
    await sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(Math.max(s.efSearch ?? HNSW_EF_SEARCH, s.limit + 1))}, true),
      set_config('hnsw.max_scan_tuples', ${String(HNSW_MAX_SCAN_TUPLES)}, true), set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true)`.execute(trx);
    const result = await sql<Row>`
      SELECT id, content, node_id, metadata, ${distance} AS distance FROM document_chunks
      WHERE model = ${sql.lit(s.model)} AND board_id = ${s.boardId} ${nodeFilter} AND ${visibleChunk(s.boardId)} ${keyset}
      ORDER BY ${distance} LIMIT ${s.limit + 1}`.execute(trx);
    return result.rows;
  });
  return rows.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
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
