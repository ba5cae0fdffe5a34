// record_board_changes (0014) without its notification on `board_events`, and with the webhook
// queue looked up before it is written to.
//
// The notification went out with every commit: each change woke the listening connection of every
// instance, in PostgreSQL and in Node, and the notifying commits queued on the notification queue's
// lock. It measured as about half of what the change log cost node creates (BENCHMARKS.md, "Board
// events"). The instance that commits now announces its changes itself, after the commit, at most
// once per few milliseconds for all of them (src/events/record.ts, announcer.ts). The webhook
// senders' wake-up (`webhook_deliveries`) stays here: it goes out only when a delivery was queued.
//
// The webhook queue: a change whose board no enabled webhook can want (the usual case) no longer
// prepares an insert into webhook_deliveries; the same two index probes answer first.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION record_board_changes(
      p_board uuid,
      p_actor uuid,
      p_types text[],
      p_audiences text[],
      p_data text[],
      p_at timestamptz,
      p_at_iso text,
      p_actor_json text,
      p_touch boolean,
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

      IF NOT EXISTS (
        SELECT 1 FROM webhooks w
        WHERE w.enabled AND (w.board_id = p_board OR (w.board_id IS NULL AND w.owner_id = board.owner_id))
      ) THEN
        RETURN;
      END IF;
      -- As in 0014: a webhook names the board, or names none and belongs to the board's owner; its
      -- owner must be able to read the event (the board's owner, or anyone while the board is
      -- public, and events meant for the owner only, the owner).
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
    END
    $fn$`.execute(db);
}
