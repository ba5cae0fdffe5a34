// End to end (issue 30): a large board renders only what is in view. 600 notes in a grid: opened
// fitted (every card in view, far out), the cards are drawn plain (no text, no editor in the page);
// at 100% only the cards near the view are in the page, and panning brings the next ones in.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const CARDS = 600;
const COLUMNS = 30;

test('600 cards: plain far out, only the cards near the view in the page at 100%, more as it pans', async () => {
  const { page, close } = await openNewBoard(server, 'Large board', async (api, boardId) => {
    for (let start = 0; start < CARDS; start += 300) {
      const operations = [];
      for (let i = start; i < start + 300; i++) {
        const position = { x: (i % COLUMNS) * 320, y: Math.floor(i / COLUMNS) * 220 };
        operations.push({ op: 'create_node', type: 'note', position, data: { text: `Card ${i + 1}` } });
      }
      await api('POST', `/v1/boards/${boardId}/batch`, { operations });
    }
  });
  try {
    // Fitted: far out, every card drawn as a plain block, none with its editor.
    await page.locator('.react-flow__node').first().waitFor();
    // The first cards draw at once and the rest over the next frames: all of them, in the end, plain.
    await eventually('every card fitted in view drawn plain', async () => (await page.locator('[data-far="true"]').count()) === CARDS);
    assert.equal(await page.getByRole('textbox', { name: 'Note text' }).count(), 0, 'no note editor far out');

    // 100%: only the cards near the view are in the page.
    await page.keyboard.press('Control+0');
    const near = await eventually('the cards culled', async () => {
      const n = await page.locator('.react-flow__node').count();
      return n < 150 ? n : undefined;
    });
    assert.ok(near > 0, 'some cards are shown');
    const editors = await page.getByRole('textbox', { name: 'Note text' }).count();
    assert.ok(editors > 0 && editors < 150, `${editors} note editors in the page`);
    const shown = await page.locator('.react-flow__node').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')));

    // Panning far brings other cards in (and takes those left behind out).
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
    for (let i = 0; i < 3; i++) await page.mouse.wheel(600, 300);
    await eventually('other cards in the page', async () => {
      const now = await page.locator('.react-flow__node').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')));
      return now.length > 0 && now.length < 150 && now.some((id) => !shown.includes(id)) ? now : undefined;
    });
  } finally {
    await close();
  }
});
