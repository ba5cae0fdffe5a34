// The order the keyboard goes through the canvas's cards in (web/src/board/canvas/navigation/
// reading-order.ts): rows from the top, each left to right; arrows to the nearest card their way.
// The keys themselves are tested in Chromium (test/e2e/canvas-far-access.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestInDirection, readingOrder } from '../web/src/board/canvas/navigation/reading-order.js';

const card = (id: string, x: number, y: number) => ({ id, x, y, width: 260, height: 160 });

test('cards are read in rows from the top, each row left to right, also when not aligned', () => {
  const boxes = [card('c', 640, 4), card('d', 0, 230), card('a', 0, 0), card('b', 320, -12), card('e', 330, 221)];
  assert.deepEqual(readingOrder(boxes), ['a', 'b', 'c', 'd', 'e']);
});

test("a card lower than its row's first card by more than that card's height starts a new row", () => {
  const boxes = [card('a', 500, 0), card('b', 0, 150)];
  assert.deepEqual(readingOrder(boxes), ['a', 'b']);
  assert.deepEqual(readingOrder([card('a', 500, 0), card('b', 0, 60)]), ['b', 'a'], 'centre within the first card: one row');
});

test('the arrows go to the nearest card their way, preferring one in line to a nearer one off to a side', () => {
  const centre = card('o', 0, 0);
  const boxes = [centre, card('right', 600, 0), card('aside', 300, 260), card('below', 0, 400), card('left', -320, 10)];
  assert.equal(nearestInDirection(boxes, centre, 'right'), 'right');
  assert.equal(nearestInDirection(boxes, centre, 'down'), 'below');
  assert.equal(nearestInDirection(boxes, centre, 'left'), 'left');
  assert.equal(nearestInDirection(boxes, centre, 'up'), undefined);
});
