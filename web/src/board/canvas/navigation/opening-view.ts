// The view a board opens at, known before the first card is drawn: when the board opens fitted
// (use-viewport.ts: never moved), the fit is worked out here from the cards' stored or default sizes
// and the window's size, so the first render already draws the cards at the zoom they are seen at
// (culled and plain far out) instead of drawing them at 100% and then again fitted. React Flow fits
// once more after measuring, which corrects the estimate by a few pixels. While the rest of a board
// arrives (board-load.ts), the view is fitted again to what is there (board-canvas.tsx, `fittedView`).
import { useMemo } from 'react';
import { type FitViewOptions, getViewportForBounds, type Viewport } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { cardSize } from './use-culling';

/** The page above the canvas (the app's header and the board's bar), before it is measured. */
const HEADER_HEIGHT = 104;

export function useOpeningView(
  opening: { defaultViewport: Viewport; fitView: boolean },
  nodes: BoardFlowNode[],
  fitViewOptions: FitViewOptions<BoardFlowNode>,
): Viewport {
  // Only when the page opens.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the opening view is worked out once
  return useMemo(() => {
    if (!opening.fitView || nodes.length === 0) return opening.defaultViewport;
    return fittedView(nodes, fitViewOptions);
  }, []);
}

/**
 * The view that fits `nodes` (their stored or default sizes) in a canvas of `size`: before the
 * canvas is measured, the window less the page above it. Also the fit as the rest of a board
 * arrives (board-canvas.tsx), set at once rather than queued until React Flow has measured cards.
 */
export function fittedView(
  nodes: BoardFlowNode[],
  fitViewOptions: FitViewOptions<BoardFlowNode>,
  size = { width: window.innerWidth, height: Math.max(200, window.innerHeight - HEADER_HEIGHT) },
): Viewport {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const node of nodes) {
    const { width, height } = cardSize(node);
    left = Math.min(left, node.position.x);
    top = Math.min(top, node.position.y);
    right = Math.max(right, node.position.x + width);
    bottom = Math.max(bottom, node.position.y + height);
  }
  return getViewportForBounds(
    { x: left, y: top, width: right - left, height: bottom - top },
    size.width,
    size.height,
    fitViewOptions.minZoom ?? 0.1,
    fitViewOptions.maxZoom ?? 1,
    fitViewOptions.padding ?? 0.1,
  );
}
