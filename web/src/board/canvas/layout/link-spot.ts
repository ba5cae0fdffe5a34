// Where a new link or video card goes: the free spot nearest where it was asked for (the view's
// centre for "Add link" and a paste, the pointer for a drop), so links added one after another lie
// side by side instead of on one spot (issue 30). free-spot.ts finds the spot.
import type { XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../flow-node';
import { freeSpot } from '../edits/free-spot';
import { linkNodeType } from '../../nodes/web-links';

/** The room a card takes once its preview (a page's image, a video's still) is shown. */
const LINK_CARD = { width: 260, height: 220 };
const VIDEO_CARD = { width: 260, height: 260 };
/** addLink (use-board-edits.ts) puts a card's corner this far up and left of the point it is given. */
const CORNER = { x: 140, y: 60 };

/** The point to hand addLink for `url` near `at`, so its card lands on a free spot. */
export function linkPoint(nodes: BoardFlowNode[], url: string, at: XYPosition): XYPosition {
  const size = linkNodeType(url) === 'video' ? VIDEO_CARD : LINK_CARD;
  const spot = freeSpot(nodes, at, size);
  return { x: spot.x + CORNER.x, y: spot.y + CORNER.y };
}
