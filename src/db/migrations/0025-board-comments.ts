// Comments on a board (issue 31, src/comments/): threads on a card, on a point of the canvas or on
// the board, their replies, and each reader's read marks.
//
// A thread's replies hang on its first comment (thread_id), so deleting it deletes them. A thread on
// a card outlives the card: when the card is deleted, the statement-level trigger below moves the
// thread off it to the card's last position, so talk is never lost with a card.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE board_comments (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      thread_id uuid NOT NULL REFERENCES board_comments(id) ON DELETE CASCADE,
      parent_id uuid REFERENCES board_comments(id) ON DELETE CASCADE,
      node_id uuid,
      position_x double precision,
      position_y double precision,
      author_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      content text NOT NULL,
      mentions uuid[] NOT NULL DEFAULT '{}',
      resolved_at timestamptz,
      resolved_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      edited_at timestamptz,
      CHECK ((parent_id IS NULL) = (thread_id = id)),
      CHECK ((position_x IS NULL) = (position_y IS NULL))
    )`.execute(db);
  // The board's comments in list order; a thread's; the threads on a card.
  await sql`CREATE INDEX board_comments_board ON board_comments (board_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX board_comments_thread ON board_comments (thread_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX board_comments_node ON board_comments (node_id) WHERE node_id IS NOT NULL`.execute(db);
  // The comments that mention a person (GET /v1/me/mentions).
  await sql`CREATE INDEX board_comments_mentions ON board_comments USING gin (mentions)`.execute(db);

  // A person's read marks: one for the whole board (thread_id null) and one per thread they read.
  await sql`
    CREATE TABLE board_comment_reads (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      thread_id uuid REFERENCES board_comments(id) ON DELETE CASCADE,
      read_at timestamptz NOT NULL,
      UNIQUE NULLS NOT DISTINCT (user_id, board_id, thread_id)
    )`.execute(db);

  await sql`
    CREATE FUNCTION board_comments_leave_deleted_nodes() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE board_comments c SET node_id = NULL, position_x = gone.position_x, position_y = gone.position_y
      FROM gone WHERE c.node_id = gone.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER board_comments_leave_deleted_nodes AFTER DELETE ON nodes
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION board_comments_leave_deleted_nodes()`.execute(db);
}
