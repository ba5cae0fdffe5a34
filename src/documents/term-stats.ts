// A board's term statistics (table board_terms, kept by a trigger on chunk_sets: see
// src/db/migrations/0007-lexical.ts): read for a query's IDF, and summed per chunk set when a set
// goes live.
import { sql, type RawBuilder } from 'kysely';
import type { TermStats } from './lexical.js';

/** A subquery of one row, `terms` and `dfs`: the board's chunk count (term 0) and the document frequency of each of `termIds` it has. */
export function termStatsQuery(boardId: string, termIds: number[]): RawBuilder<unknown> {
  return sql`SELECT coalesce(array_agg(term ORDER BY term), '{}') AS terms, coalesce(array_agg(df ORDER BY term), '{}') AS dfs
    FROM board_terms WHERE board_id = ${boardId} AND term = ANY(${[0, ...termIds]}::int4[])`;
}

/** Term statistics from termStatsQuery's row. */
export function termStatsOf(terms: number[], dfs: number[]): TermStats {
  const df = new Map(terms.map((t, i) => [t, dfs[i]!]));
  const chunks = df.get(0) ?? 0;
  df.delete(0);
  return { chunks, df };
}

/**
 * SET clause values that sum a set's chunk term ids into the set's per-term counts (term 0 counts the
 * chunks); written when the set goes live, which the trigger adds to the board's statistics.
 */
export function setTermCounts(setId: RawBuilder<unknown> | string): {
  term_ids: RawBuilder<number[] | null>;
  term_df: RawBuilder<number[] | null>;
} {
  const counts = sql`(SELECT t, count(*)::int4 AS n FROM document_chunks c, unnest(c.term_ids || 0) AS t WHERE c.set_id = ${setId} AND c.term_ids IS NOT NULL GROUP BY t)`;
  return {
    term_ids: sql<number[] | null>`(SELECT array_agg(x.t ORDER BY x.t) FROM ${counts} AS x)`,
    term_df: sql<number[] | null>`(SELECT array_agg(x.n ORDER BY x.t) FROM ${counts} AS x)`,
  };
}
