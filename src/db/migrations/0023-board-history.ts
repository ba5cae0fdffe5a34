// Board history (issue 31): versions of a board kept as whole snapshots, gzip-compressed JSON of
// the board's fields, nodes and edges as the API answers them. `kind`: `auto` (taken by the history
// sweep at most every HISTORY_SNAPSHOT_INTERVAL_SECONDS while the board changes), `named` (a person
// named it; kept past HISTORY_RETENTION_DAYS), `restore_point` (the board just before a restore, so
// the restore can be undone). `event_seq` is the board's event_seq the snapshot was read at: the
// sweep snapshots a board whose event_seq has moved past its latest version's.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE board_history (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('auto', 'named', 'restore_point')),
      name text,
      created_by uuid,
      event_seq bigint NOT NULL,
      node_count integer NOT NULL,
      edge_count integer NOT NULL,
      size_bytes integer NOT NULL,
      snapshot bytea NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX board_history_board ON board_history (board_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX board_history_unnamed ON board_history (created_at) WHERE kind <> 'named'`.execute(db);
}
