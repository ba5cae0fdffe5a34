// The canvas's viewport: where a board opens (its saved view, or its content fitted in view if
// the view was never moved), saving the view when the owner pans or zooms (debounced), and the
// canvas position at the centre of the screen, where the toolbar puts new things.
import { type RefObject, useCallback, useRef } from 'react';
import { type Edge, type OnMoveEnd, useReactFlow, type XYPosition } from '@xyflow/react';
import { type Board, saveViewport } from '../board-api';
import type { BoardFlowNode } from '../board-context';
import type { SaveTracker } from '../save-tracker';

const VIEWPORT_SAVE_MS = 800;

export interface ViewportOptions {
  board: Board;
  /** Only the owner's view is saved. */
  isOwner: boolean;
  hasNodes: boolean;
  tracker: SaveTracker;
}

export function useViewportPersistence({ board, isOwner, hasNodes, tracker }: ViewportOptions) {
  const neverMoved = board.viewport_x === 0 && board.viewport_y === 0 && board.viewport_zoom === 1;
  const fitView = neverMoved && hasNodes;
  const initialFit = useRef(fitView);
  const savedViewport = useRef({ x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom });

  const onMoveEnd: OnMoveEnd = (event, viewport) => {
    // The fit on opening a never-moved board is not a choice of the person: not saved (opening a
    // board should not change it); nor is a view that did not change.
    if (initialFit.current && !event) {
      initialFit.current = false;
      return;
    }
    const last = savedViewport.current;
    if (
      !isOwner ||
      (Math.abs(last.x - viewport.x) < 0.5 && Math.abs(last.y - viewport.y) < 0.5 && Math.abs(last.zoom - viewport.zoom) < 1e-4)
    )
      return;
    tracker.schedule(
      'viewport',
      async () => {
        await saveViewport(board.id, viewport);
        savedViewport.current = viewport;
      },
      VIEWPORT_SAVE_MS,
    );
  };

  return {
    defaultViewport: { x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom },
    fitView,
    onMoveEnd,
  };
}

/** The canvas position at the centre of `wrapper` on screen. */
export function useViewCentre(wrapper: RefObject<HTMLDivElement | null>): () => XYPosition {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  return useCallback(() => {
    const rect = wrapper.current?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    return flow.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
  }, [flow, wrapper]);
}
