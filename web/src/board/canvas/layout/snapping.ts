// Snapping a dragged selection, as in Figma and tldraw: its edges and centre line up with another
// card's edges or centre when they come within a few screen pixels (a guide line is drawn along
// the line they share), otherwise its top-left corner goes to the grid. Positions are whole
// canvas pixels either way. Pure functions: use-canvas-drag.ts feeds them the drag.

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A guide: the vertical line x = `at` (axis 'x') or the horizontal line y = `at`, from `from` to `to`. */
export interface Guide {
  axis: 'x' | 'y';
  at: number;
  from: number;
  to: number;
}

export interface SnapOptions {
  /** How near (canvas units) a line must come to snap to another. */
  threshold: number;
  /** The grid's step (canvas units) when no card's line is near; 0 for none. */
  grid: number;
}

const linesX = (b: Box) => [b.x, b.x + b.width / 2, b.x + b.width];
const linesY = (b: Box) => [b.y, b.y + b.height / 2, b.y + b.height];

/** The smallest shift (within the threshold) putting one of `mine` on one of the others' lines. */
function nearest(mine: number[], others: Box[], lines: (b: Box) => number[], threshold: number): number | undefined {
  let best: number | undefined;
  for (const other of others) {
    for (const theirs of lines(other)) {
      for (const line of mine) {
        const d = theirs - line;
        if (Math.abs(d) <= threshold && (best === undefined || Math.abs(d) < Math.abs(best))) best = d;
      }
    }
  }
  return best;
}

/** The guides drawn for `box` (already snapped) along the lines it shares with others. */
function guidesOf(box: Box, others: Box[]): Guide[] {
  const guides: Guide[] = [];
  for (const [axis, lines, span] of [
    ['x', linesX, (b: Box) => [b.y, b.y + b.height]],
    ['y', linesY, (b: Box) => [b.x, b.x + b.width]],
  ] as const) {
    for (const at of lines(box)) {
      let from = Number.POSITIVE_INFINITY;
      let to = Number.NEGATIVE_INFINITY;
      for (const other of others) {
        if (!lines(other).some((line) => Math.abs(line - at) < 1)) continue;
        const [a, b] = span(other);
        from = Math.min(from, a!);
        to = Math.max(to, b!);
      }
      if (from > to) continue;
      const [a, b] = span(box);
      guides.push({ axis, at, from: Math.min(from, a!), to: Math.max(to, b!) });
    }
  }
  return guides;
}

/**
 * Where `box` goes: the shift (dx, dy) that lines it up with `others` or puts it on the grid, in
 * whole pixels, and the guides to draw. With `snap` false (Alt held) it is only rounded.
 */
export function snapBox(box: Box, others: Box[], options: SnapOptions, snap = true): { dx: number; dy: number; guides: Guide[] } {
  if (!snap) return { dx: Math.round(box.x) - box.x, dy: Math.round(box.y) - box.y, guides: [] };
  const onGrid = (v: number) => (options.grid > 0 ? Math.round(v / options.grid) * options.grid - v : Math.round(v) - v);
  const alignX = nearest(linesX(box), others, linesX, options.threshold);
  const alignY = nearest(linesY(box), others, linesY, options.threshold);
  // Whole pixels: the shift is rounded with the box's own fraction taken out.
  const dx = alignX !== undefined ? Math.round(box.x + alignX) - box.x : onGrid(box.x);
  const dy = alignY !== undefined ? Math.round(box.y + alignY) - box.y : onGrid(box.y);
  const snapped = { ...box, x: box.x + dx, y: box.y + dy };
  const guides = guidesOf(snapped, others).filter((g) => (g.axis === 'x' ? alignX !== undefined : alignY !== undefined));
  return { dx, dy, guides };
}

/** The box around `boxes` (undefined for none). */
export function boundsOf(boxes: Box[]): Box | undefined {
  if (boxes.length === 0) return undefined;
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  return { x, y, width: right - x, height: bottom - y };
}

/** Whether `inner` lies whole inside `outer`. */
export const contains = (outer: Box, inner: Box): boolean =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;
