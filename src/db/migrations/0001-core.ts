// Core tables: users, API keys, boards, nodes, edges, idempotency keys.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS vector`.execute(db);
  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      subject text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at, id)`.execute(db);
  await sql`
    CREATE TABLE boards (
      id uuid PRIMARY KEY,
      owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      is_public boolean NOT NULL DEFAULT false,
      public_access_level text CHECK (public_access_level IN ('view', 'edit')),
      viewport_x double precision NOT NULL DEFAULT 0,
      viewport_y double precision NOT NULL DEFAULT 0,
      viewport_zoom double precision NOT NULL DEFAULT 1,
      view_mode text NOT NULL DEFAULT 'canvas',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((is_public AND public_access_level IS NOT NULL) OR (NOT is_public AND public_access_level IS NULL))
    )`.execute(db);
  await sql`CREATE INDEX boards_owner_idx ON boards (owner_id, created_at, id)`.execute(db);
  await sql`
    CREATE TABLE nodes (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      node_type text NOT NULL,
      position_x double precision NOT NULL,
      position_y double precision NOT NULL,
      node_data jsonb NOT NULL,
      parent_node_id uuid REFERENCES nodes(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX nodes_board_idx ON nodes (board_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX nodes_board_type_idx ON nodes (board_id, node_type, created_at, id)`.execute(db);
  await sql`CREATE INDEX nodes_parent_idx ON nodes (parent_node_id) WHERE parent_node_id IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE edges (
      id uuid PRIMARY KEY,
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      source_node_id uuid NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      target_node_id uuid NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      edge_type text NOT NULL,
      edge_data jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX edges_board_idx ON edges (board_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX edges_source_idx ON edges (source_node_id)`.execute(db);
  await sql`CREATE INDEX edges_target_idx ON edges (target_node_id)`.execute(db);
  await sql`
    CREATE TABLE idempotency_keys (
      principal text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      status integer,
      response jsonb,
      headers jsonb,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (principal, key)
    )`.execute(db);
  await sql`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`.execute(db);
}
