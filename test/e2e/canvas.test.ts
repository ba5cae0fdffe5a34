// End to end: the board canvas in Chromium against the real service. A note added from the
// toolbar, edited in place, dragged, and found again after a reload where it was left (with the
// panned view restored); two nodes connected and the edge still there after a reload; an edge and
// a node deleted; a PNG dropped on the canvas and shown, a PDF uploaded with its page count; and
// the screenshot of a board holding every node type.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { makePdf } from '../helpers/assets.js';
import {
  allSaved,
  dragBy,
  dropFiles,
  eventually,
  makePng,
  nodeBox,
  openBoardAsNewAccount,
  openNewBoard,
  saveScreenshot,
  startWebServer,
  type AccountApi,
} from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const openBoard = (name: string, setup?: (api: AccountApi, boardId: string) => Promise<void>) => openNewBoard(server, name, setup);

test('a note added from the toolbar is edited, dragged, and found where it was left after a reload', async () => {
  const { page, api, boardId, close } = await openBoard('Notes board');
  try {
    await page.getByRole('button', { name: 'Add note' }).click();
    const text = page.getByRole('textbox', { name: 'Note text' });
    await text.waitFor();
    // The note is on the canvas at once; the service has it once the header says so.
    await allSaved(page);
    const nodes = (await api('GET', `/v1/boards/${boardId}/nodes`)).data;
    assert.equal(nodes.length, 1);
    const id = nodes[0].id as string;
    assert.equal(nodes[0].node_type, 'note');

    // The new note has the focus: typing goes straight into it, and is saved after a pause.
    await page.keyboard.type('Remember the quarterly review');
    await eventually(
      'the text saved',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text === 'Remember the quarterly review',
    );
    await allSaved(page);

    // Drag it by its title bar; the new position is saved (zoom 1, so screen pixels = canvas units).
    const start = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data;
    const before = await nodeBox(page, id);
    await dragBy(page, { x: before.x + 60, y: before.y + 14 }, 220, 130);
    const moved = await eventually('the position saved', async () => {
      const node = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data;
      return node.position_x !== start.position_x ? node : undefined;
    });
    // What was saved is where the node now is on screen (zoom 1: a screen pixel is a canvas unit).
    const dropped = await nodeBox(page, id);
    const [dx, dy] = [dropped.x - before.x, dropped.y - before.y];
    assert.ok(dx > 150 && dy > 80, `the node moved on screen by ${dx},${dy}`);
    assert.ok(Math.abs(moved.position_x - start.position_x - dx) < 2, `x: ${start.position_x} -> ${moved.position_x}, screen ${dx}`);
    assert.ok(Math.abs(moved.position_y - start.position_y - dy) < 2, `y: ${start.position_y} -> ${moved.position_y}, screen ${dy}`);

    // Pan the canvas by dragging empty space with the middle button (a left drag selects): the view is kept in this browser (per person and
    // device), not written to the board, whose stored viewport is only the default for first opens.
    const canvas = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(canvas);
    await dragBy(page, { x: canvas.x + canvas.width - 300, y: canvas.y + canvas.height - 120 }, -90, -50, 'middle');
    const kept = await eventually('the view kept', () =>
      page.evaluate((id) => {
        const key = Object.keys(localStorage).find((k) => k.startsWith('bw-viewport:') && k.endsWith(id));
        return key ? (JSON.parse(localStorage.getItem(key)!) as { x: number; y: number; zoom: number }) : undefined;
      }, boardId),
    );
    assert.ok(Math.abs(kept.x - -90) < 2 && Math.abs(kept.y - -50) < 2, `viewport ${kept.x},${kept.y}`);
    const board = (await api('GET', `/v1/boards/${boardId}`)).data;
    assert.deepEqual([board.viewport_x, board.viewport_y, board.viewport_zoom], [0, 0, 1]);
    await allSaved(page);
    const left = await nodeBox(page, id);

    await page.reload();
    await page.getByRole('heading', { name: 'Notes board', level: 1 }).waitFor();
    const again = page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
    assert.equal(await again.inputValue(), 'Remember the quarterly review');
    const after = await nodeBox(page, id);
    assert.ok(
      Math.abs(after.x - left.x) < 2 && Math.abs(after.y - left.y) < 2,
      `same place on screen: ${JSON.stringify(left)} vs ${JSON.stringify(after)}`,
    );
  } finally {
    await close();
  }
});

test('connecting two nodes makes an edge that is there after a reload; an edge and a node are deleted', async () => {
  const ids: string[] = [];
  const { page, api, boardId, close } = await openBoard('Edges board', async (api, boardId) => {
    for (const [i, text] of ['First thought', 'Second thought', 'Third thought'].entries()) {
      ids.push(
        (
          await api('POST', `/v1/boards/${boardId}/nodes`, {
            type: 'note',
            position: { x: i * 360, y: i === 1 ? 260 : 0 },
            data: { text, label: text },
          })
        ).data.id,
      );
    }
  });
  const [a, b, c] = ids as [string, string, string];
  try {
    // Drag from the first note's bottom handle (source) to the second's top handle (target).
    const source = await page.getByTestId(`node-${a}`).locator('.react-flow__handle.source').boundingBox();
    const target = await page.getByTestId(`node-${b}`).locator('.react-flow__handle.target').boundingBox();
    assert.ok(source && target);
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 12 });
    await page.mouse.up();
    const edge = await eventually('the edge created', async () => (await api('GET', `/v1/boards/${boardId}/edges`)).data[0]);
    assert.equal(edge.source_node_id, a);
    assert.equal(edge.target_node_id, b);
    await page.locator('.react-flow__edge').first().waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Edges board', level: 1 }).waitFor();
    await page.locator(`.react-flow__edge[data-id="${edge.id}"]`).waitFor();
    assert.equal(await page.locator('.react-flow__edge').count(), 1);

    // Select the edge and press Delete: gone from the canvas and from the service.
    await page.locator(`.react-flow__edge[data-id="${edge.id}"]`).click();
    await page.keyboard.press('Delete');
    await page.locator('.react-flow__edge').waitFor({ state: 'detached' });
    await allSaved(page);
    assert.equal((await api('GET', `/v1/boards/${boardId}/edges`)).data.length, 0);

    // Select a node by its title and use the toolbar's Delete button.
    await page.getByTestId(`node-${c}`).locator('.bw-node__title').click();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByTestId(`node-${c}`).waitFor({ state: 'detached' });
    await allSaved(page);
    const left = (await api('GET', `/v1/boards/${boardId}/nodes`)).data.map((n: { id: string }) => n.id).sort();
    assert.deepEqual(left, [a, b].sort());
  } finally {
    await close();
  }
});

test('a PNG dropped on the canvas is uploaded and shown; a PDF upload shows its name and page count; every node type drawn', async () => {
  const { page, api, boardId, close } = await openBoard('Field trip', async (api, boardId) => {
    const note = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { label: 'Plan', text: 'Visit the tide pools at low tide, sketch the anemones, and compare them with the photos.' },
      })
    ).data;
    const url = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'url',
        position: { x: 360, y: -40 },
        data: { label: 'Tide tables', url: 'https://tidesandcurrents.noaa.gov/' },
      })
    ).data;
    const video = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'video',
        position: { x: 700, y: 0 },
        data: { label: 'Anemones feeding', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      })
    ).data;
    const doc = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'document',
        position: { x: 0, y: 260 },
        data: {
          label: 'Field notes',
          text: 'Sea anemones are predatory animals of the order Actiniaria. They attach to rocks with an adhesive foot and catch prey with stinging tentacles.\n\nMost live in shallow coastal water.',
        },
      })
    ).data;
    for (const [s, t] of [
      [note, url],
      [url, video],
      [note, doc],
    ] as const)
      await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: s.id, target_node_id: t.id });
  });
  try {
    // Drop a PNG on empty canvas below the others.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const png = await makePng(240, 150);
    // Hold the upload's answer a moment to see the placeholder with its progress where it was dropped.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      `**/v1/boards/${boardId}/assets`,
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await dropFiles(page, { x: pane.x + pane.width * 0.55, y: pane.y + pane.height * 0.62 }, [
      { name: 'tide-pool.png', type: 'image/png', data: png },
    ]);
    const progress = page.getByRole('progressbar', { name: 'Uploading tide-pool.png' });
    await progress.waitFor();
    assert.ok(Number(await progress.getAttribute('aria-valuenow')) >= 0);
    release();
    const image = page.locator('img.bw-image');
    await image.waitFor();
    await progress.waitFor({ state: 'detached' });
    await page.waitForFunction(() => {
      const img = document.querySelector('img.bw-image') as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth === 240;
    });
    const imageNode = await eventually('the image node', async () => (await api('GET', `/v1/boards/${boardId}/nodes?type=image`)).data[0]);
    assert.equal(imageNode.node_data.label, 'tide-pool.png');
    assert.equal(imageNode.node_data.fileSize, png.length);
    assert.equal(await image.getAttribute('src'), imageNode.node_data.publicUrl);

    // Upload a PDF through the toolbar's file input: its node says how many pages it has.
    await page
      .getByLabel('Upload image, PDF or document')
      .setInputFiles({ name: 'survey.pdf', mimeType: 'application/pdf', buffer: await makePdf(3) });
    const pdfNode = await eventually('the pdf node', async () => (await api('GET', `/v1/boards/${boardId}/nodes?type=pdf`)).data[0]);
    assert.equal(pdfNode.node_data.pageCount, 3);
    const pdf = page.getByTestId(`node-${pdfNode.id}`);
    await pdf.getByText('3 pages').waitFor();
    await pdf.getByText('survey.pdf').first().waitFor();

    // Tidy the two uploads into place and show the whole board for the screenshot.
    await api('PATCH', `/v1/boards/${boardId}/nodes/${imageNode.id}`, { position: { x: 380, y: 230 } });
    await api('PATCH', `/v1/boards/${boardId}/nodes/${pdfNode.id}`, { position: { x: 720, y: 300 } });
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: imageNode.id, target_node_id: pdfNode.id });
    await page.reload();
    await page.getByRole('heading', { name: 'Field trip', level: 1 }).waitFor();
    for (const kind of ['note', 'url', 'video', 'document', 'image', 'pdf']) await page.locator(`.bw-node--${kind}`).first().waitFor();
    assert.equal(await page.locator('.react-flow__edge').count(), 4);
    await page.waitForFunction(() => (document.querySelector('img.bw-image') as HTMLImageElement | null)?.naturalWidth === 240);
    await saveScreenshot(page, 'canvas.png');
  } finally {
    await close();
  }
});

test('a note whose save fails keeps its text (even across a reload), says why, and Retry saves it', async () => {
  let id = '';
  const { page, api, boardId, close } = await openBoard('Flaky board', async (api, boardId) => {
    id = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { label: 'Draft', text: 'First line' },
      })
    ).data.id;
  });
  try {
    // The service refuses every save of this node for now.
    const nodeUrl = `**/v1/boards/${boardId}/nodes/${id}`;
    let refusals = 0;
    await page.route(nodeUrl, (route) =>
      route.request().method() === 'PATCH' && ++refusals
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ object: 'error', status: 503, code: 'unavailable', message: 'The service is briefly unavailable' }),
          })
        : route.continue(),
    );
    const note = page.getByTestId(`node-${id}`);
    const text = note.getByRole('textbox', { name: 'Note text' });
    await text.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and a second thought');
    const failure = note.getByRole('alert');
    await failure
      .getByText('Not saved: The service is briefly unavailable')
      .waitFor()
      .catch(async (error: Error) => {
        // What the page showed instead, for a failure seen only on a loaded machine.
        const shown = {
          text: await text.inputValue(),
          focused: await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName),
          alerts: await page.getByRole('alert').allTextContents(),
          header: await page.locator('.bw-save').allTextContents(),
          refused: refusals,
        };
        throw new Error(`${error.message}\nThe page showed: ${JSON.stringify(shown)}`);
      });
    await page.getByRole('banner').getByRole('alert').or(page.locator('.bw-save.is-failed')).first().waitFor();

    // A reload while the service still refuses: the text typed is still there, and still not saved.
    await page.reload();
    await page.getByRole('heading', { name: 'Flaky board', level: 1 }).waitFor();
    assert.equal(await text.inputValue(), 'First line and a second thought');
    await failure.getByText('Not saved').waitFor();
    assert.equal((await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text, 'First line');

    // The service is back: Retry saves it.
    await page.unroute(nodeUrl);
    await failure.getByRole('button', { name: 'Retry' }).click();
    await eventually(
      'the text saved',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text === 'First line and a second thought',
    );
    await failure.waitFor({ state: 'detached' });
    await allSaved(page);
  } finally {
    await close();
  }
});

test("someone else's public view board opens read-only", async () => {
  let id = '';
  const owner = await openBoard('Shared board', async (api, boardId) => {
    id = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { label: 'Shared', text: 'Look, do not touch' },
      })
    ).data.id;
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'view' });
  });
  await owner.close();
  const visitor = await openBoardAsNewAccount(server, owner.boardId, 'Shared board');
  try {
    const { page } = visitor;
    await page.getByText('View only').waitFor();
    const text = page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
    assert.equal(await text.inputValue(), 'Look, do not touch');
    assert.equal(await text.getAttribute('readonly'), '');
    assert.equal(await page.getByRole('button', { name: 'Add note' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete selected' }).count(), 0);
    await page.getByRole('button', { name: 'Menu of Shared' }).click();
    // Reading writes chunks: a viewer is offered no Read on the card.
    assert.equal(
      await page
        .getByTestId(`node-${id}`)
        .getByRole('button', { name: /^Read( again)?$/ })
        .count(),
      0,
    );
    assert.equal(await page.getByRole('menuitem', { name: 'Delete' }).count(), 0);
    await page.getByRole('menuitem', { name: 'Chat about this' }).waitFor();
    // Nodes cannot be dragged: the node keeps its place on the canvas (its transform).
    const wrapper = page.locator(`.react-flow__node[data-id="${id}"]`);
    const placed = await wrapper.evaluate((el) => (el as HTMLElement).style.transform);
    const box = await nodeBox(page, id);
    await dragBy(page, { x: box.x + 60, y: box.y + 14 }, 150, 100);
    assert.equal(await wrapper.evaluate((el) => (el as HTMLElement).style.transform), placed);
  } finally {
    await visitor.close();
  }
});
