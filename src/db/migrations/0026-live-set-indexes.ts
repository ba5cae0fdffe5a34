// What a search asks of a board's chunk sets on every request, answered by index probes rather than
// a row per set (src/documents/search-service.ts): whether the board has live sets of another
// model than the configured one, or live sets without term counts (written before 0007), either of
// which queues its re-embed job. A board of 10,000 vectorized notes has 10,000 live sets, and
// visiting each of them cost a search more than finding and scoring its chunks. The live chunk
// count itself comes from the board's term statistics (board_terms, term 0).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX chunk_sets_live_model_idx ON chunk_sets (board_id, model) WHERE state = 'live'`.execute(db);
  await sql`CREATE INDEX chunk_sets_uncounted_idx ON chunk_sets (board_id) WHERE state = 'live' AND term_ids IS NULL`.execute(db);
}
