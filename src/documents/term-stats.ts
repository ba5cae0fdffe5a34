// A board's term statistics (table board_terms, kept by a trigger on chunk_sets: see
// src/db/migrations/0007-lexical.ts): read for a query's IDF, and summed per chunk set when a set
// goes live.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/schema.js';
import type { TermStats } from './lexical.js';

/** The board's chunk count and the document frequency of each of `termIds`. */
export async function readTermStats(db: Executor, boardId: string, termIds: number[]): Promise<TermStats> {
  const rows = await db.selectFrom('board_terms').select(['term', 'df']).where('board_id', '=', boardId).where('term', '=', sql<number>`ANY(${[0, ...termIds]}::int4[])`).execute();
  const df = new Map(rows.map((r) => [r.term, r.df]));
  const chunks = df.get(0) ?? 0;
  df.delete(0);
  return { chunks, df };
}

/**
 * SET clause values that sum a set's chunk term ids into the set's per-term counts (term 0 counts the
 * chunks); written when the set goes live, which the trigger adds to the board's statistics.
 */
export function setTermCounts(setId: RawBuilder<unknown> | string): { term_ids: RawBuilder<number[] | null>; term_df: RawBuilder<number[] | null> } {
  const counts = sql`(SELECT t, count(*)::int4 AS n FROM document_chunks c, unnest(c.term_ids || 0) AS t WHERE c.set_id = ${setId} AND c.term_ids IS NOT NULL GROUP BY t)`;
  return {
    term_ids: sql<number[] | null>`(SELECT array_agg(x.t ORDER BY x.t) FROM ${counts} AS x)`,
    term_df: sql<number[] | null>`(SELECT array_agg(x.n ORDER BY x.t) FROM ${counts} AS x)`,
  };
}
