// End to end (issue 30): navigating the canvas as in tldraw and Figma, and reaching it by keyboard.
// The wheel pans (also sideways), over empty canvas and over a note's text alike; Ctrl+wheel zooms
// around the pointer; Ctrl+0, Ctrl+=, Ctrl+-, Shift+1 (fit all) and Shift+2 (fit the selection); a
// card moves by a drag on its text when the text is not being edited. Keyboard: a focused card has
// a visible ring, a connection is named by its cards' titles, and a card's menu follows the WAI-ARIA
// menu pattern (focus on the first item, arrow keys, Escape back to its button).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, nodeBox, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** The canvas's view: its pan (px) and zoom. */
async function view(page: Page): Promise<{ x: number; y: number; zoom: number }> {
  const transform = await page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);
  const match = /translate\(([-\d.e]+)px,\s*([-\d.e]+)px\)\s*scale\(([-\d.e]+)\)/.exec(transform);
  assert.ok(match, `viewport transform ${transform}`);
  return { x: Number(match[1]), y: Number(match[2]), zoom: Number(match[3]) };
}

/** Waits for the view to settle (a zoom key animates briefly) and returns it. */
async function settledView(page: Page) {
  let last = await view(page);
  return eventually('the view to settle', async () => {
    await page.waitForTimeout(200);
    const now = await view(page);
    const same = now.x === last.x && now.y === last.y && now.zoom === last.zoom;
    last = now;
    return same ? now : undefined;
  });
}

const near = (a: number, b: number, tolerance = 1.5) => Math.abs(a - b) <= tolerance;

test('wheel pans (also over note text), Ctrl+wheel zooms at the pointer, the zoom keys, a drag on the text moves the card', async () => {
  const ids: string[] = [];
  const { page, api, boardId, close } = await openNewBoard(server, 'Navigation board', async (api, boardId) => {
    for (const [x, y, text] of [
      [0, 0, 'Plan'],
      [700, 500, 'Budget'],
    ] as const) {
      ids.push((await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y }, data: { text } })).data.id);
    }
  });
  const [plan, budget] = ids as [string, string];
  try {
    await page.getByTestId(`node-${plan}`).waitFor();
    await page.keyboard.press('Control+0');
    const start = await settledView(page);
    assert.equal(start.zoom, 1, 'Ctrl+0: 100%');

    // The wheel over empty canvas pans: down and sideways.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    await page.mouse.move(pane.x + pane.width - 120, pane.y + 60);
    await page.mouse.wheel(0, 100);
    const down = await eventually('a vertical pan', async () => {
      const v = await view(page);
      return v.y !== start.y ? v : undefined;
    });
    assert.ok(near(down.y, start.y - 100) && near(down.x, start.x) && down.zoom === 1, `wheel down: ${JSON.stringify(down)}`);
    await page.mouse.wheel(80, 0);
    const sideways = await eventually('a sideways pan', async () => {
      const v = await view(page);
      return v.x !== down.x ? v : undefined;
    });
    assert.ok(near(sideways.x, down.x - 80) && near(sideways.y, down.y), `wheel sideways: ${JSON.stringify(sideways)}`);

    // Over a note's text (not being edited) the wheel pans too (both cards fitted in view first).
    await page.keyboard.press('Shift+Digit1');
    const fitted = await settledView(page);
    const text = page.getByTestId(`node-${plan}`).getByRole('textbox', { name: 'Note text' });
    const textBox = await text.boundingBox();
    assert.ok(textBox);
    await page.mouse.move(textBox.x + textBox.width / 2, textBox.y + textBox.height / 2);
    await page.mouse.wheel(0, -60);
    const overText = await eventually('a pan over the note', async () => {
      const v = await view(page);
      return v.y !== fitted.y ? v : undefined;
    });
    assert.ok(near(overText.y, fitted.y + 60), `wheel over note text: ${JSON.stringify(overText)}`);

    // Ctrl+wheel zooms, keeping the canvas point under the pointer where it is.
    const pointer = { x: pane.x + 500, y: pane.y + 300 };
    await page.mouse.move(pointer.x, pointer.y);
    const before = await view(page);
    const flowPoint = { x: (pointer.x - pane.x - before.x) / before.zoom, y: (pointer.y - pane.y - before.y) / before.zoom };
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    const zoomed = await settledView(page);
    assert.ok(zoomed.zoom > before.zoom, `Ctrl+wheel zooms in: ${before.zoom} -> ${zoomed.zoom}`);
    const after = { x: pane.x + zoomed.x + flowPoint.x * zoomed.zoom, y: pane.y + zoomed.y + flowPoint.y * zoomed.zoom };
    assert.ok(near(after.x, pointer.x, 3) && near(after.y, pointer.y, 3), `the point under the pointer stays: ${JSON.stringify(after)}`);

    // The zoom keys.
    await page.keyboard.press('Control+0');
    assert.equal((await settledView(page)).zoom, 1);
    await page.keyboard.press('Control+Equal');
    const zoomIn = await settledView(page);
    assert.ok(zoomIn.zoom > 1, `Ctrl+= zooms in: ${zoomIn.zoom}`);
    await page.keyboard.press('Control+Minus');
    await page.keyboard.press('Control+Minus');
    const zoomOut = await settledView(page);
    assert.ok(zoomOut.zoom < 1, `Ctrl+- zooms out: ${zoomOut.zoom}`);

    // Shift+1 fits both cards in view; Shift+2 fits the selected one (closer).
    await page.keyboard.press('Shift+Digit1');
    const all = await settledView(page);
    for (const id of [plan, budget]) {
      const box = await nodeBox(page, id);
      assert.ok(box.x >= pane.x && box.x + box.width <= pane.x + pane.width, `${id} in view across`);
      assert.ok(box.y >= pane.y && box.y + box.height <= pane.y + pane.height, `${id} in view down`);
    }
    await page.getByTestId(`node-${budget}`).locator('.bw-node__head').click();
    await page.keyboard.press('Shift+Digit2');
    const one = await settledView(page);
    assert.ok(one.zoom > all.zoom, `Shift+2 fits the selection closer: ${all.zoom} -> ${one.zoom}`);
    const budgetBox = await nodeBox(page, budget);
    const centre = { x: budgetBox.x + budgetBox.width / 2, y: budgetBox.y + budgetBox.height / 2 };
    assert.ok(centre.x > pane.x && centre.x < pane.x + pane.width && centre.y > pane.y && centre.y < pane.y + pane.height);

    // A drag on the text of a note that is not being edited moves the card, and is saved.
    await page.keyboard.press('Control+0');
    await page.keyboard.press('Shift+Digit1');
    await settledView(page);
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const startNode = (await api('GET', `/v1/boards/${boardId}/nodes/${plan}`)).data;
    const body = await text.boundingBox();
    assert.ok(body);
    const from = { x: body.x + body.width / 2, y: body.y + body.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + 40, from.y + 30, { steps: 6 });
    await page.mouse.move(from.x + 80, from.y + 60, { steps: 6 });
    await page.mouse.up();
    const moved = await eventually('the drag by the text saved', async () => {
      const node = (await api('GET', `/v1/boards/${boardId}/nodes/${plan}`)).data;
      return node.position_x !== startNode.position_x ? node : undefined;
    });
    assert.ok(moved.position_x > startNode.position_x && moved.position_y > startNode.position_y);
    assert.equal(await text.inputValue(), 'Plan', 'the text is unchanged');
    await allSaved(page);

    // Being edited, the text takes the drag: it selects text and the card stays.
    await text.click();
    await text.press('End');
    const editBox = await text.boundingBox();
    assert.ok(editBox);
    await page.mouse.move(editBox.x + 10, editBox.y + 12);
    await page.mouse.down();
    await page.mouse.move(editBox.x + 120, editBox.y + 40, { steps: 6 });
    await page.mouse.up();
    await page.waitForTimeout(500);
    const still = (await api('GET', `/v1/boards/${boardId}/nodes/${plan}`)).data;
    assert.equal(still.position_x, moved.position_x, 'the card did not move while its text is edited');
  } finally {
    await close();
  }
});

test('keyboard: a focus ring on cards, connections named by their cards, the card menu as a WAI-ARIA menu', async () => {
  const ids: string[] = [];
  const { page, close } = await openNewBoard(server, 'Keyboard board', async (api, boardId) => {
    for (const [x, text] of [
      [0, 'Plan'],
      [400, 'Budget'],
    ] as const) {
      ids.push((await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y: 0 }, data: { text } })).data.id);
    }
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[0], target_node_id: ids[1] });
  });
  const [plan] = ids as [string, string];
  try {
    // The connection is named by its cards' titles, not by ids.
    const edge = page.locator('.react-flow__edge').first();
    await edge.waitFor({ state: 'attached' });
    assert.equal(await edge.getAttribute('aria-label'), 'Connection from Plan to Budget');

    // A card focused from the keyboard shows a ring.
    const wrapper = page.locator(`.react-flow__node[data-id="${plan}"]`);
    await wrapper.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const outline = await page.getByTestId(`node-${plan}`).evaluate((el) => {
      const style = getComputedStyle(el);
      return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
    });
    assert.ok(outline.style !== 'none' && outline.width >= 2, `focus ring: ${JSON.stringify(outline)}`);

    // The card's menu: opened from its button, the first item has the focus; arrows move; Escape
    // closes it and gives the focus back to the button.
    const button = page.getByRole('button', { name: 'Menu of Plan' });
    await button.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'Menu of Plan' });
    await menu.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    assert.equal(await focused(), 'Chat about this');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'Comment');
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'Chat about this');
    await page.keyboard.press('End');
    assert.equal(await focused(), 'Delete');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Menu of Plan');
  } finally {
    await close();
  }
});
