// The canvas made multiplayer: this tab's presence session, the event stream (use-board-events.ts)
// feeding other people's changes through server-sync.ts into the graph, the board as it is now
// (its name and sharing change under the page, and the person's role and permissions with it; a
// person who lost access is told so: `accessLost`), and presence (use-presence.ts) with the pointer
// handlers that report this person's cursor in flow coordinates.
import { type PointerEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { type Edge, useReactFlow } from '@xyflow/react';
import type { Board } from '../../board-api';
import type { BoardFlowNode } from '../../board-context';
import { type PendingSaves, ServerSync } from './server-sync';
import type { TextSync } from './text-sync';
import { type StreamStatus, useBoardEvents } from './use-board-events';
import type { CanvasGraph } from '../use-board-graph';
import { newSessionId, usePresence } from './use-presence';

export interface LiveBoardOptions {
  board: Board;
  graph: CanvasGraph;
  tracker: PendingSaves;
  /** Notes' text typed here, which another person's text is merged into. */
  text: TextSync;
  /** Ids of the nodes this person has selected (shown to the others). */
  selection: string[];
  notify(message: string): void;
  /** A node's vectorize job completed, here or elsewhere. */
  onDocument?(nodeId: string | null, outcome: { failed: boolean; error?: string }): void;
  /** The event stream (re)connected: the service is reachable again. */
  onConnected?(): void;
  /** A comment event (comments/use-comments.ts). */
  onComment?(type: string, data: Record<string, unknown>): void;
  /** The board's first read is on the canvas (sync/use-arrivals.ts). */
  ready?: Promise<unknown>;
}

export function useLiveBoard(options: LiveBoardOptions) {
  const { board: initial, graph, tracker, text, selection, notify, onDocument, onConnected, onComment, ready } = options;
  const boardId = initial.id;
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const sessionId = useMemo(newSessionId, []);
  const sync = useMemo(() => new ServerSync(graph, tracker, text), [graph, tracker, text]);
  useEffect(() => sync.start(), [sync]);
  const [board, setBoard] = useState(initial);
  const [gone, setGone] = useState(false);
  /** Why the page can no longer change the board: removed from its members, or no longer shared. */
  const [accessLost, setAccessLost] = useState<string | undefined>();
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const presence = usePresence({ boardId, sessionId, selection });

  useBoardEvents({
    boardId,
    sessionId,
    graph,
    sync,
    // The viewport in it is the owner's saved view: never applied to the view shown.
    onBoard: (next) => setBoard((current) => ({ ...current, ...next, flow_state: current.flow_state })),
    onGone: (message, reason) => {
      setGone(true);
      // The owner always has access: a board of theirs no longer found was deleted.
      if (reason === 'no-access' && initial.role !== 'owner') setAccessLost(message);
      else notify(reason === 'no-access' ? 'This board has been deleted.' : message);
    },
    onPresence: presence.receive,
    onConnected: () => {
      presence.reannounce();
      onConnected?.();
    },
    onStatus: setStatus,
    onDocument,
    onComment,
    notify,
    ready,
  });

  const { moveCursor } = presence;
  const onPointerMove = useCallback(
    (event: PointerEvent) => moveCursor(flow.screenToFlowPosition({ x: event.clientX, y: event.clientY })),
    [flow, moveCursor],
  );
  const onPointerLeave = useCallback(() => moveCursor(null), [moveCursor]);

  /** Other people's changes are not arriving (the stream is being reconnected). */
  const reconnecting = status === 'reconnecting' && !gone;
  return { sync, board, gone, accessLost, reconnecting, presence, onPointerMove, onPointerLeave };
}
