// End to end on a phone (390 x 844, touch; issue 30): a small board opens at a readable zoom (its
// cards at least 100 px wide), Fit View pads by the screen's size (not down to the zoom floor), a
// touch drag moves a card and is saved, and the More menu closes after its action (Add note).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { accountApi, eventually, launchBrowser, nodeBox, PHONE, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test('a phone: readable opening zoom, Fit View by the screen, a touch drag saved, More closes after Add note', async () => {
  const account = await signUp(server);
  const call = accountApi(server, account);
  /** The answer's `data`. */
  const api = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).data;
  const board = await api('POST', '/v1/boards', { name: 'Camping' });
  const ids: string[] = [];
  for (const [x, y] of [
    [0, 0],
    [400, 200],
  ]) {
    ids.push(
      (await api('POST', `/v1/boards/${board.id}/nodes`, { type: 'note', position: { x, y }, data: { text: 'Pack the tent.' } })).id,
    );
  }
  const [first, second] = ids as [string, string];

  const phone = await launchBrowser(PHONE);
  try {
    const { page } = phone;
    await phone.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(`${server.url}/boards/${board.id}`);
    await page.getByRole('heading', { name: 'Camping', level: 1 }).waitFor();
    await page.getByTestId(`node-${second}`).waitFor();

    // Opened fitted, at a readable zoom.
    const readable = async (what: string) => {
      for (const id of ids) {
        const box = await eventually(`${id} measured`, async () => {
          const b = await nodeBox(page, id);
          return b.width > 0 ? b : undefined;
        });
        assert.ok(box.width >= 100, `${what}: a card is ${box.width} px wide`);
        assert.ok(box.x >= 0 && box.x + box.width <= 390, `${what}: a card across the screen at ${box.x}`);
      }
    };
    await page.waitForTimeout(500);
    await readable('opened');

    // Fit View (the zoom controls' button) pads by the screen.
    await page.getByRole('button', { name: /zoom in/i }).click();
    await page.getByRole('button', { name: /zoom in/i }).click();
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(500);
    await readable('after Fit View');

    // A touch drag on a card moves it, and the new place is saved.
    const start = await api('GET', `/v1/boards/${board.id}/nodes/${first}`);
    const box = await nodeBox(page, first);
    const from = { x: box.x + box.width / 2, y: box.y + 10 };
    const cdp = await phone.context.newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
    for (let i = 1; i <= 10; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: from.x + i * 4, y: from.y + i * 6 }] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    const moved = await eventually('the touch drag saved', async () => {
      const node = await api('GET', `/v1/boards/${board.id}/nodes/${first}`);
      return node.position_y !== start.position_y ? node : undefined;
    });
    assert.ok(moved.position_y > start.position_y && moved.position_x > start.position_x, 'moved down and right');

    // More → Add note: the note is added and the menu closes.
    const more = page.getByRole('button', { name: 'More' });
    await more.click();
    await page.getByRole('button', { name: 'Add note' }).click();
    await eventually('the note added', async () => (await page.locator('.react-flow__node').count()) === 3);
    assert.equal(await more.getAttribute('aria-expanded'), 'false', 'More closed after Add note');
    assert.equal(await page.getByRole('group', { name: 'More board tools' }).isVisible(), false);
  } finally {
    await phone.close();
  }
});
