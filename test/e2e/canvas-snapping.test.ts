// End to end: a dragged card snaps as in Figma and tldraw (issue 30). Brought near another card's
// edge it lines up with it exactly, with a guide drawn while dragging; elsewhere it goes to the
// grid (the canvas's dots, every 22 units); with Alt held it goes where it is let go. Every saved
// position is whole pixels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, nodeBox, openNewBoard, startWebServer, type AccountApi } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const GRID = 22;
const zoomOf = (page: Page) =>
  page.locator('.react-flow__viewport').evaluate((el) => new DOMMatrixReadOnly(getComputedStyle(el).transform).a);

async function savedPosition(api: AccountApi, boardId: string, id: string) {
  const node = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data;
  return { x: node.position_x as number, y: node.position_y as number };
}

/** Presses on the card's title bar and moves by (dx, dy) screen pixels, still holding. */
async function holdAndMove(page: Page, id: string, dx: number, dy: number) {
  const box = await nodeBox(page, id);
  const from = { x: box.x + 60, y: box.y + 14 };
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  // React Flow starts the drag a move or two after the press, with the card under the pointer from
  // then on: a few one-pixel moves start it, so the rest of the way is where the card goes.
  await page.mouse.move(from.x + 1, from.y);
  await page.mouse.move(from.x + 2, from.y);
  await page.mouse.move(from.x + 3, from.y);
  await page.mouse.move(from.x + dx / 2, from.y + dy / 2, { steps: 6 });
  await page.mouse.move(from.x + dx, from.y + dy, { steps: 6 });
}

test('a dragged card lines up with another card, else goes to the grid; Alt turns snapping off', async () => {
  let a = '';
  let b = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Snapping board', async (api, boardId) => {
    const note = async (x: number, y: number, text: string) =>
      (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y }, data: { text, width: 260, height: 160 } })).data
        .id as string;
    a = await note(0, 0, 'Anchor');
    b = await note(600, 300, 'Mover');
  });
  try {
    await page.getByTestId(`node-${b}`).waitFor();
    const zoom = await zoomOf(page);

    // Near the anchor's left edge (3 units off, well inside the 6 screen pixels): it lines up exactly,
    // and a guide is drawn along the shared edge while the card is held.
    await holdAndMove(page, b, (3 - 600) * zoom, 0);
    await eventually('a vertical guide', async () => (await page.locator('.bw-snap-guide[data-axis="x"]').count()) > 0);
    await page.mouse.up();
    assert.equal(await page.locator('.bw-snap-guide').count(), 0, 'no guide once dropped');
    await allSaved(page);
    const aligned = await eventually('the aligned position saved', async () => {
      const p = await savedPosition(api, boardId, b);
      return p.x !== 600 ? p : undefined;
    });
    assert.equal(aligned.x, 0, 'the left edges line up exactly');
    assert.equal(aligned.y % GRID, 0, `no card's line near in y: on the grid (${aligned.y})`);

    // Far from any card's lines: on the grid, in whole pixels.
    await holdAndMove(page, b, 101 * zoom, 53 * zoom);
    assert.equal(await page.locator('.bw-snap-guide').count(), 0, 'no guide away from other cards');
    await page.mouse.up();
    await allSaved(page);
    const gridded = await eventually('the grid position saved', async () => {
      const p = await savedPosition(api, boardId, b);
      return p.x !== aligned.x ? p : undefined;
    });
    assert.ok(gridded.x % GRID === 0 && gridded.y % GRID === 0, `on the grid: ${JSON.stringify(gridded)}`);
    assert.ok(Math.abs(gridded.x - 101) <= GRID / 2 && Math.abs(gridded.y - aligned.y - 53) <= GRID / 2);

    // With Alt held it lands where it is let go (whole pixels), neither on the grid nor lined up.
    await page.keyboard.down('Alt');
    await holdAndMove(page, b, 37 * zoom, 29 * zoom);
    await page.mouse.up();
    await page.keyboard.up('Alt');
    await allSaved(page);
    const free = await eventually('the free position saved', async () => {
      const p = await savedPosition(api, boardId, b);
      return p.x !== gridded.x ? p : undefined;
    });
    assert.ok(Number.isInteger(free.x) && Number.isInteger(free.y), `whole pixels: ${JSON.stringify(free)}`);
    assert.ok(
      Math.abs(free.x - gridded.x - 37) <= 2 && Math.abs(free.y - gridded.y - 29) <= 2,
      `where it was let go: ${JSON.stringify(free)}`,
    );
    // The anchor never moved.
    assert.deepEqual(await savedPosition(api, boardId, a), { x: 0, y: 0 });
  } finally {
    await close();
  }
});
