// The SHA-256 of the text a chunk set was made from (hex; NULL when the service extracted the text,
// as for a pdf node, or for sets made before this migration): `GET …/documents/nodes` answers it so
// a client can tell a node's index that is behind the node's text. A duplicate's sets keep it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chunk_sets ADD COLUMN text_sha256 text`.execute(db);
}
