// The Fastify instance type every route module receives (TypeBox type provider), and the services
// and per-app state the app factory builds once per app and hands to every module (routes, job
// handlers, background tasks). Nothing of it lives at module level: two apps in one process share
// none of it.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SignIn } from '../accounts/sign-in.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import type { Notifications } from '../db/notifications.js';
import type { Db } from '../db/schema.js';
import type { ChunkPurger } from '../documents/chunk-purge.js';
import type { Background } from '../jobs/background.js';
import type { BoardEventHub } from '../events/event-hub.js';
import type { Foreground } from '../jobs/foreground.js';
import type { JobWorker } from '../jobs/worker.js';
import type { HeavyWork } from '../lib/heavy-work.js';
import type { NodeReadCache } from '../nodes/node-cache.js';
import type { BoardListCache } from '../boards/list-cache.js';
import type { BoardVersions } from '../boards/board-versions.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import type { ChatModel } from '../providers/llm/chat-model.js';
import type { Storage } from '../providers/storage/storage.js';
import type { AssetService } from '../assets/asset-service.js';
import type { NodeService } from '../nodes/node-service.js';
import type { EdgeService } from '../edges/edge-service.js';
import type { MemberService } from '../boards/member-service.js';
import type { CommentService } from '../comments/comment-service.js';
import type { BoardService } from '../boards/board-service.js';
import type { BatchService } from '../compose/batch-service.js';
import type { DuplicateService } from '../compose/duplicate-board.js';
import type { CanvasService } from '../interchange/canvas-service.js';
import type { ApiKeyService } from '../auth/api-key-service.js';
import type { JobQueue } from '../jobs/job-service.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { BoardEventService } from '../events/event-service.js';
import type { AccountService } from '../accounts/accounts.js';
import type { DocumentService } from '../documents/document-service.js';
import type { ChatService } from '../chats/chats.js';
import type { HistoryService } from '../compose/history-service.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * The domains' service objects, each built once per app with what it needs (the database, the board
 * bounds, PUBLIC_BASE_URL, the caches, storage…) by src/modules/services.ts. Routes, MCP tools and
 * the composing services call their methods with the request's values only.
 */
export interface DomainServices {
  boards: BoardService;
  /** Members of boards and share links (src/boards/member-service.ts). */
  members: MemberService;
  nodes: NodeService;
  edges: EdgeService;
  assets: AssetService;
  /** POST …/batch (src/compose/batch-service.ts). */
  batch: BatchService;
  /** A board's versions and their restore (src/compose/history-service.ts). */
  history: HistoryService;
  /** POST /v1/boards/{id}/duplicate (src/compose/duplicate-board.ts). */
  duplicate: DuplicateService;
  /** JSON Canvas export and import (src/interchange/canvas-service.ts). */
  canvas: CanvasService;
  apiKeys: ApiKeyService;
  webhooks: WebhookService;
  /** The job queue as the API shows it (the worker that runs the jobs is `jobs`). */
  jobQueue: JobQueue;
  /** Reading a board's change log, its streams, presence (the streams' hub is `events`). */
  boardEvents: BoardEventService;
  /** Local accounts: sign-up, log-in, passwords (sessions are the sign-in's). */
  accounts: AccountService;
  /** Vectorizing, a board's chunks, the board search and the search across boards (the caller wakes `jobs` after queueing). */
  documents: DocumentService;
  /** A board's chats and their replies (src/chats/chats.ts). */
  chats: ChatService;
  /** A board's comment threads and unread marks (src/comments/comment-service.ts). */
  comments: CommentService;
}

export interface Services extends DomainServices {
  config: Config;
  db: Db;
  authenticator: Authenticator;
  embedder: Embedder;
  /** The background job worker; wake() after queueing a job. */
  jobs: JobWorker;
  /** Where asset files live (local directory or S3-compatible bucket). */
  storage: Storage;
  /** The chat model replies come from (LLM_PROVIDER). */
  chatModel: ChatModel;
  /** Local accounts or an OpenID Connect provider. */
  signIn: SignIn;
  /** This app's requests in flight, which background writers step aside for. */
  foreground: Foreground;
  /** This app's purger of retired chunk sets; kick() after retiring one. */
  purger: ChunkPurger;
  /** This app's cache of single-node reads: only on the embedded database (src/nodes/node-cache.ts). */
  nodeCache?: NodeReadCache;
  /** Reads boards' versions for callers, batched under load (src/boards/board-versions.ts). */
  boardVersions: BoardVersions;
  /** This app's pages of board lists per board version (src/boards/list-cache.ts); none when BOARD_LIST_CACHE_MB is 0. */
  listCache?: BoardListCache;
  /** This app's background tasks, started with it and stopped when it closes. */
  background: Background;
  /** This app's slots of expensive work per user: full reads, imports, duplicates, batches, MCP tool calls (src/lib/heavy-work.ts). */
  heavyWork: HeavyWork;
  /** This app's event streams, woken by the database's notifications of committed changes. */
  events: BoardEventHub;
  /** LISTEN/NOTIFY on the database, for background work woken by committed changes (the webhook sender). */
  notifications: Notifications;
  /** The app's logger, for background work. */
  log: FastifyBaseLogger;
}
