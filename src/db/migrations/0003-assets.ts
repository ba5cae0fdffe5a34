// Uploaded asset files: one row per file, the file itself in storage (src/providers/storage).
// A row with size NULL reserves its name while the upload streams; it is completed (size set) or
// removed when the upload ends, and swept at start if the process died meanwhile.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE assets (
      storage_path text PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      filename text NOT NULL,
      content_type text NOT NULL,
      size bigint CHECK (size >= 0),
      access_token text NOT NULL,
      created_at timestamptz NOT NULL,
      UNIQUE (board_id, filename)
    )`.execute(db);
  await sql`CREATE INDEX assets_board_idx ON assets (board_id, created_at, filename)`.execute(db);
  await sql`CREATE INDEX assets_pending_idx ON assets (created_at) WHERE size IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE assets`.execute(db);
}
