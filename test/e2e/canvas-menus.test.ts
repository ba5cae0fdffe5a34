// End to end: a card's menu and a connection's toolbar open above the canvas's notices. A notice
// (here: an export that could not reach the service) sits at the bottom of the canvas; a card moved
// so that its menu's last item falls on that notice, or the view panned so that a connection's
// toolbar does; the item is what is on top at its centre, and a click on it does what it says.
// They are drawn in the board's popover layer, above the notices
// (web/src/board/canvas/ui/popover-layer.tsx); drawn inside the canvas, they were under them. And
// on a phone, a notice sits above an open sheet (the chat), not over its bottom.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { accountApi, dragBy, eventually, launchBrowser, nodeBox, openNewBoard, PHONE, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** A notice for real: an export while the service is out of reach. It stays until dismissed. */
async function showNotice(page: Page, boardId: string): Promise<Locator> {
  await page.route(`**/v1/boards/${boardId}/export**`, (route) => route.abort('connectionrefused'));
  await page.getByRole('button', { name: 'More' }).click();
  await page.getByRole('button', { name: 'Export .canvas' }).click();
  const notice = page.locator('.bw-notice').filter({ hasText: 'Could not export the board' });
  await notice.waitFor();
  await page.unroute(`**/v1/boards/${boardId}/export**`);
  return notice;
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const centre = (box: Box) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });

/** The text of the menu item or button on top at the centre of `box` (or what else is there). */
const onTopAt = (page: Page, box: Box) =>
  page.evaluate(({ x, y }) => {
    const hit = document.elementFromPoint(x, y);
    return hit?.closest('[role="menuitem"], button')?.textContent ?? hit?.outerHTML;
  }, centre(box));

test("a card's menu over a notice: its last item is on top and takes a normal click", async () => {
  let id = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Menus over notices', async (api, boardId) => {
    const body = { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Under the notice' } };
    id = (await api('POST', `/v1/boards/${boardId}/nodes`, body)).data.id as string;
  });
  try {
    const notice = await showNotice(page, boardId);

    // Where the menu's last item falls, and the card moved by as much as brings it onto the notice.
    const card = page.getByTestId(`node-${id}`);
    const menuButton = card.getByRole('button', { name: 'Menu of Under the notice' });
    await menuButton.click();
    const item = (await page.getByRole('menuitem', { name: 'Delete' }).boundingBox())!;
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    const [to, from] = [centre((await notice.boundingBox())!), centre(item)];
    const title = (await card.locator('.bw-node__title').boundingBox())!;
    const before = await nodeBox(page, id);
    await dragBy(page, { x: title.x + 10, y: title.y + title.height / 2 }, to.x - from.x, to.y - from.y);
    assert.notEqual((await nodeBox(page, id)).y, before.y, 'the card moved');

    // Its menu opened there, the notice still shown and under the last item (snapping may have moved
    // the card a few pixels from where it was dropped).
    await menuButton.click();
    const last = (await page.getByRole('menuitem', { name: 'Delete' }).boundingBox())!;
    const shown = (await notice.boundingBox())!;
    assert.ok(overlaps(last, shown), `Delete (${JSON.stringify(last)}) is where the notice (${JSON.stringify(shown)}) is`);
    // Nothing above it at its centre (Playwright's click alone may scroll the canvas's clipped
    // container to get at a covered item, and then pass); the click deletes the card.
    assert.equal(await onTopAt(page, last), 'Delete', 'what is on top at the centre of Delete');
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await card.waitFor({ state: 'detached' });
    await eventually('the card deleted on the service', async () => (await api('GET', `/v1/boards/${boardId}/nodes`)).data.length === 0);
  } finally {
    await close();
  }
});

test("a connection's toolbar over a notice: its button is on top and takes a normal click", async () => {
  let upper = '';
  const { page, boardId, close } = await openNewBoard(server, 'Toolbar over notices', async (api, boardId) => {
    const note = async (y: number, text: string) =>
      (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y }, data: { text, width: 260, height: 160 } }))
        .data.id as string;
    upper = await note(0, 'Upper');
    const lower = await note(420, 'Lower');
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: upper, target_node_id: lower });
  });
  try {
    const notice = await showNotice(page, boardId);
    // A click on the connection between the cards selects it and shows its toolbar.
    const card = await nodeBox(page, upper);
    await page.mouse.click(card.x + card.width / 2, card.y + card.height + 60);
    const tools = page.getByRole('toolbar', { name: 'Connection tools' });
    const button = tools.getByRole('button', { name: 'Add label' });
    await button.waitFor();
    // The view panned (middle button) by as much as brings the button onto the notice.
    const [to, from] = [centre((await notice.boundingBox())!), centre((await button.boundingBox())!)];
    await dragBy(page, { x: 200, y: 400 }, to.x - from.x, to.y - from.y, 'middle');
    const placed = (await button.boundingBox())!;
    const shown = (await notice.boundingBox())!;
    assert.ok(overlaps(placed, shown), `Add label (${JSON.stringify(placed)}) is where the notice (${JSON.stringify(shown)}) is`);
    assert.equal(await onTopAt(page, placed), 'Add label', 'what is on top at the centre of Add label');
    await button.click();
    await page.getByRole('textbox', { name: 'Connection label' }).waitFor();
  } finally {
    await close();
  }
});

test('on a phone, a notice sits above an open sheet, not over its bottom', async () => {
  const account = await signUp(server);
  const api = accountApi(server, account);
  const boardId = (await api('POST', '/v1/boards', { name: 'Sheet and notice' })).data.id as string;
  const phone = await launchBrowser(PHONE);
  try {
    const { page } = phone;
    await phone.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(`${server.url}/boards/${boardId}`);
    await page.getByRole('heading', { name: 'Sheet and notice', level: 1 }).waitFor();
    const notice = await showNotice(page, boardId);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Chat' }).click();
    const sheet = page.getByRole('complementary', { name: 'Chat' });
    await sheet.waitFor();
    const [shown, up] = [(await notice.boundingBox())!, (await sheet.boundingBox())!];
    assert.ok(!overlaps(shown, up), `the notice (${JSON.stringify(shown)}) is off the sheet (${JSON.stringify(up)})`);
    // The sheet's bottom is the sheet's own.
    const bottom = { x: shown.x, y: up.y + up.height - 40, width: shown.width, height: 1 };
    const onTop = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest('aside')?.getAttribute('aria-label'),
      centre(bottom),
    );
    assert.equal(onTop, 'Chat', 'what is on top at the bottom of the sheet');
  } finally {
    await phone.close();
  }
});
