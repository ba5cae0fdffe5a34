// The web app's layout rules (web/src/board/canvas/layout/): snapping a dragged box to other
// cards' lines or the grid, which frame a card belongs to, what moves with a frame, where a
// connection's toolbar goes. The drags themselves are tested in Chromium
// (test/e2e/canvas-snapping.test.ts, canvas-frames.test.ts, canvas-placement.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameAround, frameAt, membersOf } from '../web/src/board/canvas/layout/frames.js';
import { snapBox } from '../web/src/board/canvas/layout/snapping.js';
import { toolbarSide } from '../web/src/board/canvas/layout/toolbar-place.js';
import type { BoardFlowNode } from '../web/src/board/flow-node.js';

const OPTIONS = { threshold: 6, grid: 22 };
const card = { width: 260, height: 160 };

test('a box near another card lines up with its edge or centre, exactly, with a guide', () => {
  const other = { x: 0, y: 0, ...card };
  const left = snapBox({ x: 4.6, y: 300, ...card }, [other], OPTIONS);
  assert.equal(4.6 + left.dx, 0);
  assert.equal(300 + left.dy, 308, 'no line near in y: the grid');
  assert.ok(left.guides.some((g) => g.axis === 'x' && g.at === 0 && g.from === 0 && g.to === 468));
  assert.ok(!left.guides.some((g) => g.axis === 'y'));
  // A centre on a centre: a narrower card centred under a wider one.
  const centred = snapBox({ x: 77, y: 500, width: 100, height: 50 }, [other], OPTIONS);
  assert.equal(77 + centred.dx + 50, 130);
});

test('far from other cards a box goes to the grid; without snapping it is only rounded', () => {
  const far = snapBox({ x: 101.3, y: 353.7, ...card }, [{ x: 0, y: 0, ...card }], OPTIONS);
  assert.deepEqual([101.3 + far.dx, 353.7 + far.dy], [110, 352]);
  assert.deepEqual(far.guides, []);
  const free = snapBox({ x: 101.3, y: 353.7, ...card }, [{ x: 100, y: 350, ...card }], OPTIONS, false);
  assert.deepEqual([101.3 + free.dx, 353.7 + free.dy], [101, 354]);
});

const node = (id: string, x: number, y: number, data: Record<string, unknown> = {}): BoardFlowNode => ({
  id,
  type: 'noteNode',
  position: { x, y },
  data: { text: id, width: 260, height: 160, ...data },
});
const frame = (id: string, x: number, y: number, width: number, height: number) => node(id, x, y, { text: '', group: true, width, height });

test('a card belongs to the smallest frame its centre lies in; a frame takes along what lies in it', () => {
  const big = frame('big', 0, 0, 2000, 1000);
  const small = frame('small', 100, 100, 700, 400);
  const inner = node('inner', 200, 200);
  const outer = node('outer', 1200, 200);
  const away = node('away', 3000, 0);
  const nodes = [big, small, inner, outer, away];
  assert.equal(frameAt('inner', { x: 200, y: 200, ...card }, nodes), 'small');
  assert.equal(frameAt('outer', { x: 1200, y: 200, ...card }, nodes), 'big');
  assert.equal(frameAt('away', { x: 3000, y: 0, ...card }, nodes), null);
  assert.equal(frameAt('small', { x: 100, y: 100, width: 700, height: 400 }, nodes), 'big', 'a frame in a larger frame');
  assert.deepEqual(
    membersOf(new Set(['small']), nodes).map((n) => n.id),
    ['inner'],
    'the larger frame around it does not come along',
  );
  assert.deepEqual(
    membersOf(new Set(['big']), nodes)
      .map((n) => n.id)
      .sort(),
    ['inner', 'outer', 'small'],
  );
  assert.deepEqual(
    frameAround([
      { x: 0, y: 0, ...card },
      { x: 320, y: 0, ...card },
    ]),
    { x: -40, y: -76, width: 660, height: 276 },
  );
});

test("a connection's toolbar goes where it covers neither card", () => {
  const upper = { x: 0, y: 0, ...card };
  const lower = { x: 0, y: 220, ...card };
  assert.equal(toolbarSide(130, 190, [upper, lower]), 'right');
  assert.equal(toolbarSide(400, 80, [upper, { x: 540, y: 0, ...card }]), 'below');
  // Its size is the same on screen at every zoom: zoomed out, it takes more of the canvas.
  const further = { x: 0, y: 300, ...card };
  assert.equal(toolbarSide(130, 230, [upper, further]), 'below');
  assert.equal(toolbarSide(130, 230, [upper, further], 0.5), 'right');
});
