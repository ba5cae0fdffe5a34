// The board page's calls to the API, all through web/src/api.ts (the typed client, or
// authorizedFetch / accessToken where the typed client cannot help: streamed replies and uploads
// with progress). Each function throws an `ApiError` (lib/api-error.ts) carrying the envelope's readable message.
import type { paths } from '@board-workspace/client';
import { accessToken, api, authorizedFetch, renewOnce } from '../api';
import { ApiError, answerFields } from '../lib/api-error';
import { failureMessage } from '../lib/request';
import { readServerSentEvents } from './sse';

type Json<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type Board = Json<'/v1/boards/{id}', 'get', 200>['data'];
export type FlowState = NonNullable<Board['flow_state']>;
export type NodeRecord = Json<'/v1/boards/{boardId}/nodes/{id}', 'get', 200>['data'];
export type EdgeRecord = Json<'/v1/boards/{boardId}/edges/{id}', 'get', 200>['data'];
export type Asset = Json<'/v1/boards/{boardId}/assets', 'post', 201>['data'];
export type Job = Json<'/v1/jobs/{id}', 'get', 200>['data'];
export type SearchHit = Json<'/v1/boards/{boardId}/documents/search', 'post', 200>['data'][number];
export type Chunk = Json<'/v1/boards/{boardId}/documents', 'get', 200>['data'][number];
export type NodeIndex = Json<'/v1/boards/{boardId}/documents/nodes', 'get', 200>['data'][number];
export type Chat = Json<'/v1/boards/{boardId}/chats', 'get', 200>['data'][number];
export type Message = Json<'/v1/boards/{boardId}/chats/{chatId}/messages', 'get', 200>['data'][number];
export type BoardEvent = Json<'/v1/boards/{boardId}/events', 'get', 200>['data'][number];
export type Presence = Json<'/v1/boards/{boardId}/presence', 'put', 200>['data'];
export type PresenceUpdate = {
  cursor?: { x: number; y: number } | null;
  selection?: string[];
  /** The nodes this tab is dragging now, where they are (whole numbers; each one of the selection). */
  dragging?: { node_id: string; x: number; y: number }[];
};
export type ApiNodeType = 'note' | 'url' | 'video' | 'document' | 'pdf' | 'image';

/** Unwraps an openapi-fetch result, turning the error envelope into a readable ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, fallback: string): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(`${fallback}: the service could not be reached (${(error as Error).message})`);
  }
  if (result.error !== undefined || result.data === undefined) {
    throw new ApiError(failureMessage(result.response.status, result.error, fallback), answerFields(result.response, result.error));
  }
  return result.data;
}

const boardPath = (boardId: string) => ({ params: { path: { boardId } } });

export async function getBoard(id: string): Promise<Board> {
  return (await unwrap(api.GET('/v1/boards/{id}', { params: { path: { id } } }), 'Could not load the board')).data;
}

/** All nodes of a board by pages (for boards the caller does not own: no flow_state); `onPage` gets
 * each page as it arrives. */
export async function listAllNodes(boardId: string, onPage?: (page: NodeRecord[]) => void): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      api.GET('/v1/boards/{boardId}/nodes', { params: { path: { boardId }, query: { limit: 100, order: 'asc', cursor } } }),
      'Could not load the nodes',
    );
    out.push(...page.data);
    onPage?.(page.data);
    cursor = page.has_more ? (page.cursor ?? undefined) : undefined;
  } while (cursor);
  return out;
}

export async function listAllEdges(boardId: string): Promise<EdgeRecord[]> {
  const out: EdgeRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      api.GET('/v1/boards/{boardId}/edges', { params: { path: { boardId }, query: { limit: 100, order: 'asc', cursor } } }),
      'Could not load the connections',
    );
    out.push(...page.data);
    cursor = page.has_more ? (page.cursor ?? undefined) : undefined;
  } while (cursor);
  return out;
}

export async function saveViewport(id: string, viewport: { x: number; y: number; zoom: number }): Promise<void> {
  await unwrap(
    api.PATCH('/v1/boards/{id}', {
      params: { path: { id } },
      body: { viewport_x: viewport.x, viewport_y: viewport.y, viewport_zoom: viewport.zoom },
    }),
    'Could not save the view',
  );
}

/** The board's automatic reading on or off (`auto_read`; the owner's). */
export async function setAutoRead(id: string, autoRead: boolean): Promise<Omit<Board, 'role' | 'permissions'>> {
  return (
    await unwrap(api.PATCH('/v1/boards/{id}', { params: { path: { id } }, body: { auto_read: autoRead } }), 'Could not change the setting')
  ).data;
}

export async function createNode(
  boardId: string,
  type: ApiNodeType,
  position: { x: number; y: number },
  data: Record<string, unknown>,
): Promise<NodeRecord> {
  return (
    await unwrap(
      api.POST('/v1/boards/{boardId}/nodes', { ...boardPath(boardId), body: { type, position, data } }),
      'Could not add the node',
    )
  ).data;
}

export async function updateNode(
  boardId: string,
  id: string,
  body: { position?: { x: number; y: number }; data?: Record<string, unknown> },
): Promise<NodeRecord> {
  return (
    await unwrap(api.PATCH('/v1/boards/{boardId}/nodes/{id}', { params: { path: { boardId, id } }, body }), 'Could not save the node')
  ).data;
}

export async function createEdge(boardId: string, source: string, target: string): Promise<EdgeRecord> {
  return (
    await unwrap(
      api.POST('/v1/boards/{boardId}/edges', { ...boardPath(boardId), body: { source_node_id: source, target_node_id: target } }),
      'Could not connect the nodes',
    )
  ).data;
}

export async function getEdge(boardId: string, id: string): Promise<EdgeRecord> {
  return (await unwrap(api.GET('/v1/boards/{boardId}/edges/{id}', { params: { path: { boardId, id } } }), 'Could not read the connection'))
    .data;
}

/** Replaces an edge's data (its label, colour and the rest: PATCH replaces edge_data whole). */
export async function updateEdge(boardId: string, id: string, data: Record<string, unknown>): Promise<EdgeRecord> {
  return (
    await unwrap(
      api.PATCH('/v1/boards/{boardId}/edges/{id}', { params: { path: { boardId, id } }, body: { data } }),
      'Could not save the connection',
    )
  ).data;
}

/** The most operations one batch request may carry (docs/api.md, "Batch writes"). */
const BATCH_LIMIT = 500;

export type DeleteOperation = { op: 'delete_node' | 'delete_edge'; id: string };

/**
 * Deletes nodes and edges with `POST …/batch`: all of them or none. A longer list goes in
 * consecutive batches of BATCH_LIMIT; it resolves with how many operations were written before
 * the first failure and that failure's error (whose message names `operations[i]` of its batch,
 * re-based on the whole list in `failedAt`).
 */
export async function deleteInBatches(
  boardId: string,
  operations: DeleteOperation[],
): Promise<{ done: number; error?: ApiError; failedAt?: number }> {
  let done = 0;
  while (done < operations.length) {
    const chunk = operations.slice(done, done + BATCH_LIMIT);
    try {
      await unwrap(api.POST('/v1/boards/{boardId}/batch', { ...boardPath(boardId), body: { operations: chunk } }), 'Could not delete');
    } catch (error) {
      const failure = error instanceof ApiError ? error : new ApiError((error as Error).message);
      const index = failure.operationIndex;
      return { done, error: failure, failedAt: index === undefined ? undefined : done + index };
    }
    done += chunk.length;
  }
  return { done };
}

/** The file name a Content-Disposition header gives (filename* first), if any. */
function dispositionFileName(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      // fall back to the plain filename
    }
  }
  return /filename\s*=\s*"?([^";]+)"?/.exec(header)?.[1]?.trim() || undefined;
}

/** The board as a JSON Canvas file (`GET …/export?format=jsoncanvas`), with the name to save it under. */
export async function exportCanvas(boardId: string, boardName: string): Promise<{ blob: Blob; fileName: string }> {
  let response: Response;
  try {
    response = await authorizedFetch(`/v1/boards/${encodeURIComponent(boardId)}/export?format=jsoncanvas`);
  } catch (error) {
    throw new ApiError(`Could not export the board: the service could not be reached (${(error as Error).message})`);
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new ApiError(failureMessage(response.status, body, 'Could not export the board'), answerFields(response, body));
  }
  const fileName = dispositionFileName(response.headers.get('content-disposition')) ?? `${boardName}.canvas`;
  return { blob: await response.blob(), fileName };
}

/** The vectorize request; `transcript_asset_id` (a video's .vtt/.srt asset) is issue 29's, which the generated client may not name yet. */
export type VectorizeRequest = { node_id: string; text?: string; transcript_asset_id?: string };

export async function vectorize(boardId: string, body: VectorizeRequest): Promise<Job> {
  const request = body as { node_id: string; text?: string };
  return (await unwrap(api.POST('/v1/boards/{boardId}/documents', { ...boardPath(boardId), body: request }), 'Could not start reading it'))
    .data;
}

/** The board's vectorized nodes, each with a hash of the text indexed (one request, no pages). */
export async function listNodeIndexes(boardId: string): Promise<NodeIndex[]> {
  return (await unwrap(api.GET('/v1/boards/{boardId}/documents/nodes', boardPath(boardId)), 'Could not load what is searchable')).data;
}

export async function getJob(id: string): Promise<Job> {
  return (await unwrap(api.GET('/v1/jobs/{id}', { params: { path: { id } } }), 'Could not check the job')).data;
}

/**
 * The lowest cosine similarity listed: below it a chunk shares (almost) nothing with the query (the
 * local model scores those 0 or a hair above), and a result shown as "0.00" only buries the others.
 */
export const SEARCH_MIN_SCORE = 0.01;

export async function search(boardId: string, query: string): Promise<SearchHit[]> {
  const body = { query, limit: 10, threshold: SEARCH_MIN_SCORE };
  return (await unwrap(api.POST('/v1/boards/{boardId}/documents/search', { ...boardPath(boardId), body }), 'Search failed')).data;
}

/** Pages of the board's stored chunks (to find which node a chat source came from). */
export async function listChunks(boardId: string, cursor?: string): Promise<{ data: Chunk[]; next?: string }> {
  const page = await unwrap(
    api.GET('/v1/boards/{boardId}/documents', { params: { path: { boardId }, query: { limit: 100, cursor } } }),
    'Could not look up the sources',
  );
  return { data: page.data, next: page.has_more ? (page.cursor ?? undefined) : undefined };
}

export async function listChats(boardId: string): Promise<Chat[]> {
  const page = await unwrap(
    api.GET('/v1/boards/{boardId}/chats', { params: { path: { boardId }, query: { limit: 100 } } }),
    'Could not load the threads',
  );
  return page.data;
}

/** A thread: about one node (`nodeId`), limited to a selection (`nodeIds`), or about the whole board. */
export async function createChat(boardId: string, title: string, nodeId: string | null, nodeIds?: string[]): Promise<Chat> {
  return (
    await unwrap(
      api.POST('/v1/boards/{boardId}/chats', {
        ...boardPath(boardId),
        body: { title, node_id: nodeId, ...(nodeIds?.length ? { node_ids: nodeIds } : {}) },
      }),
      'Could not start a thread',
    )
  ).data;
}

export async function updateChatTitle(boardId: string, chatId: string, title: string): Promise<void> {
  await unwrap(
    api.PATCH('/v1/boards/{boardId}/chats/{chatId}', { params: { path: { boardId, chatId } }, body: { title } }),
    'Could not rename the thread',
  );
}

export async function listMessages(boardId: string, chatId: string): Promise<Message[]> {
  const out: Message[] = [];
  let cursor: string | undefined;
  // Oldest first; a long thread is read in pages (bounded, so a huge thread cannot hang the panel).
  for (let pages = 0; pages < 20; pages++) {
    const page = await unwrap(
      api.GET('/v1/boards/{boardId}/chats/{chatId}/messages', { params: { path: { boardId, chatId }, query: { limit: 100, cursor } } }),
      'Could not load the messages',
    );
    out.push(...page.data);
    cursor = page.has_more ? (page.cursor ?? undefined) : undefined;
    if (!cursor) break;
  }
  return out;
}

export async function latestMessage(boardId: string, chatId: string): Promise<Message | undefined> {
  const page = await unwrap(
    api.GET('/v1/boards/{boardId}/chats/{chatId}/messages', { params: { path: { boardId, chatId }, query: { limit: 1, order: 'desc' } } }),
    'Could not load the reply',
  );
  return page.data[0];
}

export interface StreamHandlers {
  onDelta(text: string): void;
  /** The stored reply, with its metadata (sources, citations). */
  onComplete(message: { id: string; content: string; model: string | null; created_at: string; metadata?: Message['metadata'] }): void;
  onError(message: string): void;
}

/**
 * Posts a user message with `stream: true` and feeds the text/event-stream to the handlers.
 * Rejects with ApiError when the request itself is refused (the draft is then kept by the
 * caller), with an AbortError when `signal` aborts.
 */
export async function streamMessage(
  boardId: string,
  chatId: string,
  content: string,
  signal: AbortSignal,
  handlers: StreamHandlers,
): Promise<'complete' | 'error' | 'cut'> {
  const response = await authorizedFetch(`/v1/boards/${encodeURIComponent(boardId)}/chats/${encodeURIComponent(chatId)}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ content, stream: true }),
    signal,
  });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new ApiError(failureMessage(response.status, body, 'The message was not sent'), answerFields(response, body));
  }
  let outcome: 'complete' | 'error' | 'cut' = 'cut';
  await readServerSentEvents(response.body, (event, data) => {
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    if (event === 'message.delta' && typeof payload.content === 'string') handlers.onDelta(payload.content);
    else if (event === 'message.complete') {
      outcome = 'complete';
      handlers.onComplete(payload.message as Parameters<StreamHandlers['onComplete']>[0]);
    } else if (event === 'error') {
      outcome = 'error';
      handlers.onError(typeof payload.message === 'string' ? payload.message : 'The reply failed');
    }
  });
  return outcome;
}

/**
 * Uploads a file as a board asset with XMLHttpRequest (fetch cannot report upload progress).
 * `onProgress` gets 0..1. The abort function cancels the upload.
 */
export function uploadAsset(boardId: string, file: File, onProgress: (fraction: number) => void): { done: Promise<Asset>; abort(): void } {
  const xhr = new XMLHttpRequest();
  const done = (async () => {
    const send = (token: string | undefined) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        xhr.open('POST', `/v1/boards/${encodeURIComponent(boardId)}/assets`);
        if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
        xhr.responseType = 'json';
        xhr.upload.onprogress = (event) => {
          if (event.lengthComputable) onProgress(event.loaded / event.total);
        };
        xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
        xhr.onerror = () => reject(new ApiError(`Uploading ${file.name} failed: the service could not be reached`));
        xhr.onabort = () => reject(new ApiError(`Uploading ${file.name} was cancelled`));
        const form = new FormData();
        form.append('file', file, file.name);
        xhr.send(form);
      });
    const token = await accessToken();
    let result = await send(token);
    // An access token that expired while the person worked: renew once and send again.
    if (result.status === 401) {
      const renewed = await renewOnce();
      if (renewed && renewed !== token) result = await send(renewed);
    }
    if (result.status === 201) return (result.body as { data: Asset }).data;
    throw new ApiError(failureMessage(result.status, result.body, `Uploading ${file.name} failed`), answerFields(result, result.body));
  })();
  return { done, abort: () => xhr.abort() };
}

/**
 * Opens the board's event stream (text/event-stream) after `after` (from now, with a `ready`
 * event, when undefined). `sessionId` is the tab's presence session, which leaves when the
 * stream closes. Resolves with the response; the caller reads its body with readServerSentEvents.
 */
export async function openBoardEvents(
  boardId: string,
  options: { after?: number; sessionId: string; signal: AbortSignal },
): Promise<Response> {
  const query = new URLSearchParams({ session_id: options.sessionId });
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.after !== undefined) headers['last-event-id'] = String(options.after);
  return authorizedFetch(`/v1/boards/${encodeURIComponent(boardId)}/events?${query}`, { headers, signal: options.signal });
}

/** Tells the board's other viewers this session is there, with its cursor and selection. */
export async function announcePresence(boardId: string, sessionId: string, update: PresenceUpdate): Promise<void> {
  await unwrap(
    api.PUT('/v1/boards/{boardId}/presence', { ...boardPath(boardId), body: { session_id: sessionId, ...update } }),
    'Could not announce presence',
  );
}

/** The session leaves the board; `keepalive` so it is sent even while the page unloads. */
export async function leavePresence(boardId: string, sessionId: string): Promise<void> {
  const token = await accessToken();
  await fetch(`/v1/boards/${encodeURIComponent(boardId)}/presence/${encodeURIComponent(sessionId)}`, {
    method: 'DELETE',
    credentials: 'same-origin',
    keepalive: true,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}
