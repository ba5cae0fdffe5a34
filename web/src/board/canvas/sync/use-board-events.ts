// The board's event stream (GET /v1/boards/{id}/events, text/event-stream, read with fetch because
// EventSource cannot send the bearer token): other people's changes to nodes and edges are handed
// to server-sync.ts, which applies them through the graph; the board's own changes (its name, its
// sharing) go to `onBoard`; presence events to `onPresence`. Subscribing comes first: on `ready`
// (and on `reset`, when the point to resume from is no longer kept) the board's contents are
// loaded again, with the events that arrive meanwhile applied after them, so nothing between the
// page's load and the subscription is lost. A dropped connection (also: the browser went offline,
// or the stream fell silent) is resumed from the last sequence number (Last-Event-ID), after a
// growing pause, or at once when the browser is back online. The stream stops for good after `board.deleted`
// or when the board can no longer be read (404/403). The person's own role changing (`member.updated`
// naming them) has the board read again at once, so its `permissions` decide what the page offers;
// their removal (`member.removed` naming them) stops the stream: they no longer have access.
import { useEffect, useRef } from 'react';
import {
  type Board,
  type BoardEvent,
  type EdgeRecord,
  getBoard,
  listAllEdges,
  listAllNodes,
  type NodeRecord,
  openBoardEvents,
  type Presence,
} from '../../board-api';
import { sessionState } from '../../../auth/session';
import { ApiError } from '../../../lib/api-error';
import { readServerSentEvents } from '../../sse';
import type { ServerSync } from './server-sync';
import type { CanvasGraph } from '../use-board-graph';

/** Pauses before reconnecting, by the number of failures in a row (the last one repeats): short,
 * so the service's return is noticed within seconds (the outbox then sends what waits). */
const RETRY_MS = [500, 1_000, 2_000, 3_000, 5_000];
/** A stream silent this long (the service sends a keep-alive every 15 s) is taken for dead. */
const SILENCE_MS = 40_000;
/** A stream open this long counts as a success: the next reconnect starts with the shortest pause. */
const STEADY_MS = 10_000;

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface BoardEventsOptions {
  boardId: string;
  /** This tab's presence session: the service makes it leave when the stream closes. */
  sessionId: string;
  graph: CanvasGraph;
  sync: ServerSync;
  /** The board itself changed (name, sharing); the viewport in it is the owner's, not applied. */
  onBoard(board: Board): void;
  /** The board was deleted (`deleted`), or this person may no longer read it (`no-access`: removed
   * from its members, or it stopped being shared): the stream has stopped. */
  onGone(message: string, reason: 'deleted' | 'no-access'): void;
  onPresence(presence: Presence): void;
  /** Each time the stream (re)connects: presence is announced again, others' is sent afresh. */
  onConnected(): void;
  onStatus?(status: StreamStatus): void;
  /** A read (vectorize job) ended, here or elsewhere; `error` is a failed one's reason. */
  onDocument?(nodeId: string | null, outcome: { failed: boolean; error?: string }): void;
  /** A comment was created, changed (edited, resolved, reopened) or deleted (comments/use-comments.ts). */
  onComment?(type: string, data: Record<string, unknown>): void;
  notify(message: string): void;
  /** The board's first read is on the canvas (board-load.ts: it arrives in batches); a reload waits for it. */
  ready?: Promise<unknown>;
}

const isUploadPlaceholder = (id: string) => id.startsWith('upload-');

/** The signed-in person's id, whom `member.*` events may name. */
function myUserId(): string | undefined {
  const session = sessionState();
  return session.status === 'signed-in' ? session.user.id : undefined;
}

const NO_ACCESS = 'You no longer have access to this board.';

export function useBoardEvents(options: BoardEventsOptions): void {
  // The callbacks change with every render; the stream is opened once per board and session.
  const latest = useRef(options);
  latest.current = options;
  const { boardId, sessionId } = options;

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    const call = () => latest.current;
    let lastSeq: number | undefined;
    let stopped = false;
    // While the contents are loaded again, events wait here and are applied after them.
    let buffer: BoardEvent[] | undefined;
    let reloads = 0;

    const apply = (event: BoardEvent) => {
      const { sync } = call();
      const data = event.data as Record<string, unknown>;
      if ((event.type as string).startsWith('comment.')) return call().onComment?.(event.type, data);
      switch (event.type) {
        case 'node.created':
          // A node brought back with its old id (a restore of the board's history): the stream's
          // order says it exists again, whatever this tab saw deleted before.
          sync.restored([data.id as string], []);
          return sync.node(data as unknown as NodeRecord);
        case 'node.updated':
          return sync.node(data as unknown as NodeRecord);
        case 'node.deleted':
          return sync.nodesDeleted([data.id as string]);
        case 'edge.created':
          sync.restored([], [data.id as string]);
          return sync.edge(data as unknown as EdgeRecord);
        case 'edge.updated':
          return sync.edge(data as unknown as EdgeRecord);
        case 'edge.deleted':
          return sync.edgeDeleted(data.id as string);
        case 'board.updated':
          return call().onBoard(data as unknown as Board);
        case 'document.completed':
        case 'document.failed':
          return call().onDocument?.(typeof data.node_id === 'string' ? data.node_id : null, {
            failed: event.type === 'document.failed',
            error: typeof data.error === 'string' ? data.error : undefined,
          });
        default:
          // Assets and documents: nothing on the canvas shows them apart from their nodes.
          return;
      }
    };

    const reload = async () => {
      const mine = ++reloads;
      buffer ??= [];
      // Compared with the whole board as first read, not with the part of it that has arrived.
      await call().ready;
      for (let attempt = 0; !signal.aborted; attempt++) {
        const before = call().graph.ids();
        try {
          const [board, nodes, edges] = await Promise.all([getBoard(boardId), listAllNodes(boardId), listAllEdges(boardId)]);
          if (signal.aborted || mine !== reloads) return;
          const { sync, onBoard } = call();
          onBoard(board);
          for (const node of nodes) sync.node(node);
          for (const edge of edges) sync.edge(edge);
          // Only what was on the canvas before the load started can be missing because it was deleted.
          const nodeIds = new Set(nodes.map((n) => n.id));
          const edgeIds = new Set(edges.map((e) => e.id));
          const gone = before.nodes.filter((id) => !nodeIds.has(id) && !isUploadPlaceholder(id) && !sync.localOnly(id));
          if (gone.length > 0) sync.nodesDeleted(gone);
          for (const id of before.edges) if (!edgeIds.has(id) && !sync.localOnly(id)) sync.edgeDeleted(id);
          const waiting = buffer ?? [];
          buffer = undefined;
          for (const event of waiting) apply(event);
          return;
        } catch (error) {
          if (signal.aborted || mine !== reloads) return;
          // The service out of reach, or away for a moment: the header's "Reconnecting…" says so, and
          // a notice here would only cover the canvas while the person goes on working offline.
          const transient = error instanceof ApiError && (error.unreachable || error.status === 503);
          if (attempt === 0 && !transient) call().notify(`The board could not be brought up to date: ${(error as Error).message}`);
          await pause(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!, signal);
        }
      }
    };

    // The person's role changed: the board's permissions as the service now answers them.
    const rereadBoard = async () => {
      try {
        const board = await getBoard(boardId);
        if (!signal.aborted && !stopped) call().onBoard(board);
      } catch (error) {
        const status = error instanceof ApiError ? error.status : undefined;
        if (signal.aborted || stopped || (status !== 404 && status !== 403)) return;
        stopped = true;
        connection?.abort();
        call().onGone(NO_ACCESS, 'no-access');
      }
    };

    const receive = (type: string, data: string) => {
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(data) as Record<string, unknown>;
      } catch {
        return;
      }
      if (type === 'presence') return call().onPresence(payload as unknown as Presence);
      if (type === 'ready' || type === 'reset') {
        lastSeq = payload.latest_seq as number;
        void reload();
        return;
      }
      const event = payload as unknown as BoardEvent;
      if (typeof event.seq !== 'number') return;
      if (lastSeq !== undefined && event.seq <= lastSeq) return; // already applied
      lastSeq = event.seq;
      if (event.type === 'board.deleted') {
        stopped = true;
        call().onGone('This board has been deleted.', 'deleted');
        return;
      }
      if (
        (event.type === 'member.updated' || event.type === 'member.removed') &&
        (event.data as { user_id?: unknown }).user_id === myUserId()
      ) {
        // The service ends this stream after it; a removed person does not reconnect.
        if (event.type === 'member.removed') {
          stopped = true;
          call().onGone(NO_ACCESS, 'no-access');
          return;
        }
        void rereadBoard();
      }
      if (buffer) buffer.push(event);
      else apply(event);
    };

    // The connection in use; cut when the browser goes offline or nothing (not even the
    // service's keep-alive comment) has come for a while, so a dead connection is not waited on.
    let connection: AbortController | undefined;
    let wake: (() => void) | undefined;
    const cut = () => connection?.abort();
    const online = () => wake?.();
    window.addEventListener('offline', cut);
    window.addEventListener('online', online);

    void (async () => {
      let failures = 0;
      while (!signal.aborted && !stopped) {
        const current = new AbortController();
        connection = current;
        const stop = () => current.abort();
        signal.addEventListener('abort', stop, { once: true });
        let watchdog: ReturnType<typeof setTimeout> | undefined;
        let opened: number | undefined;
        const alive = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(stop, SILENCE_MS);
        };
        try {
          alive();
          const response = await openBoardEvents(boardId, { after: lastSeq, sessionId, signal: current.signal });
          if (response.status === 404 || response.status === 403) {
            stopped = true;
            call().onGone(NO_ACCESS, 'no-access');
            break;
          }
          if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
          opened = Date.now();
          call().onStatus?.('live');
          call().onConnected();
          const body = response.body.pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(chunk, out) {
                alive();
                out.enqueue(chunk);
              },
            }),
          );
          await readServerSentEvents(body, receive);
        } catch {
          // cut, offline, or refused: tried again below
        } finally {
          clearTimeout(watchdog);
          signal.removeEventListener('abort', stop);
          current.abort();
        }
        if (stopped || signal.aborted) break;
        // A stream that stayed open a while was a success; one that keeps ending at once backs off.
        if (opened !== undefined && Date.now() - opened > STEADY_MS) failures = 0;
        call().onStatus?.('reconnecting');
        // Back online: at once; otherwise after a pause that grows with each failure.
        const delay = navigator.onLine ? RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]! : SILENCE_MS;
        await new Promise<void>((resolve) => {
          wake = resolve;
          void pause(delay, signal).then(resolve);
        });
        wake = undefined;
      }
      if (!signal.aborted) call().onStatus?.('stopped');
    })();

    return () => {
      window.removeEventListener('offline', cut);
      window.removeEventListener('online', online);
      controller.abort();
    };
  }, [boardId, sessionId]);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
