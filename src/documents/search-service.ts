// Search over a board's chunks, in three modes (docs/documents.md#search-modes):
// - `vector` (default): cosine similarity between the query's and the chunk's embedding, compared
//   only with chunks embedded by the configured model. With the local model both are sparse term
//   vectors (src/documents/lexical.ts) and the board is scanned exactly; with a dense model, small
//   (at most SEARCH_EXACT_MAX_CHUNKS) and selective (under a fifth of the model's chunks, up to
//   20,000) candidate sets are scanned exactly and larger ones go through the model's HNSW index
//   with an iterative scan (pgvector 0.8+), falling back to the exact scan when it gives up first.
// - `keyword`: Okapi BM25 over the chunks' own words (any model), IDF from the board's statistics;
//   `score` is the BM25 score as a share of the highest the query could reach, so 0..1.
// - `hybrid`: reciprocal rank fusion (k = 60) of the first HYBRID_DEPTH chunks of both; `score` is
//   the fused score over its maximum, so 1 is a chunk first in both.
// `threshold` applies to each mode's score. The ranked modes are keyset-paginated on (ranking key,
// id); hybrid pages by offset within its fused list.
import { createHash } from 'node:crypto';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/schema.js';
import type { Principal } from '../auth/principal.js';
import { boardVisibleTo } from '../access/board-access.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { ProviderError } from '../providers/provider-error.js';
import { isUuid } from '../lib/ids.js';
import { LOCAL_MODEL, type DenseEmbedder, type Embedder } from '../providers/embeddings/embedder.js';
import { knownIndexInfo, type ChunkIndexInfo } from './chunk-index.js';
import { intArrayLiteral, vectorLiteral, visibleChunk } from './chunk-store.js';
import type { ChunkMetadata, Hit, SearchMode } from '../contract/documents.js';
import {
  embeddingTermBounds,
  keywordTermBounds,
  maxKeywordScore,
  queryTermIds,
  parseSparse,
  type Sparse,
  type TermStats,
} from './lexical.js';
import { queueReembed, staleBoard } from './reembed.js';
import { candidateRule, isEmptyRule, seedTerms, type CandidateRule } from './term-pruning.js';
import { termStatsOf, termStatsQuery } from './term-stats.js';
import { lexicalStep, type LexicalStepColumns } from './seed-step.js';

/**
 * Up to this many candidate chunks an exact scan is about as fast as the index on the embedded
 * database (rows are stored uncompressed; see BENCHMARKS.md) and exact; SEARCH_EXACT_MAX_CHUNKS.
 */
export const DEFAULT_EXACT_MAX_CHUNKS = 3000;
/** Candidates kept per index scan: pgvector's maximum, the setting the recall in BENCHMARKS.md ("Search quality") was measured with. */
const HNSW_EF_SEARCH = 1000;
/** Where an iterative index scan gives up (then the exact scan answers). */
const HNSW_MAX_SCAN_TUPLES = 20_000;
/** A candidate set under this share of the model's chunks, and at most SELECTIVE_EXACT_MAX, is scanned exactly. */
const SELECTIVE_SHARE = 0.2;
const SELECTIVE_EXACT_MAX = 20_000;
/** Reciprocal rank fusion: the constant of Cormack et al., and how deep each ranking is read. */
export const RRF_K = 60;
/**
 * Part of every cursor's binding: changes when a ranking key changes meaning (2: the local model's
 * key became a negated inner product; 3: the lexical query vectors are PostgreSQL's, seed-step.ts).
 */
const CURSOR_VERSION = 3;
export const HYBRID_DEPTH = 200;

/** Live chunks of a model on all boards: one small aggregate over chunk_sets (a row per vectorized text). */
async function modelTotal(db: Db, model: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`SELECT coalesce(sum(chunks), 0)::int AS n FROM chunk_sets WHERE model = ${model} AND state = 'live'`.execute(db);
  return rows[0]!.n;
}

/** A board's live chunks, from its sets' counts (a row per set: only for a board that needs re-embedding). */
async function liveChunks(db: Db, boardId: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`SELECT coalesce(sum(chunks), 0)::int AS n FROM chunk_sets WHERE board_id = ${boardId} AND state = 'live'`.execute(db);
  return rows[0]!.n;
}

export interface SearchDeps {
  db: Db;
  embedder: Embedder;
  index?: ChunkIndexInfo;
  exactMaxChunks?: number;
}

export interface SearchOptions {
  mode?: SearchMode;
  limit: number;
  threshold?: number;
  nodeIds?: string[];
  cursor?: string;
}

/** A ranked mode's cursor: the last row's ranking key and id. Hybrid's: the offset in the fused list. */
type Cursor = { v: 1; k: string; d: number; i: string } | { v: 1; k: string; o: number };
type Keyset = { d: number; i: string };

/** A chunk in a ranking: `key` ascending is the ranking (a distance, or a negated score). */
type Row = { id: string; content: string; node_id: string | null; metadata: ChunkMetadata; key: number };

interface Ranking {
  db: Db;
  boardId: string;
  nodeIds?: string[];
  limit: number;
  after?: Keyset;
  /** Score every candidate chunk (a small set) instead of looking them up in an index. */
  scan: boolean;
  /** The seed step's terms and first `limit + 1` rows, run with the term statistics (seed-step.ts). */
  seeded?: { terms: number[]; rows: Row[] };
}

/** A query vector: pgvector's text of it (what the statements rank with) and its weights. */
interface QueryVector {
  text: string;
  weights: Sparse;
}

/**
 * The query's lexical vectors, as the statistics statement made them (seed-step.ts): IDF weights
 * (keyword search) and the same at unit length (the local model); none where the board holds none
 * of the query's terms. And the board statistics they were made with.
 */
interface LexicalQuery {
  idf?: QueryVector;
  unit?: QueryVector;
  stats: TermStats;
}

/** Searches a board's chunks; no access checks (callers check the board first). */
export async function searchBoardChunks(
  deps: SearchDeps,
  boardId: string,
  query: string,
  options: Omit<SearchOptions, 'cursor'>,
): Promise<Hit[]> {
  return (await searchChunksPage(deps, boardId, query, options)).data;
}

/**
 * One page of a search. With `viewer`, the board must be one the viewer may read (404 otherwise),
 * checked in the same statement that reads the candidate count and the term statistics; without
 * it, the caller has checked.
 */
export async function searchChunksPage(
  deps: SearchDeps,
  boardId: string,
  query: string,
  options: SearchOptions,
  viewer?: Principal,
): Promise<{ data: Hit[]; has_more: boolean; cursor: string | null }> {
  const { db, embedder } = deps;
  const mode = options.mode ?? 'vector';
  const threshold = options.threshold ?? 0;
  const nodeIds = options.nodeIds && options.nodeIds.length > 0 ? [...new Set(options.nodeIds)] : undefined;

  // The candidate count picks exact or index: the board's live chunks are its term statistics' count
  // (term 0, read with the query's terms), a node filter's the sum of those nodes' sets. A board
  // that still has live sets of another model, or without term counts (written before keyword
  // search), gets a re-embed job; its candidates are then counted from its sets. Neither reads
  // a row per set: a board of 10,000 notes has 10,000 sets (chunk_sets_live_model_idx, 0026).
  // (The node filter's live state is an aggregate FILTER, not a condition: the planner without
  // statistics took `state = 'live'` for a rare value and read the partial live-set indexes whole.)
  // Every mode but a dense model's vector search needs the query terms' statistics: read alongside.
  const termIds = mode !== 'vector' || embedder.kind === 'lexical' ? queryTermIds(query) : [];
  // With the statistics come the query's lexical vectors and, for a first page of a lexical ranking
  // through the term index, its seed step (seed-step.ts).
  const exactMax = deps.exactMaxChunks ?? DEFAULT_EXACT_MAX_CHUNKS;
  const seedMode =
    options.cursor === undefined && ((mode === 'keyword' && threshold <= 0) || (mode === 'vector' && embedder.kind === 'lexical'))
      ? mode
      : undefined;
  const step = lexicalStep({
    boardId,
    termIds,
    seed: seedMode && {
      mode: seedMode,
      k: options.limit + 1,
      // The page's bound on the key, as lexicalRank and keywordRank set it (a keyword search with a
      // threshold, whose bound follows the query's highest score, runs its seed step on its own).
      maxKey: seedMode === 'vector' ? -threshold : -NO_MATCH,
      nodeIds,
      when: (chunks) => sql<boolean>`v.visible AND NOT v.stale AND coalesce(v.candidates, ${chunks}) > ${exactMax}`,
    },
  });
  const { rows: found } = await sql<
    { visible: boolean; candidates: number | null; stale: boolean; terms: number[]; dfs: number[] } & LexicalStepColumns
  >`
    WITH v AS MATERIALIZED (
      SELECT ${viewer ? boardVisibleTo(viewer, boardId) : sql`true`} AS visible,
        ${nodeIds ? sql`(SELECT coalesce(sum(chunks) FILTER (WHERE state = 'live'), 0)::int FROM chunk_sets WHERE ${boardOrNodes(boardId, nodeIds)})` : sql`NULL::int`} AS candidates,
        ${staleBoard(boardId, embedder.model)} AS stale
    )
    SELECT v.visible, v.candidates, v.stale, t.terms, t.dfs, s.unit_vector, s.idf_vector, s.seed_terms, s.seed_rows
    FROM v CROSS JOIN (${termStatsQuery(boardId, termIds)}) AS t
    LEFT JOIN LATERAL ${step} AS s ON true`.execute(db);
  const { visible, stale, terms, dfs } = found[0]!;
  if (!visible) throw notFound('Board');
  // The cursor is bound to everything that shapes the ranking.
  const key = createHash('sha256')
    .update(JSON.stringify([CURSOR_VERSION, boardId, query, threshold, nodeIds?.slice().sort() ?? null, embedder.model, mode]))
    .digest('base64url')
    .slice(0, 22);
  const after = options.cursor === undefined ? undefined : readCursor(options.cursor, key, mode);
  if (stale) await queueReembed(db, boardId);
  const termStats = termStatsOf(terms, dfs);
  const candidates = found[0]!.candidates ?? (stale ? await liveChunks(db, boardId) : termStats.chunks);
  if (candidates === 0) return { data: [], has_more: false, cursor: null };
  const { unit_vector: unitText, idf_vector: idfText, seed_terms: seedTermIds, seed_rows: seedRows } = found[0]!;
  const lexical: LexicalQuery = {
    idf: idfText ? { text: idfText, weights: parseSparse(idfText) } : undefined,
    unit: unitText ? { text: unitText, weights: parseSparse(unitText) } : undefined,
    stats: termStats,
  };
  const seeded =
    seedTermIds && seedRows
      ? { terms: seedTermIds, rows: seedRows.map((r) => ({ ...r, metadata: r.metadata as ChunkMetadata })) }
      : undefined;

  // Small candidate sets are scanned exactly; larger ones go through the term index (lexical) or
  // the model's HNSW index (dense).
  const rank = (m: 'vector' | 'keyword', limit: number, after?: Keyset, minScore = threshold) => {
    const r: Ranking = { db, boardId, nodeIds, limit, after, scan: candidates <= exactMax, seeded: m === seedMode ? seeded : undefined };
    if (m === 'keyword') return keywordRank(r, lexical, minScore);
    return embedder.kind === 'dense' ? denseRank(deps, embedder, r, query, minScore, candidates) : lexicalRank(r, lexical, minScore);
  };

  if (mode === 'hybrid') {
    const offset = after && 'o' in after ? after.o : 0;
    const [byVector, byKeyword] = await Promise.all([
      rank('vector', HYBRID_DEPTH, undefined, -1),
      rank('keyword', HYBRID_DEPTH, undefined, -1),
    ]);
    const fused = fuse([byVector.rows, byKeyword.rows]).filter((h) => h.score >= threshold);
    const page = fused.slice(offset, offset + options.limit);
    const has_more = fused.length > offset + options.limit;
    return { data: page, has_more, cursor: has_more ? writeCursor({ v: 1, k: key, o: offset + options.limit }) : null };
  }

  const { rows, score } = await rank(mode, options.limit, after && 'd' in after ? after : undefined);
  const has_more = rows.length > options.limit;
  const page = has_more ? rows.slice(0, options.limit) : rows;
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({ id: r.id, content: r.content, node_id: r.node_id, metadata: r.metadata, score: score(r.key) })),
    has_more,
    cursor: has_more && last ? writeCursor({ v: 1, k: key, d: last.key, i: last.id }) : null,
  };
}

/** Up to `limit + 1` rows in ranking order, and how a row's key becomes its score. */
interface Ranked {
  rows: Row[];
  score: (key: number) => number;
}

const cosineScore = (distance: number) => 1 - distance;
/** A negated inner product (pgvector's `<#>`) as a score. */
const innerScore = (key: number) => -key;
/** The local model's ranking key of a chunk that shares no term with the query (cosine 0). */
const NO_TERM_KEY = sql<number>`0::float8`;
/** Keyword scores at most this small are no match (a term in every chunk of a million still scores more). */
const NO_MATCH = 1e-12;

/** Only chunks (or sets) of these nodes, when given. */
const nodeFilter = (nodeIds?: string[]) => (nodeIds ? sql`AND node_id = ANY(${nodeIds}::uuid[])` : sql``);

/**
 * The board's chunks (or sets), or only those of these nodes: then a condition on node_id alone, the
 * ids first kept to the board's nodes (a node of another board matches nothing). Beside an
 * indexable `board_id = …`, a planner without statistics (the embedded database) read the board's
 * index too (every chunk or live set of the board) and combined it with the node's.
 */
const boardOrNodes = (boardId: string, nodeIds?: string[]) =>
  nodeIds
    ? sql<SqlBool>`node_id = ANY(ARRAY(SELECT id FROM nodes WHERE board_id = ${boardId} AND id = ANY(${nodeIds}::uuid[])))`
    : sql<SqlBool>`board_id = ${boardId}`;

/** The keyset condition after the previous page's last row. */
const keysetAfter = (keyExpr: RawBuilder<number>, after?: Keyset) =>
  after ? sql`AND (${keyExpr} > ${after.d} OR (${keyExpr} = ${after.d} AND id > ${after.i}::uuid))` : sql``;

/**
 * Runs one exact ranking over the board's visible chunks: `keyExpr` ascending, rows whose key is at
 * most `maxKey` (and, where `model` is given, of that model only).
 */
async function scanRank(
  r: Ranking,
  keyExpr: RawBuilder<number>,
  maxKey: number,
  model?: string,
  filter?: RawBuilder<SqlBool>,
): Promise<Row[]> {
  const modelFilter = model === undefined ? sql`` : sql`model = ${sql.lit(model)} AND`;
  const { rows } = await sql<Row>`
    SELECT id, content, node_id, metadata, ${keyExpr} AS key FROM document_chunks
    WHERE ${modelFilter} ${boardOrNodes(r.boardId, r.nodeIds)} AND ${visibleChunk(r.boardId)}
      ${filter ? sql`AND ${filter}` : sql``} AND ${keyExpr} <= ${maxKey} ${keysetAfter(keyExpr, r.after)}
    ORDER BY key, id LIMIT ${r.limit + 1}`.execute(r.db);
  return rows;
}

/**
 * scanRank over the chunks that `match` finds in the term index. The lookup is a materialized CTE
 * whose only indexable condition is the index's, so the plan never depends on statistics (the
 * embedded database never gathers any, and PostgreSQL's may lag a large import): without them the
 * planner could prefer walking the whole board through its btree. The CTE carries ids and keys
 * only; the page's rows then bring their content.
 */
async function indexRank(
  r: Ranking,
  keyExpr: RawBuilder<number>,
  maxKey: number,
  model: string | undefined,
  match: RawBuilder<SqlBool>,
): Promise<Row[]> {
  const modelFilter = model === undefined ? sql`` : sql`AND model = ${sql.lit(model)}`;
  const key = sql<number>`key`;
  const { rows } = await sql<Row>`
    WITH found AS MATERIALIZED (
      SELECT id, board_id, node_id, ${keyExpr} AS key FROM document_chunks
      WHERE ${match} ${modelFilter} AND ${visibleChunk(r.boardId)}
    )
    SELECT c.id, c.content, c.node_id, c.metadata, top.key FROM (
      SELECT id, key FROM found
      WHERE board_id = ${r.boardId} ${nodeFilter(r.nodeIds)} AND key <= ${maxKey} ${keysetAfter(key, r.after)}
      ORDER BY key, id LIMIT ${r.limit + 1}
    ) AS top JOIN document_chunks c ON c.id = top.id
    ORDER BY top.key, top.id`.execute(r.db);
  return rows;
}

/** A chunk's terms as keys of the term index (migration 0008). */
const chunkTermKeys = sql`chunk_term_keys(board_id, term_ids)`;

/**
 * A board's term ids as the term index's keys, what `chunk_term_keys` makes of them (the board id's
 * last 32 bits, signed, above the term), as an int8[] literal. Computed here rather than by the
 * function so that the planner gets constants: folding the function's calls took about half of a
 * candidate lookup's planning time.
 */
export function termKeysLiteral(boardId: string, ids: number[]): string {
  const high = BigInt.asIntN(32, BigInt(`0x${boardId.slice(-8)}`)) << 32n;
  return `{${ids.map((t) => String(high | BigInt(t))).join(',')}}`;
}
const termKeys = (boardId: string, ids: number[]) => sql`${termKeysLiteral(boardId, ids)}::int8[]`;

/** Chunks holding one of the terms (through the term index). */
const holdsAny = (boardId: string, ids: number[]) =>
  ids.length === 0 ? sql<SqlBool>`false` : sql<SqlBool>`${chunkTermKeys} && ${termKeys(boardId, ids)}`;

function candidateMatch(boardId: string, rule: CandidateRule): RawBuilder<SqlBool> {
  const parts = [
    ...(rule.any.length > 0 ? [holdsAny(boardId, rule.any)] : []),
    ...rule.pairs.map((p) => sql<SqlBool>`(${chunkTermKeys} @> ${termKeys(boardId, [p.term])} AND ${holdsAny(boardId, p.with)})`),
  ];
  return parts.length === 0 ? sql<SqlBool>`false` : sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

/** A lexical ranking: its key expression and bound, how a key reads in the units of the term bounds, and those bounds. */
interface TermRanking {
  keyExpr: RawBuilder<number>;
  maxKey: number;
  model?: string;
  value: (key: number) => number;
  bounds: Map<number, number>;
}

/**
 * The first `limit + 1` chunks of a lexical ranking: every chunk scored on small sets, otherwise
 * the two index steps of term-pruning.ts (seed, then the candidates whose terms' bounds can still
 * reach the seed's k-th score or the threshold).
 */
async function termRank(r: Ranking, t: TermRanking, stats: TermStats): Promise<Row[]> {
  const { keyExpr, maxKey, model } = t;
  if (r.scan) return scanRank(r, keyExpr, maxKey, model);
  const terms = [...t.bounds].map(([id, bound]) => ({ id, bound, df: stats.df.get(id) ?? 0 }));
  const k = r.limit + 1;
  const seed = seedTerms(terms, k, stats.chunks);
  const seeded =
    r.seeded && sameTerms(r.seeded.terms, seed) ? r.seeded.rows : await indexRank(r, keyExpr, maxKey, model, holdsAny(r.boardId, seed));
  const theta = Math.max(seeded.length >= k ? t.value(seeded[k - 1]!.key) : 0, t.value(maxKey));
  const rest = candidateRule(terms, theta, stats.chunks, seed);
  if (isEmptyRule(rest)) return seeded;
  // The seed's first k are the first of everything it scored; merged with the rest's first k.
  const more = await indexRank(r, keyExpr, maxKey, model, candidateMatch(r.boardId, rest));
  const merged = new Map([...seeded, ...more].map((row) => [row.id, row]));
  return [...merged.values()].sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : 1)).slice(0, k);
}

const sameTerms = (a: number[], b: number[]) => a.length === b.length && [...b].sort((x, y) => x - y).every((id, i) => id === a[i]);

/**
 * BM25: the inner product of the chunk's keywords with the query's IDF vector (pgvector's `<#>` is
 * its negative, the ranking key). Only chunks holding a query term match.
 */
async function keywordRank(r: Ranking, lexical: LexicalQuery, minScore: number): Promise<Ranked> {
  const { idf, stats } = lexical;
  const q = idf?.weights ?? new Map<number, number>();
  const max = maxKeywordScore(q);
  const score = (key: number) => (max > 0 ? -key / max : 0);
  if (!idf) return { rows: [], score };
  const keyExpr = sql<number>`(keywords <#> ${idf.text}::sparsevec)`;
  // A match has a positive score; a threshold above 0 raises the bar.
  const maxKey = minScore > 0 ? -minScore * max : -NO_MATCH;
  const rows = await termRank(r, { keyExpr, maxKey, value: innerScore, bounds: keywordTermBounds(q) }, stats);
  return { rows, score };
}

/**
 * The local model: the cosine between the unit query and the chunk's unit embedding, their inner
 * product (pgvector's `<#>` is its negative, the ranking key). A chunk that shares no term with the
 * query has cosine 0 (as does every chunk for a query of words the board has never seen).
 */
async function lexicalRank(r: Ranking, lexical: LexicalQuery, minScore: number): Promise<Ranked> {
  const { unit, stats } = lexical;
  const q = unit?.weights ?? new Map<number, number>();
  const maxKey = -minScore;
  const keyExpr = unit ? sql<number>`(sparse_embedding <#> ${unit.text}::sparsevec)` : NO_TERM_KEY;
  if (!unit || r.scan) return { rows: await scanRank(r, keyExpr, maxKey, LOCAL_MODEL), score: innerScore };
  const rows = await termRank(r, { keyExpr, maxKey, model: LOCAL_MODEL, value: innerScore, bounds: embeddingTermBounds(q) }, stats);
  // The chunks holding no query term (cosine 0) come after every match, in id order, as in the scan.
  if (rows.length <= r.limit && maxKey >= 0) {
    const rest = { ...r, limit: r.limit - rows.length };
    // (Tested on the column itself: a NOT cannot use the index, and the key function costs per row.)
    rows.push(
      ...(await scanRank(
        rest,
        NO_TERM_KEY,
        maxKey,
        LOCAL_MODEL,
        sql<SqlBool>`NOT (term_ids && ${intArrayLiteral([...q.keys()])}::int4[])`,
      )),
    );
  }
  return { rows, score: innerScore };
}

async function denseRank(
  deps: SearchDeps,
  embedder: DenseEmbedder,
  r: Ranking,
  query: string,
  minScore: number,
  candidates: number,
): Promise<Ranked> {
  let vector: number[];
  try {
    [vector] = (await embedder.embed([query])) as [number[]];
  } catch (error) {
    if (error instanceof ApiError || error instanceof ProviderError) throw error;
    throw new ApiError('upstream_error', 'The embedding provider failed');
  }
  const maxDistance = 1 - minScore;
  const exact =
    !(deps.index ?? knownIndexInfo)?.iterativeScan ||
    (await prefersExactScan(candidates, deps.exactMaxChunks ?? DEFAULT_EXACT_MAX_CHUNKS, () => modelTotal(r.db, embedder.model)));
  if (!exact) {
    const rows = await indexSearch(r.db, {
      boardId: r.boardId,
      vector,
      dims: embedder.dimensions,
      model: embedder.model,
      nodeIds: r.nodeIds,
      after: r.after,
      limit: r.limit,
    });
    // Fewer rows than asked: the scan gave up (hnsw.max_scan_tuples) before the filter let
    // enough through. The exact scan settles it.
    if (rows.length > r.limit) return { rows: rows.filter((row) => row.key <= maxDistance), score: cosineScore };
  }
  // The plain `embedding` column (no cast) does not match the index expression: an exact scan.
  // `model` is tested first, so the distance is only computed on vectors of this model's size.
  const keyExpr = sql<number>`(embedding <=> ${vectorLiteral(vector)}::vector)`;
  return { rows: await scanRank(r, keyExpr, maxDistance, embedder.model), score: cosineScore };
}

/**
 * Reciprocal rank fusion: each chunk scores the sum of 1 / (RRF_K + rank) over the rankings that
 * hold it, divided by the most it could reach (first everywhere); ties go to the lower id.
 */
export function fuse(rankings: Row[][]): Hit[] {
  const fused = new Map<string, Hit>();
  for (const rows of rankings) {
    rows.forEach((row, i) => {
      const hit = fused.get(row.id) ?? { id: row.id, content: row.content, node_id: row.node_id, metadata: row.metadata, score: 0 };
      hit.score += 1 / (RRF_K + i + 1);
      fused.set(row.id, hit);
    });
  }
  const best = rankings.length / (RRF_K + 1);
  return [...fused.values()].map((h) => ({ ...h, score: h.score / best })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
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
  s: {
    boardId: string;
    vector: number[];
    dims: number;
    model: string;
    nodeIds?: string[];
    after?: Keyset;
    limit: number;
    efSearch?: number;
  },
): Promise<Row[]> {
  const dims = sql.lit(s.dims);
  const distance = sql<number>`(embedding::vector(${dims}) <=> ${vectorLiteral(s.vector)}::vector(${dims}))`;
  const rows = await db.transaction().execute(async (trx) => {
    // Without statistics (PGlite never runs autovacuum) the planner may prefer a sequential scan
    // and a sort; this query is only sent when the index is the right plan.
    await sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(Math.max(s.efSearch ?? HNSW_EF_SEARCH, s.limit + 1))}, true),
      set_config('hnsw.max_scan_tuples', ${String(HNSW_MAX_SCAN_TUPLES)}, true), set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true)`.execute(
      trx,
    );
    const result = await sql<Row>`
      SELECT id, content, node_id, metadata, ${distance} AS key FROM document_chunks
      WHERE model = ${sql.lit(s.model)} AND board_id = ${s.boardId} ${nodeFilter(s.nodeIds)} AND ${visibleChunk(s.boardId)} ${keysetAfter(distance, s.after)}
      ORDER BY ${distance} LIMIT ${s.limit + 1}`.execute(trx);
    return result.rows;
  });
  return rows.sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : 1));
}

const writeCursor = (c: Cursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

function readCursor(raw: string, key: string, mode: SearchMode): Cursor {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw invalid('cursor is not a valid cursor');
  }
  const ranked = typeof body?.d === 'number' && Number.isFinite(body.d) && typeof body.i === 'string' && isUuid(body.i);
  const offset = typeof body?.o === 'number' && Number.isInteger(body.o) && body.o > 0;
  if (typeof body !== 'object' || body === null || body.v !== 1 || typeof body.k !== 'string' || !(mode === 'hybrid' ? offset : ranked)) {
    throw invalid('cursor is not a valid cursor');
  }
  if (body.k !== key) throw invalid('cursor was issued for a different search (query, mode, threshold or node_ids differ)');
  return body as Cursor;
}
