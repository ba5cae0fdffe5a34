// Client-chosen ids for nodes and edges (docs/api.md, "Replaying a queue of edits safely").
//
// `create_digest`: the SHA-256 of the canonical JSON of the create request that made a row with a
// client-chosen id (NULL when the service chose the id, or for rows made before this migration), so a
// create repeated with the same id and the same body is recognised as a replay even after the row
// has changed. Adding a nullable column without a default rewrites nothing.
//
// `deleted_ids`: the ids of deleted nodes and edges, kept EVENT_RETENTION_DAYS (swept hourly with the
// events), so that a create replayed after a delete does not bring the row back (409) and a delete
// replayed after its answer was lost succeeds again instead of answering 404. A board's deletion
// forgets its ids with it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE nodes ADD COLUMN create_digest text`.execute(db);
  await sql`ALTER TABLE edges ADD COLUMN create_digest text`.execute(db);
  await sql`
    CREATE TABLE deleted_ids (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('node', 'edge')),
      deleted_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX deleted_ids_board ON deleted_ids (board_id)`.execute(db);
  await sql`CREATE INDEX deleted_ids_deleted_at ON deleted_ids (deleted_at)`.execute(db);
}
