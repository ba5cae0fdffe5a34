// End to end: a card's menu opens above the canvas's notices. A notice (here: an export that could
// not reach the service) sits at the bottom of the canvas; a card moved so that its menu's last
// item falls on that notice; a normal click on the item (which Playwright refuses while something
// covers it) does what it says. The menus are drawn in the board's popover layer, above the
// notices (web/src/board/canvas/ui/popover-layer.tsx); drawn inside the card, they were under them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { dragBy, eventually, nodeBox, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test("a card's menu over a notice: its last item takes a normal click", async () => {
  let id = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Menus over notices', async (api, boardId) => {
    const body = { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Under the notice' } };
    id = (await api('POST', `/v1/boards/${boardId}/nodes`, body)).data.id as string;
  });
  try {
    // The service out of reach for an export: a notice says so, and stays until dismissed.
    await page.route(`**/v1/boards/${boardId}/export**`, (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'More' }).click();
    await page.getByRole('button', { name: 'Export .canvas' }).click();
    const notice = page.locator('.bw-notice').filter({ hasText: 'Could not export the board' });
    await notice.waitFor();
    await page.unroute(`**/v1/boards/${boardId}/export**`);

    // Where the menu's last item falls, and the card moved by as much as brings it onto the notice.
    const card = page.getByTestId(`node-${id}`);
    const menuButton = card.getByRole('button', { name: 'Menu of Under the notice' });
    await menuButton.click();
    const item = (await page.getByRole('menuitem', { name: 'Delete' }).boundingBox())!;
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    const target = (await notice.boundingBox())!;
    const title = (await card.locator('.bw-node__title').boundingBox())!;
    const dx = target.x + target.width / 2 - (item.x + item.width / 2);
    const dy = target.y + target.height / 2 - (item.y + item.height / 2);
    const before = await nodeBox(page, id);
    await dragBy(page, { x: title.x + 10, y: title.y + title.height / 2 }, dx, dy);
    assert.notEqual((await nodeBox(page, id)).y, before.y, 'the card moved');

    // Its menu opened there, the notice still shown and under the last item (snapping may have moved
    // the card a few pixels from where it was dropped): Delete takes the click and deletes the card.
    await menuButton.click();
    const last = (await page.getByRole('menuitem', { name: 'Delete' }).boundingBox())!;
    const shown = (await notice.boundingBox())!;
    const overlaps = (a: typeof last, b: typeof last) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    assert.ok(overlaps(last, shown), `Delete (${JSON.stringify(last)}) is where the notice (${JSON.stringify(shown)}) is`);
    // Nothing above it at its centre (Playwright's click alone may scroll the canvas's clipped
    // container to get at a covered item, and then pass).
    const top = await page.evaluate(
      ({ x, y }) =>
        document.elementFromPoint(x, y)?.closest('[role="menuitem"]')?.textContent ?? document.elementFromPoint(x, y)?.outerHTML,
      { x: last.x + last.width / 2, y: last.y + last.height / 2 },
    );
    assert.equal(top, 'Delete', 'what is on top at the centre of Delete');
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await card.waitFor({ state: 'detached' });
    await eventually('the card deleted on the service', async () => (await api('GET', `/v1/boards/${boardId}/nodes`)).data.length === 0);
  } finally {
    await close();
  }
});
