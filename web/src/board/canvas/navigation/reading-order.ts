// The order the keyboard goes through the cards in (issue 30), as tldraw orders its shapes for Tab:
// in rows from the top, each row left to right. A row is the cards whose centres lie within the
// height of its first (topmost) card, so a grid of cards is read row by row even when they are not
// aligned to the pixel. The arrow keys go to the nearest card in their direction instead.

export interface CardBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

const centreX = (b: CardBox) => b.x + b.width / 2;
const centreY = (b: CardBox) => b.y + b.height / 2;

/** The ids of `boxes` in reading order. */
export function readingOrder(boxes: readonly CardBox[]): string[] {
  const byTop = [...boxes].sort((a, b) => a.y - b.y || a.x - b.x);
  const order: string[] = [];
  let row: CardBox[] = [];
  let rowBottom = -Infinity;
  const flush = () => {
    row.sort((a, b) => centreX(a) - centreX(b) || a.y - b.y);
    for (const box of row) order.push(box.id);
    row = [];
  };
  for (const box of byTop) {
    if (row.length > 0 && centreY(box) >= rowBottom) flush();
    if (row.length === 0) rowBottom = box.y + box.height;
    row.push(box);
  }
  flush();
  return order;
}

export type Direction = 'left' | 'right' | 'up' | 'down';

/** The card nearest to `from` in `direction` (within 60° either side of it), or undefined. Cards
 * straight along the direction are preferred to nearer ones off to a side. */
export function nearestInDirection(boxes: readonly CardBox[], from: CardBox, direction: Direction): string | undefined {
  const fx = centreX(from);
  const fy = centreY(from);
  let best: { id: string; score: number } | undefined;
  for (const box of boxes) {
    if (box.id === from.id) continue;
    const dx = centreX(box) - fx;
    const dy = centreY(box) - fy;
    const along = direction === 'right' ? dx : direction === 'left' ? -dx : direction === 'down' ? dy : -dy;
    const across = Math.abs(direction === 'left' || direction === 'right' ? dy : dx);
    if (along <= 0 || across > along * Math.sqrt(3)) continue;
    const score = along + 2 * across;
    if (!best || score < best.score) best = { id: box.id, score };
  }
  return best?.id;
}
