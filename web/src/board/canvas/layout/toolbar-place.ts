// Where a connection's toolbar goes (edge-label.tsx): beside the connection's middle on the first
// side where it covers neither card it joins, so it never hides a card's title (issue 30). Canvas
// coordinates; the toolbar is drawn at its own size on screen (canvas/ui/popover-layer.tsx), so its
// room on the canvas is that size over the zoom.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type ToolbarSide = 'below' | 'above' | 'right' | 'left';

/** The toolbar's room: "Add label" and seven swatches in a row. */
const TOOLBAR = { width: 290, height: 40 };
/** Its distance from the connection's middle. */
const GAP = 12;

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

function rectOn(side: ToolbarSide, x: number, y: number, zoom: number): Rect {
  const width = TOOLBAR.width / zoom;
  const height = TOOLBAR.height / zoom;
  const gap = GAP / zoom;
  switch (side) {
    case 'below':
      return { x: x - width / 2, y: y + gap, width, height };
    case 'above':
      return { x: x - width / 2, y: y - gap - height, width, height };
    case 'right':
      return { x: x + gap, y: y - height / 2, width, height };
    case 'left':
      return { x: x - gap - width, y: y - height / 2, width, height };
  }
}

/** The first side of (x, y) where the toolbar covers none of `cards` at `zoom` (below when every side does). */
export function toolbarSide(x: number, y: number, cards: Rect[], zoom = 1): ToolbarSide {
  const sides: ToolbarSide[] = ['below', 'above', 'right', 'left'];
  return sides.find((side) => cards.every((card) => !overlaps(rectOn(side, x, y, zoom), card))) ?? 'below';
}
