// Where a new note or file goes: the free spot nearest the view's centre, so things added one
// after another (or while others add theirs) lie side by side instead of piling up. Candidates
// are tried ring by ring on a grid around the centre until one overlaps no node.
import type { XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';

/** The space kept between a new node and its neighbours. */
const GAP = 24;
/** Rings of candidates tried before giving up and using the centre. */
const MAX_RINGS = 12;

export interface Size {
  width: number;
  height: number;
}

/** What a node covers on the canvas (its measured size, or a card's usual size before it is measured). */
function boxOf(node: BoardFlowNode): { x: number; y: number; width: number; height: number } {
  return {
    x: node.position.x,
    y: node.position.y,
    width: node.measured?.width ?? node.width ?? 280,
    height: node.measured?.height ?? node.height ?? 160,
  };
}

/** The centre of the free spot nearest `centre` for a node of `size`. */
export function freeCentre(nodes: BoardFlowNode[], centre: XYPosition, size: Size): XYPosition {
  const spot = freeSpot(nodes, centre, size);
  return { x: spot.x + size.width / 2, y: spot.y + size.height / 2 };
}

/** The top-left corner for a node of `size` at the free spot nearest `centre`. */
export function freeSpot(nodes: BoardFlowNode[], centre: XYPosition, size: Size): XYPosition {
  const boxes = nodes.filter((n) => !n.parentId).map(boxOf);
  const fits = (x: number, y: number) =>
    boxes.every(
      (b) => x + size.width + GAP <= b.x || b.x + b.width + GAP <= x || y + size.height + GAP <= b.y || b.y + b.height + GAP <= y,
    );
  const start = { x: Math.round(centre.x - size.width / 2), y: Math.round(centre.y - size.height / 2) };
  const stepX = size.width + GAP;
  const stepY = size.height + GAP;
  for (let ring = 0; ring <= MAX_RINGS; ring++) {
    // The ring's cells, nearest the centre first.
    const cells: XYPosition[] = [];
    for (let i = -ring; i <= ring; i++) {
      for (let j = -ring; j <= ring; j++) {
        if (Math.max(Math.abs(i), Math.abs(j)) === ring) cells.push({ x: start.x + i * stepX, y: start.y + j * stepY });
      }
    }
    cells.sort((a, b) => Math.hypot(a.x - start.x, a.y - start.y) - Math.hypot(b.x - start.x, b.y - start.y));
    const free = cells.find((c) => fits(c.x, c.y));
    if (free) return free;
  }
  return start;
}
