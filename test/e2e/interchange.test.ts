// End to end: a selection of nodes deleted from the canvas in one batch request (and left in place
// with a notice when the batch is refused), the board exported as a .canvas download, and that file
// imported from the boards page as a new board showing the same nodes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Request } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;
before(async () => {
  server = await startWebServer();
});
after(async () => server?.close());

const TEXTS = ['Alpha idea', 'Beta idea', 'Gamma idea', 'Delta idea', 'Epsilon idea'];

test('three selected nodes are deleted with one batch request; the board is exported and imported as a new board', async () => {
  const ids: string[] = [];
  const { page, api, boardId, close } = await openNewBoard(server, 'Interchange board', async (api, boardId) => {
    for (const [i, text] of TEXTS.entries()) {
      const node = await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: (i % 3) * 340, y: Math.floor(i / 3) * 260 },
        data: { text, label: text },
      });
      ids.push(node.data.id);
    }
    // One edge between two nodes that go, one between the two that stay.
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[0], target_node_id: ids[1] });
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[3], target_node_id: ids[4] });
  });
  const [a, b, c, d, e] = ids as [string, string, string, string, string];
  const writes: Request[] = [];
  page.on('request', (request) => {
    if (request.url().includes(`/v1/boards/${boardId}/`) && ['POST', 'DELETE'].includes(request.method())) writes.push(request);
  });
  const select = async (...nodeIds: string[]) => {
    await page.getByTestId(`node-${nodeIds[0]}`).locator('.bw-node__title').click();
    for (const id of nodeIds.slice(1))
      await page
        .getByTestId(`node-${id}`)
        .locator('.bw-node__title')
        .click({ modifiers: ['Control'] });
    await page
      .locator('.react-flow__node.selected')
      .nth(nodeIds.length - 1)
      .waitFor();
    assert.equal(await page.locator('.react-flow__node.selected').count(), nodeIds.length);
  };
  try {
    await page.locator('.react-flow__edge').nth(1).waitFor({ state: 'attached' });

    // A refused deletion: the selection leaves the canvas at once, and comes back when the service
    // refuses, with a notice that names the node instead of the index.
    await page.route(`**/v1/boards/${boardId}/batch`, (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ object: 'error', code: 'conflict', message: 'operations[1]: Refused for the test' }),
      }),
    );
    await select(a, b, c);
    await page.keyboard.press('Delete');
    await page.getByRole('alert').filter({ hasText: 'Not deleted: Beta idea: Refused for the test' }).waitFor();
    await allSaved(page);
    await eventually('the selection back on the canvas', async () => (await page.locator('.react-flow__node').count()) === 5);
    await eventually('its connections back', async () => (await page.locator('.react-flow__edge').count()) === 2);
    assert.equal((await api('GET', `/v1/boards/${boardId}/nodes`)).data.length, 5);
    await page.unroute(`**/v1/boards/${boardId}/batch`);
    writes.length = 0;
    assert.equal(await page.locator('.react-flow__node.selected').count(), 3);

    // The same three deleted for real: one batch request, no single deletes.
    await page.keyboard.press('Delete');
    for (const id of [a, b, c]) await page.getByTestId(`node-${id}`).waitFor({ state: 'detached' });
    await allSaved(page);
    const batches = writes.filter((r) => r.method() === 'POST' && r.url().endsWith('/batch'));
    assert.equal(batches.length, 1, 'one batch request');
    assert.equal(writes.length, 1, `no other writes: ${writes.map((r) => `${r.method()} ${r.url()}`).join(', ')}`);
    const left = (await api('GET', `/v1/boards/${boardId}/nodes`)).data.map((n: { id: string }) => n.id).sort();
    assert.deepEqual(left, [d, e].sort());
    assert.equal((await api('GET', `/v1/boards/${boardId}/edges`)).data.length, 1);
    // The stream's node.deleted events bring nothing back.
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.react-flow__node').count(), 2);
    assert.equal(await page.locator('.react-flow__edge').count(), 1);

    // Export: a .canvas download named after the board, holding its nodes and edge.
    await page.getByRole('button', { name: 'More' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export .canvas' }).click()]);
    assert.equal(download.suggestedFilename(), 'Interchange board.canvas');
    const file = await download.path();
    const canvas = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: { text?: string }[]; edges: unknown[] };
    assert.equal(canvas.nodes.length, 2);
    assert.deepEqual(canvas.nodes.map((n) => n.text).sort(), ['Delta idea', 'Epsilon idea']);
    assert.equal(canvas.edges.length, 1);

    // Import on the boards page: a broken file is refused with the service's message…
    await page.goto(`${server.url}/boards`);
    const input = page.getByLabel('Import .canvas file');
    await input.setInputFiles({ name: 'broken.canvas', mimeType: 'application/json', buffer: Buffer.from('{"nodes": 5}') });
    await page.getByRole('alert').first().waitFor();
    assert.ok(page.url().endsWith('/boards'));

    // …and the exported file opens as a new board with the same nodes.
    await input.setInputFiles(file);
    await page.waitForURL((url) => /\/boards\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(boardId));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText('Epsilon idea').first().waitFor();
    assert.equal(await page.locator('.react-flow__node').count(), 2);
    assert.equal(await page.locator('.react-flow__edge').count(), 1);
    const newId = new URL(page.url()).pathname.split('/').pop()!;
    assert.equal((await api('GET', `/v1/boards/${newId}/nodes`)).data.length, 2);
  } finally {
    await close();
  }
});
