// The board page (mounted by the app shell at /boards/:id): reads the board with its nodes and edges
// as they arrive (board-load.ts) and shows the canvas with the first of them, handing it the rest as
// they come. The owner gets flow_state in the board itself; a member, or someone reading a public
// board, gets it without, so its nodes and edges are read from their lists. What this person may do
// is the board's `permissions` (the service's one access rule).
import { useCallback, useEffect, useRef, useState } from 'react';
import { ReactFlowProvider, type Edge } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './board.css';
import './citations.css';
import { ApiError } from '../lib/api-error';
import type { Board } from './board-api';
import { BoardLoad, type FirstPart, MARKS } from './board-load';
import { forgetSharedBoard, rememberSharedBoard } from '../boards/shared-with-me';
import { useDocumentTitle } from '../lib/title';
import { BoardCanvas } from './board-canvas';
import type { BoardFlowNode } from './board-context';
import { withPending } from './canvas/sync/operations';
import { openOutbox } from './canvas/sync/outbox';
import { forgetLastSeen, readEntries, readLastSeen, writeLastSeen } from './canvas/sync/store';

type LoadState =
  | { status: 'loading' }
  | { status: 'failed'; message: string; notFound: boolean }
  | {
      status: 'ready';
      board: Board;
      nodes: BoardFlowNode[];
      edges: Edge[];
      isOwner: boolean;
      canEdit: boolean;
      /** The person's edits not yet confirmed (canvas/sync/outbox.ts), already shown on the nodes and edges. */
      outbox: Awaited<ReturnType<typeof openOutbox>>;
      /** The rest of the board as it arrives (none when opened from the copy last seen). */
      arriving?: BoardLoad;
    };

type Loaded = { board: Board; nodes: BoardFlowNode[]; edges: Edge[]; isOwner: boolean; canEdit: boolean };

/** The first part of the board from the service; the whole board is kept on this device as last seen once read. */
function fromService(reading: BoardLoad, first: FirstPart): Loaded {
  const { board } = first;
  const rights = { isOwner: board.role === 'owner', canEdit: board.permissions.edit };
  // Someone else's public board, not shared with this person as a member: remembered in this
  // browser for "Shared with me" (a member's boards come from the API).
  if (!board.flow_state && board.role == null) rememberSharedBoard(board);
  void reading.done.then((read) => {
    if (read) void writeLastSeen({ id: board.id, board, nodes: reading.nodes, edges: reading.edges, ...rights, savedAt: Date.now() });
  });
  return { board, nodes: first.nodes, edges: first.edges, ...rights };
}

export function BoardPage({ boardId }: { boardId: string }) {
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  // The canvas keeps it up to date as the board is renamed.
  useDocumentTitle(state.status === 'ready' ? state.board.name : state.status === 'failed' ? 'Board not found' : 'Loading…');

  const reading = useRef<BoardLoad | undefined>(undefined);
  const load = useCallback(async () => {
    setState({ status: 'loading' });
    reading.current?.cancel();
    const current = new BoardLoad(boardId);
    reading.current = current;
    try {
      let loaded: Loaded;
      let arriving: BoardLoad | undefined = current;
      try {
        loaded = fromService(current, await current.first);
      } catch (error) {
        // The service cannot be reached (or fails): the board as this device last saw it.
        const status = error instanceof ApiError ? error.status : undefined;
        const lastSeen = status === undefined || status >= 500 ? await readLastSeen(boardId) : undefined;
        if (!lastSeen) throw error;
        loaded = lastSeen;
        arriving = undefined;
      }
      const outbox = await openOutbox(boardId, readEntries);
      performance.mark(MARKS.outbox);
      if (reading.current !== current) return;
      setState({ status: 'ready', ...loaded, ...withPending(loaded.nodes, loaded.edges, outbox.pendingOps()), outbox, arriving });
    } catch (error) {
      if (reading.current !== current) return;
      const status = error instanceof ApiError ? error.status : undefined;
      if (status === 404) {
        // Deleted, or no longer shared with this person: nothing of it stays on the device.
        forgetSharedBoard(boardId);
        void forgetLastSeen(boardId);
      }
      setState({ status: 'failed', message: (error as Error).message, notFound: status === 404 });
    }
  }, [boardId]);

  useEffect(() => {
    void load();
    return () => reading.current?.cancel();
  }, [load]);

  if (state.status === 'loading') {
    return (
      <div className="bw-board bw-board--message">
        <p className="bw-muted" role="status">
          Loading the board…
        </p>
      </div>
    );
  }
  if (state.status === 'failed') {
    return (
      <div className="bw-board bw-board--message">
        <div className="bw-message-card" role="alert">
          <h1>{state.notFound ? 'Board not found' : 'The board could not be loaded'}</h1>
          <p>{state.notFound ? 'It may have been deleted, or it is private to someone else.' : state.message}</p>
          {!state.notFound && (
            <button type="button" className="bw-button is-primary" onClick={() => void load()}>
              Try again
            </button>
          )}
        </div>
      </div>
    );
  }
  return (
    <ReactFlowProvider key={boardId}>
      <BoardCanvas
        board={state.board}
        initialNodes={state.nodes}
        initialEdges={state.edges}
        isOwner={state.isOwner}
        canEdit={state.canEdit}
        outbox={state.outbox}
        arriving={state.arriving}
      />
    </ReactFlowProvider>
  );
}
