// Table types for the query layer (Kysely). Timestamps are set by the service (millisecond precision,
// so keyset cursors round-trip exactly); ids are UUIDv7 made by the service.
import type { ColumnType, Kysely, Transaction } from 'kysely';

type Json = ColumnType<Record<string, unknown>, string, string>;

export interface UsersTable {
  id: string;
  subject: string;
  created_at: Date;
  /** What the user stores, kept by triggers (0019-user-usage.ts), checked against their quotas. */
  board_count: ColumnType<number, never, never>;
  data_bytes: ColumnType<number, never, never>;
  asset_bytes: ColumnType<number, never, never>;
  chunk_bytes: ColumnType<number, never, never>;
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
  /** The web app reads (vectorizes) what is added automatically (0022-board-auto-read.ts). */
  auto_read: ColumnType<boolean, boolean | undefined, boolean>;
  /** Running totals kept by triggers (0010-board-totals.ts), checked against the board's bounds. */
  node_count: ColumnType<number, never, never>;
  edge_count: ColumnType<number, never, never>;
  /** Bytes of node and edge data (the length of their JSON text). */
  data_bytes: ColumnType<number, never, never>;
  /** Bytes of the board's asset files and document chunk text (0019-user-usage.ts). */
  asset_bytes: ColumnType<number, never, never>;
  chunk_bytes: ColumnType<number, never, never>;
  /** The sequence number of the board's latest event (0011-board-events.ts). */
  event_seq: ColumnType<number, never, never>;
  created_at: Date;
  updated_at: Date;
}

export interface BoardEventsTable {
  board_id: string;
  seq: number;
  type: string;
  actor_id: string | null;
  audience: 'all' | 'owner';
  data: unknown;
  created_at: Date;
}

/** Who each presence session belongs to, and when it was last heard from (0017-presence-sessions.ts). */
export interface PresenceSessionsTable {
  board_id: string;
  session_id: string;
  user_id: string;
  seen_at: Date;
}

/** A user's endpoint for their boards' events (0012-webhooks.ts). */
export interface WebhooksTable {
  id: string;
  owner_id: string;
  url: string;
  /** Empty: every type. */
  event_types: string[];
  /** null: every board the owner owns. */
  board_id: string | null;
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** One event queued for one webhook (inserted by the recording statement, src/events/record.ts). */
export interface WebhookDeliveriesTable {
  id: ColumnType<number, never, never>;
  webhook_id: string;
  board_id: string;
  seq: number;
  event_type: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

export interface NodesTable {
  id: string;
  board_id: string;
  node_type: string;
  position_x: number;
  position_y: number;
  node_data: Json;
  /** Generated: the length of node_data's JSON text. */
  data_bytes: ColumnType<number, never, never>;
  parent_node_id: string | null;
  /** The digest of the create request when the client chose the id (0018-client-ids.ts). */
  create_digest: ColumnType<string | null, string | null | undefined, never>;
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
  /** Generated: the length of edge_data's JSON text. */
  data_bytes: ColumnType<number, never, never>;
  /** The digest of the create request when the client chose the id (0018-client-ids.ts). */
  create_digest: ColumnType<string | null, string | null | undefined, never>;
  created_at: Date;
  updated_at: Date;
}

/** Ids of deleted nodes and edges, kept EVENT_RETENTION_DAYS (0018-client-ids.ts). */
export interface DeletedIdsTable {
  id: string;
  board_id: string;
  kind: 'node' | 'edge';
  deleted_at: Date;
}

/** A version of a board (0023-board-history.ts, src/compose/history-service.ts). */
export interface BoardHistoryTable {
  id: string;
  board_id: string;
  kind: 'auto' | 'named' | 'restore_point';
  name: string | null;
  created_by: string | null;
  event_seq: number;
  node_count: number;
  edge_count: number;
  size_bytes: number;
  /** gzip of the JSON of the board's fields, nodes and edges (history-snapshot.ts). */
  snapshot: Buffer;
  created_at: Date;
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

export interface JobsTable {
  id: string;
  user_id: string;
  board_id: string | null;
  type: string;
  status: 'processing' | 'completed' | 'failed';
  result: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  error: string | null;
  payload: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  attempts: ColumnType<number, number | undefined, number>;
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** When a worker last took up one of the user's jobs (0009-job-turns.ts): the fair-share rotation. */
export interface JobTurnsTable {
  user_id: string;
  /** From job_turns_served_seq: the turn the user was last served; NULL never. */
  served: string | null;
}

export interface DocumentChunksTable {
  id: string;
  board_id: string;
  node_id: string | null;
  content: string;
  metadata: Json;
  model: string;
  /** pgvector text form, '[0.1,0.2,…]'; NULL for chunks of the local model, which use sparse_embedding. */
  embedding: string | null;
  /** BM25 term weights of the chunk's words (sparsevec text form, src/documents/lexical.ts); NULL until re-embedded for chunks older than 0007. */
  keywords: string | null;
  term_ids: number[] | null;
  /** The local model's embedding (sparsevec text form). */
  sparse_embedding: string | null;
  /** The chunk set (src/db/migrations/0006-chunk-sets.ts); the chunk is visible while the set is live. */
  set_id: string;
  created_at: Date;
}

export interface ChunkSetsTable {
  id: string;
  board_id: string;
  node_id: string | null;
  model: string;
  state: 'writing' | 'live' | 'retired';
  chunks: ColumnType<number, number | undefined, number>;
  /** Per-term chunk counts of a live set, summed into board_terms by a trigger (0007-lexical.ts). */
  term_ids: ColumnType<number[] | null, number[] | null | undefined, number[] | null>;
  term_df: ColumnType<number[] | null, number[] | null | undefined, number[] | null>;
  /** The SHA-256 (hex) of the text vectorized (0013-chunk-set-text-hash.ts); NULL when the service extracted it. */
  text_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
}

export interface BoardTermsTable {
  board_id: string;
  /** A term id (src/documents/lexical.ts), or 0 for the number of chunks. */
  term: number;
  df: number;
}

type JsonOrNull = ColumnType<Record<string, unknown> | null, string | null, string | null>;

export interface ChatsTable {
  id: string;
  board_id: string;
  owner_id: string;
  node_id: string | null;
  /** The nodes the chat is limited to (JSON array of ids), or null for the whole board. */
  node_ids: ColumnType<string[] | null, string | null | undefined, string | null>;
  title: string;
  memory: ColumnType<string[], string | undefined, string>;
  /** Messages created up to this instant are condensed into memory. */
  memory_through: Date | null;
  metadata: JsonOrNull;
  generation_id: string | null;
  generating_until: Date | null;
  created_at: Date;
  updated_at: Date;
  last_message_at: Date | null;
}

export interface MessagesTable {
  id: string;
  chat_id: string;
  role: 'user' | 'assistant';
  content: string;
  model: string | null;
  metadata: JsonOrNull;
  created_at: Date;
}

export interface AssetsTable {
  storage_path: string;
  board_id: string;
  user_id: string;
  filename: string;
  content_type: string;
  /** null while the upload is still streaming */
  size: number | null;
  /** The random capability in the file's URL */
  access_token: string;
  created_at: Date;
}

export interface AccountsTable {
  user_id: string;
  /** Normalised: trimmed and lower-case. */
  email: string;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
}

export interface RefreshTokensTable {
  id: string;
  user_id: string;
  family_id: string;
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  /** Set when the token was rotated; presenting it again revokes the family. */
  used_at: Date | null;
  revoked_at: Date | null;
}

export interface ServiceKeysTable {
  name: string;
  private_jwk: ColumnType<Record<string, unknown>, string, never>;
  created_at: Date;
}

/** A member of a board and their role (0024-board-members.ts); the owner is not a member. */
export interface BoardMembersTable {
  board_id: string;
  user_id: string;
  role: 'viewer' | 'commenter' | 'editor';
  added_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A revocable link that makes a signed-in person a member with its role; the token is stored as its SHA-256. */
export interface BoardShareLinksTable {
  id: string;
  board_id: string;
  role: 'viewer' | 'commenter' | 'editor';
  token_hash: string;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** A comment on a board (0025-board-comments.ts): a thread's first comment has thread_id = id and no parent. */
export interface BoardCommentsTable {
  id: string;
  board_id: string;
  thread_id: string;
  parent_id: string | null;
  node_id: string | null;
  position_x: number | null;
  position_y: number | null;
  author_id: string;
  content: string;
  mentions: string[];
  resolved_at: Date | null;
  resolved_by: string | null;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
}

/** A person's read mark on a board's comments (thread_id null) or on one thread. */
export interface BoardCommentReadsTable {
  user_id: string;
  board_id: string;
  thread_id: string | null;
  read_at: Date;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  boards: BoardsTable;
  nodes: NodesTable;
  edges: EdgesTable;
  deleted_ids: DeletedIdsTable;
  board_history: BoardHistoryTable;
  board_events: BoardEventsTable;
  presence_sessions: PresenceSessionsTable;
  board_members: BoardMembersTable;
  board_share_links: BoardShareLinksTable;
  board_comments: BoardCommentsTable;
  board_comment_reads: BoardCommentReadsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  job_turns: JobTurnsTable;
  document_chunks: DocumentChunksTable;
  chunk_sets: ChunkSetsTable;
  board_terms: BoardTermsTable;
  chats: ChatsTable;
  messages: MessagesTable;
  assets: AssetsTable;
  accounts: AccountsTable;
  refresh_tokens: RefreshTokensTable;
  service_keys: ServiceKeysTable;
}

export type Db = Kysely<Database>;
/** Either the database or an open transaction: services accept both. */
export type Executor = Kysely<Database> | Transaction<Database>;
