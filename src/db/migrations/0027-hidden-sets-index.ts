// The visibility rule of every search statement (src/documents/chunk-store.ts, visibleChunk) reads
// a board's sets that are not live, a handful among thousands of live ones. On `state <> 'live'` no
// index has a condition (a btree cannot search for "not equal"), so the partial chunk_sets_hidden_idx
// (board_id) and chunk_sets_board_idx (board_id, node_id) both served `board_id = …` alike, and a
// planner without statistics (the embedded database never gathers any) read the board's every set
// through the latter: 24,538 sets for a board of 24,538 notes, in each term-index lookup. Now the
// rule names the hidden states (`state IN ('writing', 'retired')`) and the partial index holds the
// state as its second column, so only this index has a condition on both: the plan reads the
// hidden sets alone whatever the statistics say.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX chunk_sets_hidden_idx`.execute(db);
  await sql`CREATE INDEX chunk_sets_hidden_idx ON chunk_sets (board_id, state) WHERE state <> 'live'`.execute(db);
}
