// The query's lexical vectors, and the seed step of top-k search through the term index
// (term-pruning.ts), in the statement that reads the board's term statistics: a search through the
// index is one statement when the seed settles its page, two otherwise (it was two and three).
// The statement builds the query vectors from the statistics it has just read (BM25's IDF per term,
// and the same scaled to unit length for the local model's cosine), as pgvector sparsevecs, and
// returns them as text: the service ranks with those very vectors in every later statement of the
// search (and of its later pages: the same statistics give the same vectors), and reads the bounds
// of term-pruning.ts from them. So the seed's rows, scored here, are ranked exactly as every other
// row of the search, by the exact scan as by the index. The seed terms are chosen as seedTerms
// chooses them (the rarest, by the same integer rule); the service checks that it chose the same.
import { sql, type RawBuilder } from 'kysely';
import { LOCAL_MODEL } from '../providers/embeddings/embedder.js';
import { visibleChunk } from './chunk-store.js';
import { SPARSE_DIMENSIONS } from './lexical.js';
import { SEED_CHUNKS, SEED_SHARE } from './term-pruning.js';

export type SeedMode = 'vector' | 'keyword';

/** A chunk of the seed step, as the ranking statements return it. */
export interface SeedRow {
  id: string;
  content: string;
  node_id: string | null;
  metadata: Record<string, unknown>;
  key: number;
}

/** The columns lexicalStep adds: nulls where the board has none of the query's terms, seed columns null where it did not run. */
export interface LexicalStepColumns {
  unit_vector: string | null;
  idf_vector: string | null;
  seed_terms: number[] | null;
  seed_rows: SeedRow[] | null;
}

/**
 * A LATERAL subquery of at most one row (LexicalStepColumns): the query vectors of `termIds` on the
 * board, and, where `seed` is given and its `when` holds, the seed step of a first page: the first
 * `k` chunks (at most `maxKey`) holding a seed term, of the board or of its nodes `nodeIds`.
 */
export function lexicalStep(s: {
  boardId: string;
  termIds: number[];
  seed?: { mode: SeedMode; k: number; maxKey: number; nodeIds?: string[]; when: (chunks: RawBuilder<number>) => RawBuilder<boolean> };
}): RawBuilder<unknown> {
  const { boardId, seed } = s;
  const vectorOf = (weight: RawBuilder<unknown>) =>
    sql`('{' || string_agg(term || ':' || ${weight}, ',' ORDER BY term) || '}/' || ${sql.lit(SPARSE_DIMENSIONS)})::sparsevec`;
  const k = seed?.k ?? 1;
  const seedStep = seed
    ? sql`(SELECT json_agg(json_build_object('id', c.id, 'content', c.content, 'node_id', c.node_id, 'metadata', c.metadata, 'key', top.key) ORDER BY top.key, top.id)
        FROM (
          SELECT f.id, f.key FROM (
            SELECT c.id, c.board_id, c.node_id, ${seed.mode === 'vector' ? sql`(c.sparse_embedding <#> w.unit)` : sql`(c.keywords <#> w.idf)`} AS key
            FROM document_chunks c
            WHERE chunk_term_keys(c.board_id, c.term_ids) && chunk_term_keys(${boardId}::uuid, w.seed_terms)
              ${seed.mode === 'vector' ? sql`AND c.model = ${sql.lit(LOCAL_MODEL)}` : sql``} AND ${visibleChunk(boardId)}
            OFFSET 0
          ) AS f
          WHERE f.board_id = ${boardId} ${seed.nodeIds ? sql`AND f.node_id = ANY(${seed.nodeIds}::uuid[])` : sql``} AND f.key <= ${seed.maxKey}
          ORDER BY f.key, f.id LIMIT ${k}
        ) AS top JOIN document_chunks c ON c.id = top.id)`
    : sql`NULL::json`;
  return sql`(
    SELECT w.unit::text AS unit_vector, w.idf::text AS idf_vector, w.seed_terms,
      CASE WHEN ${seed ? seed.when(sql<number>`w.chunks`) : sql`false`} THEN coalesce(${seedStep}, '[]') END AS seed_rows
    FROM (
      SELECT array_agg(term ORDER BY term) FILTER (WHERE seed) AS seed_terms, max(chunks) AS chunks,
        ${vectorOf(sql`unit`)} AS unit, ${vectorOf(sql`idf`)} AS idf
      FROM (
        SELECT term, chunks, idf, idf / sqrt(sum(idf * idf) OVER ()) AS unit,
          NOT (upto - df >= ${4 * k} AND upto > least(${sql.lit(SEED_CHUNKS)}::float8, ${sql.lit(SEED_SHARE)}::float8 * chunks)) AS seed
        FROM (
          SELECT b.term, b.df, n.df AS chunks, ln(1::float8 + (n.df - b.df + 0.5::float8) / (b.df + 0.5::float8)) AS idf,
            sum(b.df) OVER (ORDER BY b.df, b.term ROWS UNBOUNDED PRECEDING) AS upto
          FROM board_terms b JOIN board_terms n ON n.board_id = b.board_id AND n.term = 0
          WHERE b.board_id = ${boardId} AND b.term = ANY(${s.termIds}::int4[]) AND b.df > 0
        ) AS x
      ) AS y
      HAVING count(*) > 0
    ) AS w
  )`;
}
