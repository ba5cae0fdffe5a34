// A chat limited to a selection of its board's nodes ("Ask about this selection"): the node ids its
// replies draw on, or NULL for the whole board.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chats ADD COLUMN node_ids jsonb`.execute(db);
}
