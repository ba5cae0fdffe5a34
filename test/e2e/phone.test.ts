// End to end on a phone-sized screen (390 x 844, touch): the boards, board and API keys pages fit
// the width (nothing scrolls sideways), the board's header is one row with a More menu holding the
// rest, the search box is whole, the chat is a bottom sheet that leaves the canvas in view and
// closes, and a key's Revoke button is within reach.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { launchBrowser, PHONE, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const WIDTH = PHONE.viewport!.width;
const HEIGHT = PHONE.viewport!.height;

async function noSidewaysScroll(page: Page, where: string) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= WIDTH, `${where} is ${width} px wide on a ${WIDTH} px screen`);
}

async function within(locator: ReturnType<Page['locator']>, what: string) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is shown`);
  assert.ok(box.x >= 0 && box.x + box.width <= WIDTH && box.y >= 0 && box.y + box.height <= HEIGHT, `${what} at ${JSON.stringify(box)}`);
  return box;
}

test('a phone: boards, board and keys pages fit; one header row with More; chat as a sheet; Revoke in reach', async () => {
  const account = await signUp(server);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await server.request<{ data: { id: string } }>(method, path, { token: account.accessToken, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body.data;
  };
  const board = await api('POST', '/v1/boards', { name: 'A board with quite a long name for a phone' });
  for (const [x, y] of [
    [0, 0],
    [400, 200],
  ]) {
    await api('POST', `/v1/boards/${board.id}/nodes`, { type: 'note', position: { x, y }, data: { text: 'Pack the tent.' } });
  }
  await api('POST', '/v1/me/api-keys', { name: 'Phone sync with a long name', scopes: ['read', 'write'] });

  const phone = await launchBrowser(PHONE);
  try {
    const { page } = phone;
    await phone.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);

    // The boards list.
    await page.goto(`${server.url}/boards`);
    await page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'A board with quite a long name for a phone' }).waitFor();
    await noSidewaysScroll(page, 'the boards page');
    await within(page.getByRole('link', { name: 'API reference' }), 'the API reference link');

    // The board: one header row.
    await page.getByRole('link', { name: 'A board with quite a long name for a phone' }).click();
    await page.getByRole('heading', { name: 'A board with quite a long name for a phone', level: 1 }).waitFor();
    await noSidewaysScroll(page, 'the board page');
    const bar = page.locator('.bw-board__bar');
    const barBox = await within(bar, 'the header');
    const search = await within(page.getByRole('searchbox', { name: 'Search this board' }), 'the search box');
    assert.ok(search.width >= 60, `the search box is ${search.width} px wide`);
    const chat = await within(page.getByRole('button', { name: 'Chat' }), 'the Chat button');
    const more = await within(page.getByRole('button', { name: 'More' }), 'the More button');
    for (const item of [search, chat, more]) {
      assert.ok(item.y + item.height <= barBox.y + barBox.height && item.y >= barBox.y, 'in the one row');
    }
    assert.ok(barBox.height <= 52, `the header is ${barBox.height} px high: one row`);
    assert.equal(await bar.getByRole('button', { name: 'Export .canvas' }).isVisible(), false, 'the rest is in More');

    // More opens the rest, each item within the screen; adding a note from it works.
    await page.getByRole('button', { name: 'More' }).click();
    await within(page.getByRole('button', { name: 'Export .canvas' }), 'Export in More');
    await within(page.getByRole('button', { name: 'Share' }), 'Share in More');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.locator('.react-flow__node').nth(2).waitFor();
    await noSidewaysScroll(page, 'the board page with More used');

    // Search results fit the screen.
    const box = page.getByRole('searchbox', { name: 'Search this board' });
    await box.fill('tent');
    await box.press('Enter');
    await within(page.getByRole('region', { name: 'Search results' }), 'the search results');
    await noSidewaysScroll(page, 'the board page with search results');
    await box.press('Escape');

    // The chat is a sheet over the lower part: the canvas above it stays in view; Close closes it.
    await page.getByRole('button', { name: 'Chat' }).click();
    const sheet = await within(page.locator('.bw-chat'), 'the chat sheet');
    const canvas = (await page.locator('.bw-canvas').boundingBox())!;
    assert.ok(sheet.y - canvas.y >= 200, `only ${sheet.y - canvas.y} px of canvas above the chat`);
    assert.ok(sheet.width >= WIDTH - 1, 'the sheet spans the width');
    await page.getByRole('button', { name: 'Close chat' }).click();
    await page.locator('.bw-chat').waitFor({ state: 'detached' });

    // The API keys page: no sideways scroll, Revoke on the screen.
    await page.goto(`${server.url}/keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const revoke = page.getByRole('button', { name: 'Revoke Phone sync with a long name' });
    await revoke.waitFor();
    await noSidewaysScroll(page, 'the API keys page');
    await revoke.scrollIntoViewIfNeeded();
    await within(revoke, 'Revoke');
  } finally {
    await phone.close();
  }
});
