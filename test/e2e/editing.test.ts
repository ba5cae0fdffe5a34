// End to end: the whiteboard editing basics in Chromium against the real service. Undo and redo
// (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y) of a note made by double-clicking the canvas, its text, a move, a
// connection made by dropping on a card's body, and a delete (the node and its edge come back),
// each checked on the service and after a reload; Shift-click, marquee and Ctrl+A selection; copy
// and paste within a board and into another board, with the edges among the copied nodes (an
// image pasted into another board becomes a link to its file); cut;
// duplicate; arrow-key moves that are saved (they were shown but lost on reload), undone in one
// step without touching someone else's change; the shortcuts panel (also on a phone-sized screen).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { uploadFile } from '../helpers/assets.js';
import type { TestUser } from '../helpers/harness.js';
import {
  type AccountApi,
  allSaved,
  allowClipboard,
  dragBy,
  eventually,
  makePng,
  nodeBox,
  openNewBoard,
  startWebServer,
} from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

type ApiNode = { id: string; node_type: string; position_x: number; position_y: number; node_data: Record<string, unknown> };
type ApiEdge = { id: string; source_node_id: string; target_node_id: string };

const nodesOf = async (api: AccountApi, boardId: string): Promise<ApiNode[]> =>
  (await api('GET', `/v1/boards/${boardId}/nodes?limit=100`)).data;
const edgesOf = async (api: AccountApi, boardId: string): Promise<ApiEdge[]> =>
  (await api('GET', `/v1/boards/${boardId}/edges?limit=100`)).data;
const textOf = (n: ApiNode) => n.node_data.text;

/** Notes made through the API before the page opens; returns their ids in order. */
async function addNotes(api: AccountApi, boardId: string, notes: { text: string; x: number; y: number }[]): Promise<string[]> {
  const ids: string[] = [];
  for (const n of notes) {
    ids.push(
      (
        await api('POST', `/v1/boards/${boardId}/nodes`, {
          type: 'note',
          position: { x: n.x, y: n.y },
          data: { text: n.text, label: n.text },
        })
      ).data.id,
    );
  }
  return ids;
}

/** The canvas's pan and zoom, read from React Flow's viewport element. */
async function viewportOf(page: Page): Promise<{ x: number; y: number; zoom: number }> {
  const transform = await page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);
  const match = /translate\((-?[\d.]+)px,\s*(-?[\d.]+)px\)\s*scale\(([\d.]+)\)/.exec(transform);
  assert.ok(match, `viewport transform ${transform}`);
  return { x: Number(match[1]), y: Number(match[2]), zoom: Number(match[3]) };
}

const selectedIds = (page: Page) =>
  page.locator('.react-flow__node.selected').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')).sort());

async function reloadBoard(page: Page, name: string) {
  await page.reload();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

test('undo and redo of a double-click note, its text, a move, a connection dropped on a card, and a delete', async () => {
  let a = '';
  let b = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Undo board', async (api, boardId) => {
    [a = '', b = ''] = await addNotes(api, boardId, [
      { text: 'Alpha', x: 0, y: 0 },
      { text: 'Beta', x: 420, y: 0 },
    ]);
  });
  const name = 'Undo board';
  try {
    // A double-click on the empty canvas makes a note with its corner where the pointer was, and
    // does not zoom.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const before = await viewportOf(page);
    const alphaBox = await nodeBox(page, a);
    const at = { x: alphaBox.x + 40, y: alphaBox.y + alphaBox.height + 160 };
    await page.mouse.dblclick(at.x, at.y);
    const created = await eventually('the note created', async () => {
      const list = await nodesOf(api, boardId);
      return list.length === 3 ? list.find((n) => n.id !== a && n.id !== b) : undefined;
    });
    const c = created.id;
    await page.getByTestId(`node-${c}`).waitFor();
    const view = await viewportOf(page);
    assert.equal(view.zoom, before.zoom, 'the double-click did not zoom');
    const flowX = (at.x - pane.x - view.x) / view.zoom;
    const flowY = (at.y - pane.y - view.y) / view.zoom;
    assert.ok(
      Math.abs(created.position_x - flowX) < 2 && Math.abs(created.position_y - flowY) < 2,
      `note at ${created.position_x},${created.position_y}, pointer at ${flowX},${flowY}`,
    );

    // The new note has the focus: type into it, then leave the text box; Ctrl+Z in the box stays the box's own.
    await page.keyboard.type('Gamma notes');
    await eventually('the text saved', async () => textOf((await api('GET', `/v1/boards/${boardId}/nodes/${c}`)).data) === 'Gamma notes');
    await allSaved(page);
    await page.mouse.click(pane.x + pane.width - 60, pane.y + 60);

    // Undo the text: the service has the empty text again; redo brings it back.
    await page.keyboard.press('Control+z');
    await eventually('the text undone', async () => textOf((await api('GET', `/v1/boards/${boardId}/nodes/${c}`)).data) === '');
    // The canvas shows the service's answer once it arrives, which may be after the service has it.
    const noteText = page.getByTestId(`node-${c}`).getByRole('textbox', { name: 'Note text' });
    await eventually('the text box emptied', async () => (await noteText.inputValue()) === '');
    await page.keyboard.press('Control+Shift+z');
    await eventually('the text redone', async () => textOf((await api('GET', `/v1/boards/${boardId}/nodes/${c}`)).data) === 'Gamma notes');
    await eventually('the text box filled again', async () => (await noteText.inputValue()) === 'Gamma notes');

    // Move Alpha by dragging its title; undo puts it back on the service, Ctrl+Y moves it again.
    const start = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
    const box = await nodeBox(page, a);
    await dragBy(page, { x: box.x + 60, y: box.y + 14 }, 150, 60);
    const moved = await eventually('the move saved', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x !== start.position_x ? n : undefined;
    });
    await allSaved(page);
    await page.keyboard.press('Control+z');
    await eventually('the move undone', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x === start.position_x && n.position_y === start.position_y;
    });
    await eventually('Alpha back on screen', async () => Math.abs((await nodeBox(page, a)).x - box.x) < 2);
    await page.keyboard.press('Control+y');
    await eventually('the move redone', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x === moved.position_x && n.position_y === moved.position_y;
    });

    // Connect Alpha to Beta by dropping on Beta's body (not on its handle): an edge on the service.
    const source = await page.getByTestId(`node-${a}`).locator('.react-flow__handle.source').boundingBox();
    const beta = await nodeBox(page, b);
    assert.ok(source);
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(beta.x + beta.width / 2, beta.y + beta.height * 0.7, { steps: 12 });
    await page.mouse.up();
    const edge = await eventually('the edge created', async () => (await edgesOf(api, boardId))[0]);
    assert.deepEqual([edge.source_node_id, edge.target_node_id], [a, b]);
    await page.locator('.react-flow__edge').first().waitFor();
    // Undo (the canvas's Undo button) removes it; Redo makes it again (a new id, the same ends).
    await page.getByRole('button', { name: 'Undo' }).click();
    await eventually('the edge undone', async () => (await edgesOf(api, boardId)).length === 0);
    await page.locator('.react-flow__edge').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Redo' }).click();
    const again = await eventually('the edge redone', async () => (await edgesOf(api, boardId))[0]);
    assert.deepEqual([again.source_node_id, again.target_node_id], [a, b]);
    await page.locator('.react-flow__edge').first().waitFor();

    // Delete Alpha (its edge goes with it); undo restores both, which a reload still shows.
    await page.getByTestId(`node-${a}`).locator('.bw-node__title').click();
    await page.keyboard.press('Delete');
    await page.getByTestId(`node-${a}`).waitFor({ state: 'detached' });
    // Off the canvas at once; on the service once the header says every change is saved.
    await allSaved(page);
    assert.equal((await edgesOf(api, boardId)).length, 0);
    await page.keyboard.press('Control+z');
    const restored = await eventually('Alpha restored', async () => (await nodesOf(api, boardId)).find((n) => textOf(n) === 'Alpha'));
    assert.equal(restored.position_x, moved.position_x);
    const restoredEdge = await eventually('its edge restored', async () => (await edgesOf(api, boardId))[0]);
    assert.deepEqual([restoredEdge.source_node_id, restoredEdge.target_node_id], [restored.id, b]);
    await page.getByTestId(`node-${restored.id}`).waitFor();
    // Redo deletes the restored node (the history follows it to its new id); undo restores it again.
    await page.keyboard.press('Control+Shift+z');
    await eventually('deleted again', async () => !(await nodesOf(api, boardId)).some((n) => n.id === restored.id));
    await page.getByTestId(`node-${restored.id}`).waitFor({ state: 'detached' });
    await page.keyboard.press('Control+z');
    const back = await eventually('restored again', async () => (await nodesOf(api, boardId)).find((n) => textOf(n) === 'Alpha'));
    const backEdge = await eventually('its edge restored again', async () => (await edgesOf(api, boardId))[0]);
    assert.deepEqual([backEdge.source_node_id, backEdge.target_node_id], [back.id, b]);
    await page.getByTestId(`node-${back.id}`).waitFor();
    await reloadBoard(page, name);
    await page.getByTestId(`node-${back.id}`).waitFor();
    await page.locator(`.react-flow__edge[data-id="${backEdge.id}"]`).waitFor({ state: 'attached' });
    assert.equal(await page.locator('.react-flow__node').count(), 3);
  } finally {
    await close();
  }
});

test('selection (Shift-click, marquee, Ctrl+A), copy and paste with edges within and across boards, cut, duplicate', async () => {
  let ids: string[] = [];
  const name = 'Copy board';
  const opened = await openNewBoard(server, name, async (api, boardId) => {
    ids = await addNotes(api, boardId, [
      { text: 'One', x: 0, y: 0 },
      { text: 'Two', x: 400, y: 0 },
      { text: 'Three', x: 0, y: 320 },
    ]);
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[0], target_node_id: ids[1] });
    await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[1], target_node_id: ids[2] });
  });
  const { page, api, boardId, close } = opened;
  const [one, two, three] = ids as [string, string, string];
  try {
    await allowClipboard(opened, server);
    // Shift-click adds to the selection.
    await page.getByTestId(`node-${one}`).locator('.bw-node__title').click();
    await page
      .getByTestId(`node-${two}`)
      .locator('.bw-node__title')
      .click({ modifiers: ['Shift'] });
    assert.deepEqual(await selectedIds(page), [one, two].sort());

    // Copy: the clipboard holds the app's marked JSON with the edge between them only.
    await page.keyboard.press('Control+c');
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
    assert.equal(copied.type, 'board-workspace/nodes');
    assert.equal(copied.nodes.length, 2);
    assert.equal(copied.edges.length, 1);

    // Paste at the pointer (over empty canvas, below the nodes): two new nodes and their edge, selected.
    const three0 = await nodeBox(page, three);
    await page.mouse.move(three0.x + three0.width + 120, three0.y + 40);
    await page.keyboard.press('Control+v');
    const pasted = await eventually('the paste written', async () => {
      const list = await nodesOf(api, boardId);
      return list.length === 5 ? list.filter((n) => !ids.includes(n.id)) : undefined;
    });
    assert.deepEqual(pasted.map(textOf).sort(), ['One', 'Two']);
    const pastedOne = pasted.find((n) => textOf(n) === 'One')!;
    const pastedTwo = pasted.find((n) => textOf(n) === 'Two')!;
    assert.equal(pastedTwo.position_x - pastedOne.position_x, 400, 'the copies keep their layout');
    assert.ok(pastedOne.position_y > 200, 'pasted where the pointer was, not over the originals');
    const edgesNow = await edgesOf(api, boardId);
    assert.equal(edgesNow.length, 3);
    assert.ok(edgesNow.some((e) => e.source_node_id === pastedOne.id && e.target_node_id === pastedTwo.id));
    await eventually('the pasted nodes selected', async () => {
      const sel = await selectedIds(page);
      return sel.join() === [pastedOne.id, pastedTwo.id].sort().join();
    });

    // Undo the paste: both nodes and their edge are gone.
    await page.keyboard.press('Control+z');
    await eventually('the paste undone', async () => (await nodesOf(api, boardId)).length === 3);
    assert.equal((await edgesOf(api, boardId)).length, 2);

    // Marquee: dragging on the empty canvas around One and Two (not Three) selects them; Ctrl+D duplicates.
    const b1 = await nodeBox(page, one);
    const b2 = await nodeBox(page, two);
    await page.mouse.click(b2.x + b2.width + 60, b2.y + b2.height + 100);
    assert.deepEqual(await selectedIds(page), []);
    await dragBy(page, { x: b1.x - 30, y: b1.y - 30 }, b2.x + b2.width + 30 - (b1.x - 30), Math.max(b1.height, b2.height) + 60);
    assert.deepEqual(await selectedIds(page), [one, two].sort());
    await page.keyboard.press('Control+d');
    const dupes = await eventually('the duplicates written', async () => {
      const list = await nodesOf(api, boardId);
      return list.length === 5 ? list.filter((n) => !ids.includes(n.id)) : undefined;
    });
    const dupeOne = dupes.find((n) => textOf(n) === 'One')!;
    assert.deepEqual([dupeOne.position_x, dupeOne.position_y], [40, 40], 'a duplicate lands a step right and down of the original');
    assert.equal((await edgesOf(api, boardId)).length, 3);

    // Ctrl+A selects every node, not the page's text.
    await page.mouse.click(b2.x + b2.width + 60, b2.y + b2.height + 100);
    await page.keyboard.press('Control+a');
    await eventually('all five selected', async () => (await selectedIds(page)).length === 5);
    assert.equal(await page.evaluate(() => window.getSelection()?.toString() ?? ''), '');

    // An image on this board (uploaded through the API; the stream puts it on the canvas).
    const user = { token: opened.account.accessToken } as TestUser;
    const { nodeData } = await uploadFile(server, user, boardId, await makePng(40, 30), 'pic.png', 'image/png');
    const imageData = { ...nodeData, label: 'pic.png' };
    const image = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'image', position: { x: 400, y: 320 }, data: imageData })).data
      .id as string;
    await page.getByTestId(`node-${image}`).waitFor();

    // Copy One, Two and the image and paste them into another board (a second tab of the same
    // person): the image becomes a link card to the original file, with a notice saying so.
    await page.mouse.click(b2.x + b2.width + 60, b2.y + b2.height + 100);
    await page.getByTestId(`node-${one}`).locator('.bw-node__title').click();
    await page
      .getByTestId(`node-${two}`)
      .locator('.bw-node__title')
      .click({ modifiers: ['Shift'] });
    await page
      .getByTestId(`node-${image}`)
      .locator('.bw-node__title')
      .click({ modifiers: ['Shift'] });
    assert.deepEqual(await selectedIds(page), [one, two, image].sort());
    await page.keyboard.press('Control+c');
    const otherId = (await api('POST', '/v1/boards', { name: 'Other board' })).data.id as string;
    const other = await opened.context.newPage();
    await other.goto(`${server.url}/boards/${otherId}`);
    await other.getByRole('heading', { name: 'Other board', level: 1 }).waitFor();
    const otherPane = await other.locator('.react-flow__pane').boundingBox();
    assert.ok(otherPane);
    await other.mouse.move(otherPane.x + otherPane.width / 2, otherPane.y + otherPane.height / 2);
    await other.keyboard.press('Control+v');
    const pastedAcross = await eventually('pasted into the other board', async () => {
      const list = await nodesOf(api, otherId);
      return list.length === 3 ? list : undefined;
    });
    const link = pastedAcross.find((n) => n.node_type === 'url');
    assert.ok(link, 'the image became a url node');
    assert.equal(link.node_data.url, nodeData.publicUrl);
    assert.equal(link.node_data.label, 'pic.png');
    await other.getByText('pasted as a link to the original').waitFor();
    const across = pastedAcross.filter((n) => n !== link);
    assert.deepEqual(across.map(textOf).sort(), ['One', 'Two']);
    const acrossEdges = await edgesOf(api, otherId);
    assert.equal(acrossEdges.length, 1);
    assert.deepEqual(
      [acrossEdges[0]!.source_node_id, acrossEdges[0]!.target_node_id],
      [across.find((n) => textOf(n) === 'One')!.id, across.find((n) => textOf(n) === 'Two')!.id],
    );
    // (A straight edge's box has no height, so it is never "visible" to Playwright: attached is what counts.)
    await other.locator(`.react-flow__edge[data-id="${acrossEdges[0]!.id}"]`).waitFor({ state: 'attached' });
    await other.close();

    // Cut Three: copied and deleted; pasting it back makes it again.
    await page.getByTestId(`node-${three}`).locator('.bw-node__title').click();
    await page.keyboard.press('Control+x');
    await page.getByTestId(`node-${three}`).waitFor({ state: 'detached' });
    await allSaved(page);
    assert.ok(!(await nodesOf(api, boardId)).some((n) => n.id === three));
    await page.keyboard.press('Control+v');
    await eventually('Three pasted back', async () => (await nodesOf(api, boardId)).some((n) => textOf(n) === 'Three'));
  } finally {
    await close();
  }
});

test('arrow keys move the selection and the move is saved; the shortcuts panel opens with ? and closes with Escape', async () => {
  let a = '';
  let b = '';
  const name = 'Arrow board';
  const { page, api, boardId, close } = await openNewBoard(server, name, async (api, boardId) => {
    [a = '', b = ''] = await addNotes(api, boardId, [
      { text: 'Left', x: 0, y: 0 },
      { text: 'Right', x: 400, y: 0 },
    ]);
  });
  try {
    // Select Left, then 3 × ArrowRight (10 each) and Shift+ArrowDown (50).
    await page.getByTestId(`node-${a}`).locator('.bw-node__title').click();
    const before = await nodeBox(page, a);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await eventually('the arrow-key move saved', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x === 30 && n.position_y === 50;
    });
    await allSaved(page);
    const moved = await nodeBox(page, a);
    assert.ok(moved.x > before.x && moved.y > before.y, 'moved on screen too');
    // Right was not selected: it stayed.
    const right = (await api('GET', `/v1/boards/${boardId}/nodes/${b}`)).data as ApiNode;
    assert.deepEqual([right.position_x, right.position_y], [400, 0]);

    // Someone else moves Right (through the API): it comes through the stream, and is not in this
    // person's history.
    const rightBefore = await nodeBox(page, b);
    await api('PATCH', `/v1/boards/${boardId}/nodes/${b}`, { position: { x: 500, y: 0 } });
    await eventually('the other move shown', async () => (await nodeBox(page, b)).x > rightBefore.x + 20);

    // Undo takes the whole run of key presses back in one step (not the other person's move);
    // redo makes it again.
    await page.keyboard.press('Control+z');
    await eventually('the arrow-key move undone', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x === 0 && n.position_y === 0;
    });
    const other = (await api('GET', `/v1/boards/${boardId}/nodes/${b}`)).data as ApiNode;
    assert.deepEqual([other.position_x, other.position_y], [500, 0], "the other person's move stays");
    await page.keyboard.press('Control+Shift+z');
    await eventually('the arrow-key move redone', async () => {
      const n = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data as ApiNode;
      return n.position_x === 30 && n.position_y === 50;
    });
    await allSaved(page);

    // After a reload the node is drawn where the keys left it (in canvas units).
    await reloadBoard(page, name);
    const after = await nodeBox(page, a);
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const view = await viewportOf(page);
    const [x, y] = [(after.x - pane.x - view.x) / view.zoom, (after.y - pane.y - view.y) / view.zoom];
    assert.ok(Math.abs(x - 30) < 2 && Math.abs(y - 50) < 2, `drawn at ${x},${y}`);

    // The shortcuts panel: ? opens it, Escape closes it; the toolbar button opens it too.
    await page.locator('.react-flow__pane').click({ position: { x: 220, y: 20 } });
    await page.keyboard.press('?');
    const panel = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await panel.waitFor();
    for (const what of ['Undo your last change', 'Redo', 'Select all nodes', 'Duplicate the selection', 'Delete the selection']) {
      await panel.getByText(what, { exact: true }).waitFor();
    }
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await panel.waitFor();
    await page.getByRole('button', { name: 'Close shortcuts' }).click();
    await panel.waitFor({ state: 'detached' });

    // On a phone (390 x 844) the editing bar's buttons and the whole panel are within the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const name of ['Undo', 'Redo', 'Duplicate selected', 'Keyboard shortcuts']) {
      const box = await page.getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${name} on screen: ${JSON.stringify(box)}`);
    }
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    const shown = await panel.boundingBox();
    assert.ok(shown && shown.x >= 0 && shown.x + shown.width <= 390 && shown.y >= 0, `panel within the screen: ${JSON.stringify(shown)}`);
    await page.getByRole('button', { name: 'Close shortcuts' }).click();
    await panel.waitFor({ state: 'detached' });
  } finally {
    await close();
  }
});

test('a new note takes the focus once: out of the page and back (zoomed far out), it leaves the keys to the canvas', async () => {
  let a = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Focus once board', async (api, boardId) => {
    [a = ''] = await addNotes(api, boardId, [{ text: 'Alpha', x: 0, y: 0 }]);
  });
  try {
    const alphaBox = await nodeBox(page, a);
    await page.mouse.dblclick(alphaBox.x + 40, alphaBox.y + alphaBox.height + 120);
    const created = await eventually('the note created', async () => (await nodesOf(api, boardId)).find((n) => n.id !== a));
    const note = page.getByTestId(`node-${created.id}`);
    await page.keyboard.type('Delta');
    await eventually(
      'the text saved',
      async () => textOf((await api('GET', `/v1/boards/${boardId}/nodes/${created.id}`)).data) === 'Delta',
    );
    await allSaved(page);
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    await page.mouse.click(pane.x + pane.width - 60, pane.y + 60);
    assert.equal(
      await page.evaluate(() => document.activeElement?.tagName),
      'BODY',
      'the click on the canvas took the focus from the note',
    );

    // Far out the cards leave the page (drawn on one canvas); at 100% the note's card is made again.
    await eventually('the note out of the page', async () => {
      await page.keyboard.press('Control+-');
      return (await note.count()) === 0;
    });
    await page.keyboard.press('Control+0');
    await note.waitFor();
    // A frame or two for the card's effects (the old code focused the note again here).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

    // The keys are the canvas's: ? opens the shortcuts, and the note's text is as it was.
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: /shortcuts/i }).waitFor();
    await page.keyboard.press('Escape');
    await allSaved(page);
    assert.equal(textOf((await api('GET', `/v1/boards/${boardId}/nodes/${created.id}`)).data), 'Delta');
  } finally {
    await close();
  }
});

test('typing at once into a note just added, then clicking into it and typing on: every word in the order typed', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Typing at once board');
  try {
    // A slow machine: the new note takes the focus only frames after the click (here a second
    // late), and what is typed meanwhile is kept for it. The person clicks into the note first.
    await page.evaluate(() => {
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) => window.setTimeout(() => raf(callback), 1500);
    });
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.keyboard.type('Anemones eat plankton ');
    const box = page.getByRole('textbox', { name: 'Note text' });
    await box.click();
    await page.keyboard.type('and small fish.');
    await allSaved(page);
    await eventually('the text saved', async () => {
      const nodes = (await api('GET', `/v1/boards/${boardId}/nodes`)).data as ApiNode[];
      return nodes.length === 1 && nodes[0]!.node_data.text === 'Anemones eat plankton and small fish.';
    });
    assert.equal(await box.inputValue(), 'Anemones eat plankton and small fish.');
  } finally {
    await close();
  }
});
