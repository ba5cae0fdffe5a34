// The change log of every board (src/events/): one row per committed change to a board's content or
// settings, numbered per board by `boards.event_seq`, which the recording statement bumps in the
// writing transaction. The board row is already locked by the write (content-write.ts), so numbers
// are given in commit order without gaps, and a rolled-back write leaves neither a number nor a row.
//
// Events have no foreign key to their board: `board.deleted` outlives it, so a stream can say so.
// They are kept EVENT_RETENTION_DAYS (an hourly sweep deletes older ones); a client asking for a
// point before the oldest kept event is told to reload (the `reset` event).
//
// A revoked or deleted API key is announced on the `api_key_revoked` channel, whoever revokes it
// (the API, the CLI, another instance), so the event streams it holds end at once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE boards ADD COLUMN event_seq bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    CREATE TABLE board_events (
      board_id uuid NOT NULL,
      seq bigint NOT NULL,
      type text NOT NULL,
      -- The user who made the change (for a job's outcome, the user who queued it).
      actor_id uuid,
      -- 'all': everyone who may read the board; 'owner': only its owner (assets, which only the
      -- owner may list).
      audience text NOT NULL DEFAULT 'all' CHECK (audience IN ('all', 'owner')),
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (board_id, seq)
    )`.execute(db);
  await sql`CREATE INDEX board_events_created_at_idx ON board_events (created_at)`.execute(db);
  await sql`
    CREATE FUNCTION api_key_revoked_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('api_key_revoked', OLD.id::text);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION api_key_revoked_notify()`.execute(db);
  await sql`CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_key_revoked_notify()`.execute(db);
}
