// End to end (issue 30): far out, where the cards are drawn on one canvas and not in the page, the
// keyboard and a touch still reach them. Keyboard: Tab from the top of the page reaches the first
// card in reading order, named by its title and type and ringed; Tab, Shift+Tab and the arrows go
// through the cards in reading order; Enter zooms in to the card and into its text, Escape gives the
// focus back to the card; close up, an arrow to a card out of view (not in the page) pans to it.
// Phone: one touch-and-drag on a far card moves it, and the move is saved (still there after a reload).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { accountApi, eventually, launchBrowser, openNewBoard, PHONE, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** `count` notes "Card 1".."Card N" in rows of `columns`, `gap` apart. */
function grid(count: number, columns: number, gap: { x: number; y: number }) {
  const operations = [];
  for (let i = 0; i < count; i++) {
    const position = { x: (i % columns) * gap.x, y: Math.floor(i / columns) * gap.y };
    operations.push({ op: 'create_node', type: 'note', position, data: { text: `Card ${i + 1}` } });
  }
  return { operations };
}

async function viewOf(page: Page) {
  return page.evaluate(() => {
    const match = /translate\(([-\d.]+)px, ([-\d.]+)px\) scale\(([\d.]+)\)/.exec(
      document.querySelector<HTMLElement>('.react-flow__viewport')!.style.transform,
    );
    const [x, y, zoom] = (match ?? []).slice(1).map(Number);
    return { x: x!, y: y!, zoom: zoom! };
  });
}

/** The accessible name of the focused card (none when the focus is not on a card). */
const focusedCard = (page: Page) =>
  page.evaluate(() => {
    const card = document.activeElement?.closest('.react-flow__node');
    return card && card === document.activeElement ? card.getAttribute('data-id') : null;
  });

test('keyboard far out: Tab reaches the first card (named, ringed), Tab/Shift+Tab/arrows in reading order, Enter edits, out of view followed', async () => {
  const { page, close, api, boardId } = await openNewBoard(server, 'Far keyboard', async (api, boardId) => {
    await api('POST', `/v1/boards/${boardId}/batch`, grid(40, 8, { x: 900, y: 700 }));
  });
  try {
    const nodes = (await api('GET', `/v1/boards/${boardId}/nodes?limit=100`)).data as { id: string; node_data: { text: string } }[];
    const idOf = (text: string) => nodes.find((n) => n.node_data.text === text)!.id;
    const layer = page.locator('canvas.bw-far-layer');
    await eventually('every card on the far layer', async () => Number(await layer.getAttribute('data-cards')) === 40);
    assert.equal(await page.locator('.react-flow__node').count(), 0, 'no card in the page far out');

    // From the top of the page, Tab reaches a card: the first in reading order.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let reached: string | null = null;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      // The stop before the canvas hands the focus on to a card (a frame or more later).
      reached = await eventually('the focus settled', async () => {
        const onEntry = await page.evaluate(() => document.activeElement?.classList.contains('bw-cards-entry'));
        return onEntry ? false : { id: await focusedCard(page) };
      }).then((r) => r.id);
    }
    assert.equal(reached, idOf('Card 1'), 'Tab reached the first card');
    const card1 = page.getByRole('group', { name: 'Card 1, note' });
    assert.equal(await card1.evaluate((el) => el === document.activeElement), true, 'named by its title and type');
    const described = await card1.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
    assert.match(described, /Enter selects the card and goes into its text/, 'its keys described');
    const { zoom } = await viewOf(page);
    assert.ok(zoom < 0.25, `far out (zoom ${zoom})`);
    const ring = await page.getByTestId(`node-${idOf('Card 1')}`).evaluate((el) => {
      const style = getComputedStyle(el);
      return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
    });
    assert.ok(ring.style !== 'none' && ring.width * zoom >= 2, `a focus ring on screen: ${JSON.stringify(ring)} at ${zoom}`);

    // Tab goes on in reading order (the row first), Shift+Tab back, the arrows by place.
    const focusedIs = (text: string) => eventually(`${text} focused`, async () => (await focusedCard(page)) === idOf(text));
    await page.keyboard.press('Tab');
    await focusedIs('Card 2');
    await page.keyboard.press('Shift+Tab');
    await focusedIs('Card 1');
    await page.keyboard.press('ArrowRight');
    await focusedIs('Card 2');
    await page.keyboard.press('ArrowDown');
    await focusedIs('Card 10');
    assert.ok((await page.locator('.react-flow__node').count()) <= 2, 'only the focused card came into the page');

    // Enter: zoomed in to the card, into its text; Escape gives the focus back to the card.
    await page.keyboard.press('Enter');
    const text = page.getByTestId(`node-${idOf('Card 10')}`).getByRole('textbox', { name: 'Note text' });
    await eventually('the text focused', async () => text.evaluate((el) => el === document.activeElement));
    assert.equal(await text.inputValue(), 'Card 10', 'nothing typed by the Enter');
    assert.ok((await viewOf(page)).zoom >= 0.5, 'zoomed in to read it');
    await page.keyboard.press('Escape');
    await focusedIs('Card 10');
    // Enter selected it (as React Flow does), where the arrows would move it: Escape lets it go.
    await page.keyboard.press('Escape');
    const card10 = page.locator(`.react-flow__node[data-id="${idOf('Card 10')}"]`);
    await eventually('Card 10 not selected', async () => card10.evaluate((el) => !el.classList.contains('selected')));

    // Close up, the card to the right is out of view and not in the page: the view follows the focus.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    assert.equal(await page.locator(`.react-flow__node[data-id="${idOf('Card 12')}"]`).count(), 0, 'Card 12 is not in the page');
    await page.keyboard.press('ArrowRight');
    await focusedIs('Card 11');
    await page.keyboard.press('ArrowRight');
    await focusedIs('Card 12');
    const box = await eventually('Card 12 in view', async () => {
      const b = await page.getByTestId(`node-${idOf('Card 12')}`).boundingBox();
      return b && b.x >= pane.x && b.x + b.width <= pane.x + pane.width && b.y >= pane.y && b.y + b.height <= pane.y + pane.height
        ? b
        : undefined;
    });
    assert.ok(box.width > 100, 'seen close up');
  } finally {
    await close();
  }
});

test('phone far out: one touch-and-drag on a card moves it, saved and still there after a reload', async () => {
  const account = await signUp(server);
  const call = accountApi(server, account);
  /** The answer's `data`. */
  const api = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).data;
  const board = await api('POST', '/v1/boards', { name: 'Far touch' });
  await api('POST', `/v1/boards/${board.id}/batch`, grid(40, 8, { x: 320, y: 220 }));
  const nodes = (await api('GET', `/v1/boards/${board.id}/nodes?limit=100`)) as {
    id: string;
    position_x: number;
    position_y: number;
    node_data: { text: string };
  }[];
  // Card 20: in the middle of the grid (4th column, 3rd row), clear of the canvas's toolbars.
  const first = nodes.find((n) => n.node_data.text === 'Card 20')!;

  const phone = await launchBrowser(PHONE);
  try {
    const { page } = phone;
    await phone.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(`${server.url}/boards/${board.id}`);
    await page.getByRole('heading', { name: 'Far touch', level: 1 }).waitFor();
    const layer = page.locator('canvas.bw-far-layer');
    await eventually('every card on the far layer', async () => Number(await layer.getAttribute('data-cards')) === 40);
    assert.equal(await page.locator(`.react-flow__node[data-id="${first.id}"]`).count(), 0, 'Card 20 is not in the page');

    // One finger on the middle of Card 20 (260 x 160), dragged down and right.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const view = await viewOf(page);
    assert.ok(view.zoom < 0.25, `far out (zoom ${view.zoom})`);
    const from = {
      x: pane.x + view.x + (first.position_x + 130) * view.zoom,
      y: pane.y + view.y + (first.position_y + 80) * view.zoom,
    };
    const cdp = await phone.context.newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
    for (let i = 1; i <= 10; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: from.x + i * 3, y: from.y + i * 4 }] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });

    const moved = await eventually('the touch drag saved', async () => {
      const node = await api('GET', `/v1/boards/${board.id}/nodes/${first.id}`);
      return node.position_x > first.position_x + 60 && node.position_y > first.position_y + 80 ? node : undefined;
    });
    // (A pan would have moved the view by the finger's 30 x 40 px; the opening fit is corrected by a few.)
    const after = await viewOf(page);
    assert.ok(
      Math.abs(after.x - view.x) < 10 && Math.abs(after.y - view.y) < 10,
      `the canvas did not pan: ${JSON.stringify([view, after])}`,
    );

    // After a reload the card is where it was dropped.
    await page.reload();
    await page.getByRole('heading', { name: 'Far touch', level: 1 }).waitFor();
    await eventually('every card on the far layer', async () => Number(await layer.getAttribute('data-cards')) === 40);
    const kept = await api('GET', `/v1/boards/${board.id}/nodes/${first.id}`);
    assert.deepEqual([kept.position_x, kept.position_y], [moved.position_x, moved.position_y]);
  } finally {
    await phone.close();
  }
});
