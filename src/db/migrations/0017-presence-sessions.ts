// presence_sessions: which user each presence session (an open tab on a board) belongs to, so that
// no one else can move or end it (src/events/presence.ts). Only the owner of the session and when it
// was last heard from are kept, never the cursor or selection, which still go only through the
// `board_presence` notification. A row older than the presence lifetime is free for anyone again
// (the tab has gone) and the hourly sweep removes it. UNLOGGED: a crash forgets who owned which tab,
// which is what the end of every open tab means anyway. No foreign keys: a row lives seconds, and an
// announcement racing its board's deletion must not fail on one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE UNLOGGED TABLE presence_sessions (
      board_id uuid NOT NULL,
      session_id text NOT NULL,
      user_id uuid NOT NULL,
      seen_at timestamptz NOT NULL,
      PRIMARY KEY (board_id, session_id)
    )`.execute(db);
  await sql`CREATE INDEX presence_sessions_seen_idx ON presence_sessions (seen_at)`.execute(db);
}
