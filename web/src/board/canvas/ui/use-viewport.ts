// The canvas's viewport, per person and device: where a board opens (this browser's last view of
// it for this person, kept in localStorage; else the board's stored view, which is only the default
// for a first open; else its content fitted in view when that was never set), keeping the view as
// the person pans and zooms (in this browser only: one person's zoom on a phone never moves another
// device's view), "Set as default view" for the owner (the one write of the board's viewport), and
// the canvas position at the centre of the screen, where the toolbar puts new things.
import { type RefObject, useCallback, useMemo, useRef } from 'react';
import { type Edge, type OnMoveEnd, useReactFlow, type Viewport, type XYPosition } from '@xyflow/react';
import { sessionState } from '../../../auth/session';
import { type Board, saveViewport } from '../../board-api';
import type { BoardFlowNode } from '../../board-context';

/** localStorage key of this person's view of a board in this browser. */
export function viewportKey(boardId: string): string {
  const session = sessionState();
  const userId = session.status === 'signed-in' ? session.user.id : 'anonymous';
  return `bw-viewport:${userId}:${boardId}`;
}

function readViewport(key: string): Viewport | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(key) ?? 'null') as Partial<Viewport> | null;
    if (value && [value.x, value.y, value.zoom].every((n) => typeof n === 'number' && Number.isFinite(n)) && value.zoom! > 0) {
      return value as Viewport;
    }
  } catch {
    // Unreadable: the board's default view is used.
  }
  return undefined;
}

function writeViewport(key: string, viewport: Viewport): void {
  try {
    localStorage.setItem(key, JSON.stringify({ x: viewport.x, y: viewport.y, zoom: viewport.zoom }));
  } catch {
    // Storage full or disabled: the view is simply not kept.
  }
}

export interface ViewportOptions {
  board: Board;
  hasNodes: boolean;
  /** The person has done nothing on the page yet (navigation/use-untouched.ts). */
  untouched: () => boolean;
}

export function useViewportPersistence({ board, hasNodes, untouched }: ViewportOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const key = useMemo(() => viewportKey(board.id), [board.id]);
  // Only when the page opens: later changes of the board's default never move the view shown.
  const atOpening = useRef({ board, hasNodes });
  atOpening.current = { board, hasNodes };
  const opening = useMemo(() => {
    const { board, hasNodes } = atOpening.current;
    const own = readViewport(key);
    if (own) return { viewport: own, fitView: false };
    const neverSet = board.viewport_x === 0 && board.viewport_y === 0 && board.viewport_zoom === 1;
    return { viewport: { x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom }, fitView: neverSet && hasNodes };
  }, [key]);
  const initialFit = useRef(opening.fitView);

  const onMoveEnd: OnMoveEnd = useCallback(
    (event, viewport) => {
      // The fit on opening is not a choice of the person: not kept (the next open fits again); nor
      // are the fits as the rest of the board arrives, made until the person first acts.
      if (initialFit.current && !event) {
        if (untouched()) return;
        // The person has acted: this move (a zoom button's, say) and every one after it is theirs.
        initialFit.current = false;
      }
      writeViewport(key, viewport);
    },
    [key, untouched],
  );

  /** The owner makes the current view the board's default, for everyone's first open. */
  const setAsDefault = useCallback(() => saveViewport(board.id, flow.getViewport()), [board.id, flow]);

  return { defaultViewport: opening.viewport, fitView: opening.fitView, onMoveEnd, setAsDefault };
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
