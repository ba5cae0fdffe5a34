// The seed step of top-k search through the term index (term-pruning.ts), folded into the statement
// that reads the board's term statistics: one round trip and one planned statement fewer per search.
// The statement chooses the seed terms as seedTerms does (the rarest, by the same integer rule),
// builds the query vector from the statistics it has just read (IDF, scaled to unit length for the
// local model's cosine), and scores the seed terms' chunks with it. That vector is computed by
// PostgreSQL rather than by lexical.ts: a weight may differ from the service's in its last float4
// step, so no score of this statement is ever returned. What the service takes from it is the
// k-th key (θ, lowered by SEED_MARGIN, a floor for the candidate step) and the ids of the seed chunks
// near or above it, which the candidate step scores again with the service's vector, together with
// the candidates: every row of a page is scored as the exact scan scores it.
import { sql, type RawBuilder } from 'kysely';
import { LOCAL_MODEL } from '../providers/embeddings/embedder.js';
import { visibleChunk } from './chunk-store.js';
import { SPARSE_DIMENSIONS } from './lexical.js';
import { SEED_CHUNKS, SEED_SHARE } from './term-pruning.js';

/**
 * How far two computations of a score can differ, as a share of the score: a weight rounded to float4
 * from PostgreSQL's double rather than from lexical.ts's 7 digits differs by at most a step or two
 * (about 2e-7 of itself), and every term adds a positive share. Fifty times that.
 */
export const SEED_MARGIN = 1e-5;
/** Seed chunks returned beyond the k-th: room for those that tie it within the margin. */
export const SEED_EXTRA = 20;

/** What the folded seed step found: the seed terms it chose, and its best chunks by its own keys. */
export interface SeedStep {
  terms: number[];
  ids: string[];
  keys: number[];
}

export type SeedMode = 'vector' | 'keyword';

/**
 * A LATERAL subquery of one row (`seed_terms`, `seed_ids`, `seed_keys`: nulls when `when` is false):
 * the seed step of a `mode` search for `termIds` on the board (or its nodes `nodeIds`), its first
 * k + SEED_EXTRA chunks in key order.
 */
export function seedStepQuery(s: {
  boardId: string;
  termIds: number[];
  nodeIds?: string[];
  k: number;
  mode: SeedMode;
  when: RawBuilder<boolean>;
}): RawBuilder<unknown> {
  const { boardId, k, mode } = s;
  const weight = mode === 'vector' ? sql`idf / sqrt(sum(idf * idf) OVER ())` : sql`idf`;
  const keyExpr = mode === 'vector' ? sql`(c.sparse_embedding <#> w.qv)` : sql`(c.keywords <#> w.qv)`;
  const modelFilter = mode === 'vector' ? sql`AND c.model = ${sql.lit(LOCAL_MODEL)}` : sql``;
  const nodeFilter = s.nodeIds ? sql`AND f.node_id = ANY(${s.nodeIds}::uuid[])` : sql``;
  return sql`(
    SELECT w.terms AS seed_terms,
      coalesce(array_agg(top.id ORDER BY top.key, top.id) FILTER (WHERE top.id IS NOT NULL), '{}') AS seed_ids,
      coalesce(array_agg(top.key ORDER BY top.key, top.id) FILTER (WHERE top.id IS NOT NULL), '{}') AS seed_keys
    FROM (
      SELECT array_agg(term ORDER BY term) FILTER (WHERE seed) AS terms,
        ('{' || string_agg(term || ':' || weight, ',' ORDER BY term) || '}/' || ${sql.lit(SPARSE_DIMENSIONS)})::sparsevec AS qv
      FROM (
        SELECT term, ${weight} AS weight, NOT (upto - df >= ${4 * k} AND upto > least(${sql.lit(SEED_CHUNKS)}::float8, ${sql.lit(SEED_SHARE)}::float8 * chunks)) AS seed
        FROM (
          SELECT b.term, b.df, n.df AS chunks, ln(1::float8 + (n.df - b.df + 0.5::float8) / (b.df + 0.5::float8)) AS idf,
            sum(b.df) OVER (ORDER BY b.df, b.term ROWS UNBOUNDED PRECEDING) AS upto
          FROM board_terms b JOIN board_terms n ON n.board_id = b.board_id AND n.term = 0
          WHERE b.board_id = ${boardId} AND b.term = ANY(${s.termIds}::int4[]) AND b.df > 0 AND ${s.when}
        ) AS x
      ) AS y
      HAVING count(*) > 0
    ) AS w
    LEFT JOIN LATERAL (
      SELECT f.id, f.key FROM (
        SELECT c.id, c.board_id, c.node_id, ${keyExpr} AS key FROM document_chunks c
        WHERE chunk_term_keys(c.board_id, c.term_ids) && chunk_term_keys(${boardId}::uuid, w.terms) ${modelFilter} AND ${visibleChunk(boardId)}
        OFFSET 0
      ) AS f
      WHERE f.board_id = ${boardId} ${nodeFilter}
      ORDER BY f.key, f.id LIMIT ${k + SEED_EXTRA}
    ) AS top ON true
    GROUP BY w.terms
  )`;
}
