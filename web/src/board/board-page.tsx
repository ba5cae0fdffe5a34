// The board page (mounted by the app shell at /boards/:id): loads the board with its nodes and
// edges and shows the canvas. The owner gets flow_state in the board itself; a member, or someone
// reading a public board, gets it without, so its nodes and edges are read from their lists. What
// this person may do is the board's `permissions` (the service's one access rule).
import { useCallback, useEffect, useState } from 'react';
import { ReactFlowProvider, type Edge } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './board.css';
import './citations.css';
import { ApiError } from '../lib/api-error';
import { getBoard, listAllEdges, listAllNodes, type Board } from './board-api';
import { forgetSharedBoard, rememberSharedBoard } from '../boards/shared-with-me';
import { useDocumentTitle } from '../lib/title';
import { BoardCanvas } from './board-canvas';
import type { BoardFlowNode } from './board-context';
import { fromFlowState, fromFlowStateEdge, toFlowEdge, toFlowNode } from './flow-mapping';
import { withPending } from './canvas/sync/operations';
import { openOutbox } from './canvas/sync/outbox';
import { readEntries, readLastSeen, writeLastSeen } from './canvas/sync/store';

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
    };

type Loaded = { board: Board; nodes: BoardFlowNode[]; edges: Edge[]; isOwner: boolean; canEdit: boolean };

/** The board from the service; kept on this device as last seen. */
async function loadFromService(boardId: string): Promise<Loaded> {
  // Marks of the opening's steps in the page's Performance timeline (bench/canvas.ts reads them).
  performance.mark('bw:board-request');
  const board = await getBoard(boardId);
  performance.mark('bw:board-read');
  let loaded: Loaded;
  if (board.flow_state) {
    loaded = {
      board,
      nodes: board.flow_state.nodes.map(fromFlowState),
      edges: board.flow_state.edges.map(fromFlowStateEdge),
      isOwner: board.role === 'owner',
      canEdit: board.permissions.edit,
    };
  } else {
    const [nodes, edges] = await Promise.all([listAllNodes(boardId), listAllEdges(boardId)]);
    // Someone else's public board, not shared with this person as a member: remembered in this
    // browser for "Shared with me" (a member's boards come from the API).
    if (board.role == null) rememberSharedBoard(board);
    loaded = {
      board,
      nodes: nodes.map(toFlowNode),
      edges: edges.map(toFlowEdge),
      isOwner: board.role === 'owner',
      canEdit: board.permissions.edit,
    };
  }
  void writeLastSeen({ id: boardId, ...loaded, savedAt: Date.now() });
  return loaded;
}

export function BoardPage({ boardId }: { boardId: string }) {
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  // The canvas keeps it up to date as the board is renamed.
  useDocumentTitle(state.status === 'ready' ? state.board.name : state.status === 'failed' ? 'Board not found' : 'Loading…');

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      let loaded: Loaded;
      try {
        loaded = await loadFromService(boardId);
      } catch (error) {
        // The service cannot be reached (or fails): the board as this device last saw it.
        const status = error instanceof ApiError ? error.status : undefined;
        const lastSeen = status === undefined || status >= 500 ? await readLastSeen(boardId) : undefined;
        if (!lastSeen) throw error;
        loaded = lastSeen;
      }
      const outbox = await openOutbox(boardId, readEntries);
      performance.mark('bw:outbox-open');
      setState({ status: 'ready', ...loaded, ...withPending(loaded.nodes, loaded.edges, outbox.pendingOps()), outbox });
    } catch (error) {
      const status = error instanceof ApiError ? error.status : undefined;
      if (status === 404) forgetSharedBoard(boardId);
      setState({ status: 'failed', message: (error as Error).message, notFound: status === 404 });
    }
  }, [boardId]);

  useEffect(() => {
    void load();
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
      />
    </ReactFlowProvider>
  );
}
