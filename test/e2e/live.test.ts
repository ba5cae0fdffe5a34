// End to end: the multiplayer canvas. Two Chromium browsers signed in as two accounts (the owner
// and a visitor) on one public board shared with edit access. What one does (add a note, type in
// it, move it, connect it, delete a node) appears on the other's canvas without a reload; a stream
// cut while the browser is offline resumes and brings what happened meanwhile; both dragging one
// node at the same time end showing the same position, the one the service has; the board's new
// name shows and its saved view moves no one's canvas; its deletion is told on both pages; and
// presence shows the other person's avatar, pointer and selection, gone soon after their page
// closes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { type AccountApi, dragBy, eventually, openBoardAsNewAccount, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** The owner's browser and a visitor's on one new public edit board; `setup` fills it first. */
async function openShared(name: string, setup?: (api: AccountApi, boardId: string) => Promise<void>) {
  const owner = await openNewBoard(server, name, async (api, boardId) => {
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'edit' });
    await setup?.(api, boardId);
  });
  try {
    const visitor = await openBoardAsNewAccount(server, owner.boardId, name);
    return {
      owner,
      visitor,
      async close() {
        await visitor.close();
        await owner.close();
      },
    };
  } catch (error) {
    await owner.close();
    throw error;
  }
}

/** Where React Flow draws a node, in canvas coordinates (its transform). */
const flowPosition = (page: Page, id: string) =>
  page.locator(`.react-flow__node[data-id="${id}"]`).evaluate((el) => {
    const match = /translate\((-?[\d.]+)px,\s*(-?[\d.]+)px\)/.exec((el as HTMLElement).style.transform);
    return match ? { x: Number(match[1]), y: Number(match[2]) } : undefined;
  });

const near = (a: { x: number; y: number } | undefined, b: { x: number; y: number }) =>
  a !== undefined && Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1;

/** Drags a node by its title bar. */
async function dragNode(page: Page, id: string, dx: number, dy: number) {
  const box = await page.getByTestId(`node-${id}`).locator('.bw-node__title').boundingBox();
  assert.ok(box, `node ${id} is on screen`);
  await dragBy(page, { x: box.x + 10, y: box.y + box.height / 2 }, dx, dy);
}

const notePosition = async (api: AccountApi, boardId: string, id: string) => {
  const node = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data;
  return { x: node.position_x as number, y: node.position_y as number };
};

test("notes added, typed in, moved, connected and deleted in one browser appear in the other's without a reload", async () => {
  let anchor = '';
  const { owner, visitor, close } = await openShared('Live board', async (api, boardId) => {
    anchor = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Anchor' } })).data
      .id;
  });
  const { api, boardId } = owner;
  const a = owner.page;
  const b = visitor.page;
  try {
    await b.getByTestId(`node-${anchor}`).waitFor();

    // Created in A: on B's canvas.
    await a.getByRole('button', { name: 'Add note' }).click();
    const id = await eventually('the note created', async () =>
      (await api('GET', `/v1/boards/${boardId}/nodes`)).data.map((n: { id: string }) => n.id).find((n: string) => n !== anchor),
    );
    await b.getByTestId(`node-${id}`).waitFor({ timeout: 5_000 });

    // Typed in A (the new note has the focus): the text on B's canvas.
    await a.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' }).waitFor();
    await a.keyboard.type('Live from A');
    const bText = b.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
    await eventually('the text on B', async () => (await bText.inputValue()) === 'Live from A', 5_000);

    // Moved in A: where the service has it, on both canvases. (The new note was placed at a free
    // spot above the anchor: moved aside from it, so the anchor’s menu stays clear.)
    const start = await notePosition(api, boardId, id);
    await dragNode(a, id, 330, 40);
    const moved = await eventually('the move saved', async () => {
      const p = await notePosition(api, boardId, id);
      return p.x !== start.x ? p : undefined;
    });
    await eventually('the move on B', async () => near(await flowPosition(b, id), moved), 5_000);
    assert.ok(near(await flowPosition(a, id), moved));

    // Typed in B: on A's canvas (A no longer has anything waiting to be saved).
    await bText.fill('Edited by B');
    await eventually(
      'B’s text on A',
      async () => (await a.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' }).inputValue()) === 'Edited by B',
      5_000,
    );

    // Connected in A: the edge on B's canvas.
    const source = await a.getByTestId(`node-${anchor}`).locator('.react-flow__handle.source').boundingBox();
    const target = await a.getByTestId(`node-${id}`).locator('.react-flow__handle.target').boundingBox();
    assert.ok(source && target);
    await a.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await a.mouse.down();
    await a.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 12 });
    await a.mouse.up();
    const edge = await eventually('the edge created', async () => (await api('GET', `/v1/boards/${boardId}/edges`)).data[0]);
    await b.locator(`.react-flow__edge[data-id="${edge.id}"]`).waitFor({ timeout: 5_000 });

    // Deleted in A (from the node's menu): the node and its edge leave B's canvas.
    await a.getByTestId(`node-${anchor}`).getByRole('button', { name: 'Menu of Anchor' }).click();
    await a.getByRole('menuitem', { name: 'Delete' }).click();
    await b.getByTestId(`node-${anchor}`).waitFor({ state: 'detached', timeout: 5_000 });
    await b.locator(`.react-flow__edge[data-id="${edge.id}"]`).waitFor({ state: 'detached', timeout: 5_000 });

    // B loses its connection; what happens meanwhile comes when it is back, resumed from the last event.
    const resumed: string[] = [];
    b.on('request', (request) => {
      if (request.url().includes(`/v1/boards/${boardId}/events`)) resumed.push(request.headers()['last-event-id'] ?? '');
    });
    await visitor.context.setOffline(true);
    await eventually('B offline', async () => (await b.evaluate(() => navigator.onLine)) === false, 5_000);
    await b.getByText('Reconnecting…').waitFor({ timeout: 5_000 });
    const late = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 40, y: 300 },
        data: { text: 'Made while B was offline' },
      })
    ).data.id as string;
    await api('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { data: { text: 'Changed while B was offline' } });
    await visitor.context.setOffline(false);
    await b.getByTestId(`node-${late}`).waitFor({ timeout: 10_000 });
    await eventually('the offline edit on B', async () => (await bText.inputValue()) === 'Changed while B was offline', 5_000);
    await b.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: 5_000 });
    assert.ok(resumed.length > 0, 'B opened its stream again');
    assert.ok(
      resumed.every((seq) => /^\d+$/.test(seq)),
      `every reconnect resumed from a sequence number: ${JSON.stringify(resumed)}`,
    );
    // The page was not reloaded: B's first stream started fresh, the later ones resumed.
    assert.equal(await b.locator('.react-flow__node').count(), 2);

    // The board itself changes: its new name shows in both headers, the saved view moves neither
    // canvas, and when edit access is withdrawn B's editing tools go.
    const viewOf = (page: Page) => page.locator('.react-flow__viewport').getAttribute('style');
    const [viewA, viewB] = [await viewOf(a), await viewOf(b)];
    await api('PATCH', `/v1/boards/${boardId}`, { name: 'Live board, renamed', viewport_x: 300, viewport_y: -200, viewport_zoom: 0.5 });
    await b.getByRole('heading', { name: 'Live board, renamed', level: 1 }).waitFor({ timeout: 5_000 });
    await a.getByRole('heading', { name: 'Live board, renamed', level: 1 }).waitFor({ timeout: 5_000 });
    assert.equal(await viewOf(a), viewA);
    assert.equal(await viewOf(b), viewB);
    await api('PATCH', `/v1/boards/${boardId}`, { public_access_level: 'view' });
    await b.getByText('View only').waitFor({ timeout: 5_000 });
    assert.equal(await b.getByRole('button', { name: 'Add note' }).count(), 0);

    // The board is deleted: both pages say so, and A's editing tools go too.
    await api('DELETE', `/v1/boards/${boardId}`);
    await b.getByRole('alert').filter({ hasText: 'This board has been deleted.' }).waitFor({ timeout: 5_000 });
    await a.getByRole('alert').filter({ hasText: 'This board has been deleted.' }).waitFor({ timeout: 5_000 });
    assert.equal(await a.getByRole('button', { name: 'Add note' }).count(), 0);
  } finally {
    await close();
  }
});

test('both people dragging the same node at the same time end showing the same position, the one the service has', async () => {
  let id = '';
  const { owner, visitor, close } = await openShared('Tug of war', async (api, boardId) => {
    id = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 100, y: 100 }, data: { text: 'Pull me' } })).data
      .id;
  });
  const { api, boardId } = owner;
  try {
    await visitor.page.getByTestId(`node-${id}`).waitFor();
    for (let round = 0; round < 2; round++) {
      await Promise.all([dragNode(owner.page, id, 180, 40 + round * 30), dragNode(visitor.page, id, -60, 150 - round * 20)]);
      const settled = await eventually(
        'both canvases showing the service’s position',
        async () => {
          const server = await notePosition(api, boardId, id);
          const [inA, inB] = await Promise.all([flowPosition(owner.page, id), flowPosition(visitor.page, id)]);
          return near(inA, server) && near(inB, server) ? server : undefined;
        },
        15_000,
      );
      // Still so a moment later: no late echo moves either canvas away.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.ok(near(await flowPosition(owner.page, id), settled), 'A keeps the position');
      assert.ok(near(await flowPosition(visitor.page, id), settled), 'B keeps the position');
      assert.deepEqual(await notePosition(api, boardId, id), settled);
    }

    // A holds the node mid-drag while it is moved elsewhere by someone else: B keeps showing A's drag
    // in progress (drags are seen as they happen), A's node stays under A's pointer; A's drop is
    // saved last and both end there.
    const title = await owner.page.getByTestId(`node-${id}`).locator('.bw-node__title').boundingBox();
    assert.ok(title);
    const grip = { x: title.x + 10, y: title.y + title.height / 2 };
    await owner.page.mouse.move(grip.x, grip.y);
    await owner.page.mouse.down();
    await owner.page.mouse.move(grip.x + 60, grip.y + 20, { steps: 8 });
    const held = await flowPosition(owner.page, id);
    assert.ok(held);
    const elsewhere = { x: held.x - 300, y: held.y + 250 };
    await api('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { position: elsewhere });
    assert.deepEqual(await notePosition(api, boardId, id), elsewhere);
    await eventually('A’s drag in progress on B', async () => near(await flowPosition(visitor.page, id), held), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(near(await flowPosition(visitor.page, id), held), 'B still shows A’s drag, not the other move');
    assert.ok(near(await flowPosition(owner.page, id), held), 'A’s dragged node is not yanked away');
    await owner.page.mouse.move(grip.x + 100, grip.y + 50, { steps: 8 });
    const final = await flowPosition(owner.page, id);
    assert.ok(final && !near(final, held), 'A’s drag went on');
    await owner.page.mouse.up();
    const dropped = await eventually('A’s drop saved', async () => {
      const p = await notePosition(api, boardId, id);
      return p.x !== elsewhere.x ? p : undefined;
    });
    assert.ok(near(dropped, final), `saved where A dropped it: ${JSON.stringify(dropped)} vs ${JSON.stringify(final)}`);
    await eventually(
      'both canvases showing A’s drop',
      async () => near(await flowPosition(owner.page, id), dropped) && near(await flowPosition(visitor.page, id), dropped),
      10_000,
    );
  } finally {
    await close();
  }
});

test("presence: the other person's avatar, pointer and selection, gone soon after their page closes", async () => {
  let id = '';
  const { owner, visitor, close } = await openShared('Who is here', async (api, boardId) => {
    id = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { text: 'Look here', label: 'Look' },
      })
    ).data.id;
  });
  const a = owner.page;
  const b = visitor.page;
  const ownerId = owner.account.userId;
  try {
    // Each sees the other's avatar, never their own.
    const avatarOfA = b.locator(`.bw-presence [data-user-id="${ownerId}"]`);
    await avatarOfA.waitFor({ timeout: 10_000 });
    assert.equal((await avatarOfA.textContent())?.trim(), owner.account.email[0]!.toUpperCase());
    await a.locator(`.bw-presence [data-user-id="${visitor.account.userId}"]`).waitFor({ timeout: 10_000 });
    assert.equal(await a.locator(`.bw-presence [data-user-id="${ownerId}"]`).count(), 0);

    // A's pointer over the canvas appears on B's canvas.
    const pane = await a.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    await a.mouse.move(pane.x + pane.width - 200, pane.y + pane.height - 150, { steps: 5 });
    await a.mouse.move(pane.x + pane.width - 180, pane.y + pane.height - 140, { steps: 5 });
    await b.locator(`.bw-cursor[data-user-id="${ownerId}"]`).waitFor({ timeout: 5_000 });

    // A selects the note: it is outlined on B's canvas.
    await a.getByTestId(`node-${id}`).locator('.bw-node__title').click();
    await eventually(
      'the selection outlined on B',
      async () => (await b.getByTestId(`node-${id}`).getAttribute('data-remote-selected')) !== null,
      5_000,
    );

    // A leaves: their avatar and pointer go from B's page within seconds.
    await owner.close();
    await avatarOfA.waitFor({ state: 'detached', timeout: 8_000 });
    assert.equal(await b.locator(`.bw-cursor[data-user-id="${ownerId}"]`).count(), 0);
    assert.equal(await b.getByTestId(`node-${id}`).getAttribute('data-remote-selected'), null);
  } finally {
    await close().catch(() => undefined);
  }
});
