// The domains' service objects, built once per app by the app factory: each gets here what it needs
// (the database, configuration values such as the board bounds and PUBLIC_BASE_URL, the app's
// caches, file storage, the services it builds on), so that routes, MCP tools and job handlers
// call `services.nodes.update(principal, ids, body, { ifMatch, origin })` with the request's values only.
import { AssetService } from '../assets/asset-service.js';
import { BoardService } from '../boards/board-service.js';
import { MemberService } from '../boards/member-service.js';
import { BatchService } from '../compose/batch-service.js';
import { DuplicateService } from '../compose/duplicate-board.js';
import { EdgeService } from '../edges/edge-service.js';
import type { DomainServices, Services } from '../http/types.js';
import { CanvasService } from '../interchange/canvas-service.js';
import { NodeService } from '../nodes/node-service.js';
import { ApiKeyService } from '../auth/api-key-service.js';
import { JobQueue } from '../jobs/job-service.js';
import { WebhookService } from '../webhooks/webhook-service.js';
import { BoardEventService } from '../events/event-service.js';
import { AccountService } from '../accounts/accounts.js';
import { scryptParams } from '../accounts/password.js';
import { DocumentService } from '../documents/document-service.js';
import { ChatService } from '../chats/chats.js';
import { HistoryService } from '../compose/history-service.js';
import { CommentService } from '../comments/comment-service.js';

/** How often an open event stream checks again that its caller may still read the board. */
const STREAM_RECHECK_MS = 60_000;

/** What the domain services are built from: the app's configuration, database, providers and state. */
export type ServiceBase = Omit<Services, keyof DomainServices | 'jobs'>;

export function buildDomainServices({
  config,
  db,
  storage,
  nodeCache,
  events,
  signIn,
  embedder,
  chatModel,
  purger,
}: ServiceBase): DomainServices {
  const bounds = config.boardBounds;
  const assets = new AssetService({ db, storage, bounds, maxBytes: config.assetMaxBytes, publicBaseUrl: config.publicBaseUrl });
  const boards = new BoardService({ db, nodeCache, quotas: config.userQuotas });
  const nodes = new NodeService({ db, nodeCache, bounds, assets });
  const edges = new EdgeService({ db, bounds });
  return {
    boards,
    members: new MemberService({ db, publicBaseUrl: config.publicBaseUrl }),
    comments: new CommentService({ db }),
    nodes,
    edges,
    assets,
    batch: new BatchService({ db, nodeCache, bounds, nodes, edges }),
    history: new HistoryService({ db, nodeCache, bounds, nodes, edges, settings: config.history }),
    duplicate: new DuplicateService({ db, bounds }),
    canvas: new CanvasService({ db, storage, bounds, boards, assets }),
    apiKeys: new ApiKeyService({ db, env: config.apiKeyEnv, maxLive: config.apiKeysMaxPerUser }),
    webhooks: new WebhookService({ db, config: config.webhooks }),
    jobQueue: new JobQueue({ db }),
    accounts: new AccountService({
      db,
      dummy: signIn.mode === 'local' ? signIn.dummy : undefined,
      passwordParams: scryptParams(config.scryptCost),
    }),
    boardEvents: new BoardEventService({ db, hub: events, streamsPerUser: config.eventStreamsPerUser, recheckMs: STREAM_RECHECK_MS }),
    documents: new DocumentService({
      db,
      embedder,
      purger,
      maxQueued: config.jobMaxQueuedPerUser,
      quotas: config.userQuotas,
      // Read from the app's configuration at each search, as the route did before this object
      // (test/search-pruning.test.ts switches one server between the term index and the exact scan).
      get exactMaxChunks() {
        return config.searchExactMaxChunks;
      },
    }),
    chats: new ChatService({
      db,
      model: chatModel,
      embedder,
      contextTokens: config.llmContextTokens,
      maxTokens: config.llmMaxTokens,
      timeoutMs: config.llmTimeoutMs,
    }),
  };
}
