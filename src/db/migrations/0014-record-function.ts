// The recording of a board's changes (src/events/record.ts) as a PL/pgSQL function. It was one
// statement of four common table expressions sent as an unnamed statement, which PostgreSQL parsed
// and planned again on every write: planning cost more than running it, and node creates were half
// as fast as without the change log (BENCHMARKS.md, "Board events"). A function's statements are
// planned once per database connection and their plans kept (PL/pgSQL's plan cache), which needs
// no named prepared statements on the client side (so a transaction-pooling proxy carries it), and
// PostgreSQL replans them by itself after a schema change.
//
// What it does is what the statement did: bump the board's event_seq by the number of changes (and
// for a content write its updated_at, which the write's lock no longer does), insert the events
// numbered from it, queue them for the webhooks that want them (the body is the Standard Webhooks
// envelope, built once here so that every attempt signs the same bytes), notify the event streams
// (and the webhook senders when something was queued), and answer the last sequence number with the
// board's totals after the write (NULLs when the board is gone). Also: board_events' time index
// becomes a BRIN index (below).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION record_board_changes(
      p_board uuid,
      p_actor uuid,
      p_types text[],
      p_audiences text[],
      p_data text[],
      p_at timestamptz,
      -- p_at as the API writes times (ISO 8601 UTC with milliseconds), and the actor as JSON.
      p_at_iso text,
      p_actor_json text,
      -- A content write (src/nodes/content-write.ts): the board's updated_at becomes p_at as well.
      p_touch boolean,
      -- NULL when the board is gone.
      OUT last_seq bigint,
      OUT total_nodes integer,
      OUT total_edges integer,
      OUT total_bytes bigint
    ) LANGUAGE plpgsql AS $fn$
    DECLARE
      n integer := cardinality(p_types);
      board record;
    BEGIN
      UPDATE boards SET event_seq = boards.event_seq + n, updated_at = CASE WHEN p_touch THEN p_at ELSE boards.updated_at END
      WHERE boards.id = p_board
      RETURNING boards.event_seq, boards.owner_id, boards.is_public, boards.node_count, boards.edge_count, boards.data_bytes
      INTO board;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      last_seq := board.event_seq;
      total_nodes := board.node_count;
      total_edges := board.edge_count;
      total_bytes := board.data_bytes;

      INSERT INTO board_events (board_id, seq, type, actor_id, audience, data, created_at)
      SELECT p_board, board.event_seq - n + c.ord, c.type, p_actor, c.audience, c.data::jsonb, p_at
      FROM unnest(p_types, p_audiences, p_data) WITH ORDINALITY AS c(type, audience, data, ord);

      -- A webhook names the board, or names none and belongs to the board's owner; its owner must
      -- be able to read the event: the board's owner, or anyone while the board is public, and
      -- events meant for the owner only (assets) only the owner.
      INSERT INTO webhook_deliveries (webhook_id, board_id, seq, event_type, body, next_attempt_at, created_at)
      SELECT w.id, p_board, board.event_seq - n + c.ord, c.type,
        format('{"type":"%s","timestamp":"%s","data":{"seq":%s,"type":"%s","board_id":"%s","actor_id":%s,"created_at":"%s","data":%s}}',
               c.type, p_at_iso, board.event_seq - n + c.ord, c.type, p_board, p_actor_json, p_at_iso, c.data),
        p_at, p_at
      FROM webhooks w
      JOIN unnest(p_types, p_audiences, p_data) WITH ORDINALITY AS c(type, audience, data, ord)
        ON (cardinality(w.event_types) = 0 OR c.type = ANY (w.event_types))
       AND (w.owner_id = board.owner_id OR (board.is_public AND c.audience = 'all'))
      WHERE w.enabled AND (w.board_id = p_board OR (w.board_id IS NULL AND w.owner_id = board.owner_id))
      ORDER BY w.id, c.ord;
      IF FOUND THEN
        PERFORM pg_notify('webhook_deliveries', '');
      END IF;

      PERFORM pg_notify('board_events', p_board || ':' || board.event_seq);
    END
    $fn$`.execute(db);
  // The hourly sweep of old events (src/modules/events.ts) reads them by time. Events are appended
  // in time order, so a BRIN index serves that range as well as the B-tree of 0011 did, at a
  // fraction of the cost of keeping it on every event recorded.
  await sql`DROP INDEX board_events_created_at_idx`.execute(db);
  await sql`CREATE INDEX board_events_created_at_idx ON board_events USING brin (created_at)`.execute(db);
}
