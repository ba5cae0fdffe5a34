// End to end: where new cards go and where toolbars sit (issue 30). Links and videos added one
// after another with "Add link" lie side by side, none on another; a selected connection's toolbar
// covers neither card it joins (their titles stay readable), even when the two cards are close.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('links and videos added one after another land on free spots', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Links board');
  try {
    const urls = [
      'https://example.com/one',
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://example.com/two',
      'https://vimeo.com/76979871',
    ];
    for (const [i, url] of urls.entries()) {
      await page.getByRole('button', { name: 'Add link' }).click();
      await page.getByLabel('Web address').fill(url);
      await page.getByRole('dialog').getByRole('button', { name: 'Add link' }).click();
      await eventually(`card ${i + 1} on the canvas`, async () => (await page.locator('.react-flow__node').count()) === i + 1);
    }
    await allSaved(page);
    const nodes = (await api('GET', `/v1/boards/${boardId}/nodes`)).data as { id: string; position_x: number; position_y: number }[];
    assert.equal(nodes.length, urls.length);
    const spots = new Set(nodes.map((n) => `${n.position_x},${n.position_y}`));
    assert.equal(spots.size, urls.length, `each on a spot of its own: ${[...spots].join(' ')}`);
    // And no card lies on another on screen.
    const boxes: Box[] = [];
    for (const n of nodes) {
      const box = await page.getByTestId(`node-${n.id}`).boundingBox();
      assert.ok(box);
      boxes.push(box);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(boxes[i]!, boxes[j]!), `cards ${i + 1} and ${j + 1} do not overlap`);
    }
  } finally {
    await close();
  }
});

test("a selected connection's toolbar covers neither card it joins", async () => {
  let a = '';
  let b = '';
  const { page, close } = await openNewBoard(server, 'Toolbar board', async (api, boardId) => {
    const note = async (x: number, y: number, text: string) =>
      (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y }, data: { text, width: 260, height: 160 } })).data
        .id as string;
    a = await note(0, 0, 'Upper');
    b = await note(0, 220, 'Lower');
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: a, target_node_id: b });
  });
  try {
    const upper = await page.getByTestId(`node-${a}`).boundingBox();
    const lower = await page.getByTestId(`node-${b}`).boundingBox();
    assert.ok(upper && lower);
    // A click on the connection between them selects it and shows its toolbar.
    await page.mouse.click(upper.x + upper.width / 2, (upper.y + upper.height + lower.y) / 2);
    const tools = page.getByRole('toolbar', { name: 'Connection tools' });
    await tools.waitFor();
    const box = await tools.boundingBox();
    assert.ok(box);
    assert.ok(!overlap(box, upper), 'the toolbar is off the upper card');
    assert.ok(!overlap(box, lower), 'the toolbar is off the lower card (and its title)');
    // Its buttons are reachable.
    await tools.getByRole('button', { name: 'Add label' }).click();
    await page.getByRole('textbox', { name: 'Connection label' }).waitFor();
  } finally {
    await close();
  }
});
