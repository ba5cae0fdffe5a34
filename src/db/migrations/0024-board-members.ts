// Members of a board with a role (issue 31), and the share links that make a person a member.
//
// The visibility rule (src/access/board-access.ts, boardSeenBy) gains "or a member of the board";
// its two database forms follow: visible_board_version (0016) for kept list pages, and
// record_board_changes (0015) for which webhooks get an event (a webhook's owner must be able to
// read it). test/access.test.ts holds the forms together.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE board_members (
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('viewer', 'commenter', 'editor')),
      added_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (board_id, user_id)
    )`.execute(db);
  // A person's shared boards, in the order of the board list.
  await sql`CREATE INDEX board_members_user ON board_members (user_id, board_id)`.execute(db);
  await sql`
    CREATE TABLE board_share_links (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('viewer', 'commenter', 'editor')),
      token_hash text NOT NULL UNIQUE,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX board_share_links_board ON board_share_links (board_id, created_at, id)`.execute(db);

  await sql`
    CREATE OR REPLACE FUNCTION visible_board_version(p_board uuid, p_viewer uuid, p_key uuid) RETURNS bigint
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN (
        SELECT b.event_seq FROM boards b
        WHERE b.id = p_board
          AND (b.owner_id = p_viewer OR b.is_public
               OR EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = b.id AND m.user_id = p_viewer))
          AND (p_key IS NULL OR EXISTS (
            SELECT 1 FROM api_keys k
            WHERE k.id = p_key AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))));
    END $$`.execute(db);

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
      -- As in 0015, with members: a webhook's owner must be able to read the event (the board's
      -- owner; a member or anyone while the board is public, for events meant for all readers).
      INSERT INTO webhook_deliveries (webhook_id, board_id, seq, event_type, body, next_attempt_at, created_at)
      SELECT w.id, p_board, board.event_seq - n + c.ord, c.type,
        format('{"type":"%s","timestamp":"%s","data":{"seq":%s,"type":"%s","board_id":"%s","actor_id":%s,"created_at":"%s","data":%s}}',
               c.type, p_at_iso, board.event_seq - n + c.ord, c.type, p_board, p_actor_json, p_at_iso, c.data),
        p_at, p_at
      FROM webhooks w
      JOIN unnest(p_types, p_audiences, p_data) WITH ORDINALITY AS c(type, audience, data, ord)
        ON (cardinality(w.event_types) = 0 OR c.type = ANY (w.event_types))
       AND (w.owner_id = board.owner_id
            OR (c.audience = 'all' AND (board.is_public
                OR EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = p_board AND m.user_id = w.owner_id))))
      WHERE w.enabled AND (w.board_id = p_board OR (w.board_id IS NULL AND w.owner_id = board.owner_id))
      ORDER BY w.id, c.ord;
      IF FOUND THEN
        PERFORM pg_notify('webhook_deliveries', '');
      END IF;
    END
    $fn$`.execute(db);
}
