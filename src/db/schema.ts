// Table types for the query layer (Kysely). Timestamps are set by the service (millisecond precision,
// so keyset cursors round-trip exactly); ids are UUIDv7 made by the service.
import type { ColumnType, Kysely, Transaction } from 'kysely';

type Json = ColumnType<Record<string, unknown>, string, string>;

export interface UsersTable {
  id: string;
  subject: string;
  created_at: Date;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface BoardsTable {
  id: string;
  owner_id: string;
  name: string;
  is_public: boolean;
  public_access_level: 'view' | 'edit' | null;
  viewport_x: number;
  viewport_y: number;
  viewport_zoom: number;
  view_mode: string;
  created_at: Date;
  updated_at: Date;
}

export interface NodesTable {
  id: string;
  board_id: string;
  node_type: string;
  position_x: number;
  position_y: number;
  node_data: Json;
  parent_node_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface EdgesTable {
  id: string;
  board_id: string;
  source_node_id: string;
  target_node_id: string;
  edge_type: string;
  edge_data: Json;
  created_at: Date;
  updated_at: Date;
}

export interface IdempotencyKeysTable {
  principal: string;
  key: string;
  request_hash: string;
  /** null while the first request is still running */
  status: number | null;
  response: ColumnType<unknown, string | null, string | null>;
  headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  created_at: Date;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  boards: BoardsTable;
  nodes: NodesTable;
  edges: EdgesTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type Db = Kysely<Database>;
/** Either the database or an open transaction: services accept both. */
export type Executor = Kysely<Database> | Transaction<Database>;
