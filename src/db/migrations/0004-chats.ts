// Chats and their messages. A chat belongs to a board and to the user who created it (chats are
// private to their creator on any board). `generating_until` + `generation_id` are a lease on the
// chat row: set by one conditional UPDATE while a reply is generated, so a second message is a 409
// across instances; a lease that outlives its process simply expires.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE chats (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      node_id uuid REFERENCES nodes(id) ON DELETE SET NULL,
      title text NOT NULL,
      memory jsonb NOT NULL DEFAULT '[]'::jsonb,
      memory_through timestamptz,
      metadata jsonb,
      generation_id uuid,
      generating_until timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_message_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX chats_board_owner_idx ON chats (board_id, owner_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX chats_node_idx ON chats (node_id) WHERE node_id IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE messages (
      id uuid PRIMARY KEY,
      chat_id uuid NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('user', 'assistant')),
      content text NOT NULL,
      model text,
      metadata jsonb,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX messages_chat_idx ON messages (chat_id, created_at, id)`.execute(db);
}
