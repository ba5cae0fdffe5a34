// What the MCP tools work with: the app's services they call (a structural subset of the app's
// Services, so the route hands its services over as they are) and, per request, the caller.
import type { Principal } from '../auth/principal.js';
import type { Origin } from '../assets/asset-service.js';
import type { BoardService } from '../boards/board-service.js';
import type { Db } from '../db/schema.js';
import type { EdgeService } from '../edges/edge-service.js';
import type { NodeService } from '../nodes/node-service.js';
import type { DocumentService } from '../documents/document-service.js';
import type { ChatService } from '../chats/chats.js';
import type { CommentService } from '../comments/comment-service.js';
import type { ApiError } from '../errors.js';
import type { Logger } from '../lib/logger.js';

export interface McpDeps {
  db: Db;
  boards: BoardService;
  nodes: NodeService;
  edges: EdgeService;
  documents: DocumentService;
  chats: ChatService;
  comments: CommentService;
  jobs: { wake(): void };
  /** The app's slots of expensive work per user: every tool call runs holding one (src/lib/heavy-work.ts). */
  heavyWork: { run<T>(userId: string, work: () => Promise<T>): Promise<T> };
}

/** One MCP request: who calls, and what of the HTTP request the tools need, handed in by the route. */
export interface McpCall extends Origin {
  principal: Principal;
  log: Pick<Logger, 'error'>;
  /** The API's reading of any error (the one mapping of src/http/plugins/errors.ts). */
  errorOf(error: Error): ApiError;
  /** Runs a tool call's work within the caller's share (set by buildMcpServer: one of the user's slots of expensive work). */
  share?<T>(work: () => Promise<T>): Promise<T>;
}
