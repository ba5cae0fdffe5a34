// End to end: edits people can trust (issue 27's web app part). A new note is typeable at once,
// whether it came from Add note, a double-click or a paste (the note has its id before the service
// answers, its create and its text go through the outbox in order). Two people typing different
// sentences into one note at the same moment both keep their sentence, and both screens end
// showing the same text (If-Match, a 412, a three-way merge). And the service killed mid-session:
// text, a move, a new note, a connection and a deletion made while it is down, a reload while it
// is still down (the service worker serves the app, IndexedDB the board as last seen with the
// waiting edits on it), then the service started again on the same data directory: every change
// reaches the service and the other browser with no click.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type ChildServer, startChildServer } from '../helpers/child-server.js';
import type { TestServer } from '../helpers/harness.js';
import {
  type AccountApi,
  allSaved,
  allowClipboard,
  dragBy,
  eventually,
  launchBrowser,
  openBoardAsNewAccount,
  openNewBoard,
  readClipboard,
  signUp,
  startWebServer,
} from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

type NodeBody = { id: string; node_data: { text?: string }; position_x: number; position_y: number };

const noteTexts = async (api: AccountApi, boardId: string): Promise<string[]> =>
  (await api('GET', `/v1/boards/${boardId}/nodes`)).data.map((n: NodeBody) => n.node_data.text ?? '');

test('a new note takes the first keystroke: after Add note, after a double-click, and after a paste', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Quick notes');
  try {
    // Add note, then typing with no wait: every character is kept.
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.keyboard.type('Bob wrote this sentence');
    await eventually('the typed note on the service', async () => (await noteTexts(api, boardId)).includes('Bob wrote this sentence'));

    // A double-click on empty canvas, then typing with no wait.
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.dblclick(pane.x + 120, pane.y + pane.height - 120);
    await page.keyboard.type('Alice wrote this one');
    await eventually('the double-click note on the service', async () => (await noteTexts(api, boardId)).includes('Alice wrote this one'));

    // Copy a note and paste it: the copy is there at once and takes the text typed into it.
    const source = (await api('GET', `/v1/boards/${boardId}/nodes`)).data.find(
      (n: NodeBody) => n.node_data.text === 'Bob wrote this sentence',
    ) as NodeBody;
    await page.getByTestId(`node-${source.id}`).locator('.bw-node__title').click();
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    const pasted = page.locator('.react-flow__node.selected').getByRole('textbox', { name: 'Note text' });
    await pasted.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(', then Carol added this');
    await eventually('the pasted note’s text on the service', async () =>
      (await noteTexts(api, boardId)).includes('Bob wrote this sentence, then Carol added this'),
    );
    assert.equal((await noteTexts(api, boardId)).length, 3);
  } finally {
    await close();
  }
});

test('two people typing different sentences into one note at the same moment both keep their sentence', async () => {
  let id = '';
  const owner = await openNewBoard(server, 'Typing together', async (api, boardId) => {
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'edit' });
    id = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Plan:' } })).data.id;
  });
  const visitor = await openBoardAsNewAccount(server, owner.boardId, 'Typing together');
  const { api, boardId } = owner;
  try {
    const boxes = [owner.page, visitor.page].map((p) => p.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' }));
    for (const box of boxes) {
      await box.click();
      await box.press('Control+End');
    }
    const mine = ' Alice brings the maps.';
    const theirs = ' Bob brings the food.';
    await Promise.all([owner.page.keyboard.type(mine), visitor.page.keyboard.type(theirs)]);

    const saved = await eventually(
      'both sentences on the service',
      async () => {
        const text = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text as string;
        return text.includes(mine.trim()) && text.includes(theirs.trim()) ? text : undefined;
      },
      20_000,
    );
    // Both screens end showing what the service has.
    for (const box of boxes) {
      await eventually('the same text on both screens', async () => {
        const now = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text;
        return (await box.inputValue()) === now;
      });
    }
    assert.ok(saved.startsWith('Plan:'), saved);
  } finally {
    await visitor.close();
    await owner.close();
  }
});

test('an API client changed the note meanwhile: other words are merged; the same words keep theirs and this person’s text aside, with Copy', async () => {
  let id = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Merged notes', async (api, boardId) => {
    id = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: 0, y: 0 },
        data: { text: 'The colour is red. The size is small.' },
      })
    ).data.id;
  });
  try {
    await allowClipboard({ context: page.context(), page, close: async () => {} }, server);
    const box = page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
    await box.waitFor();
    // This page hears nothing of the API's change (its stream is cut): only the save's 412 tells.
    await page.route('**/events**', (route) => route.abort());
    await page.reload();
    await box.waitFor();
    await api('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { data: { text: 'The colour is red. The size is large.' } });
    await box.fill('The colour is blue. The size is small.');
    const text = async () => (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text;
    await eventually('both changes on the service', async () => (await text()) === 'The colour is blue. The size is large.');
    await eventually('and on screen', async () => (await box.inputValue()) === 'The colour is blue. The size is large.');
    await allSaved(page);

    // The same words changed on both sides: theirs is kept, and this person's text is offered to copy.
    await api('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { data: { text: 'The colour is green. The size is large.' } });
    await box.fill('The colour is black. The size is large.');
    const notice = page.locator('.bw-notice').filter({ hasText: 'yours is kept here' });
    await notice.waitFor();
    await eventually('theirs on screen', async () => (await box.inputValue()) === 'The colour is green. The size is large.');
    assert.equal(await text(), 'The colour is green. The size is large.');
    await notice.getByRole('button', { name: 'Copy my text' }).click();
    await notice.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await readClipboard(page), 'The colour is black. The size is large.');
  } finally {
    await close();
  }
});

test("an API client coloured a connection meanwhile: this person's label is saved beside the colour, not over it", async () => {
  let edge = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Connection keys', async (api, boardId) => {
    const [a, b] = await Promise.all(
      // Apart on both axes: a straight up-and-down or sideways connection has an empty box, which
      // Playwright takes as hidden.
      [0, 1].map(
        async (i) =>
          (
            await api('POST', `/v1/boards/${boardId}/nodes`, {
              type: 'note',
              position: { x: i * 300, y: i * 420 },
              data: { text: `Note ${i}` },
            })
          ).data.id as string,
      ),
    );
    edge = (await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: a, target_node_id: b })).data.id;
  });
  try {
    const edgeEl = page.locator(`.react-flow__edge[data-id="${edge}"]`);
    await edgeEl.waitFor();
    // This page hears nothing of the API's change (its stream is cut): it still shows the
    // connection with no colour when its person labels it.
    await page.route('**/events**', (route) => route.abort());
    await page.reload();
    await edgeEl.waitFor();
    await api('PATCH', `/v1/boards/${boardId}/edges/${edge}`, { data: { color: '5', weight: 2 } });
    await edgeEl.dblclick();
    const labelInput = page.getByRole('textbox', { name: 'Connection label' });
    await labelInput.fill('leads to');
    await labelInput.press('Enter');
    await allSaved(page);
    const saved = (await api('GET', `/v1/boards/${boardId}/edges/${edge}`)).data.edge_data;
    assert.deepEqual(saved, { color: '5', weight: 2, label: 'leads to' }, 'the label joins the keys set by the API client');
    // The page shows what the service answered: the label and the colour it had not heard of.
    await page.getByTestId(`edge-label-${edge}`).getByText('leads to').waitFor();
    await eventually('the colour shown', async () =>
      edgeEl
        .locator('path.react-flow__edge-path')
        .first()
        .evaluate((el) => (el as SVGElement).style.stroke !== ''),
    );
  } finally {
    await close();
  }
});

test('the service out of reach while the board is brought up to date: no notice covers the canvas, and the board catches up once it answers', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Catching up');
  try {
    // After the reload: the board's first read goes through; the stream says "ready" and ends (so the
    // page reads the board again to catch up), and those reads find no service until `reachable`.
    let reachable = false;
    let refused = 0;
    let reads = 0;
    await page.route('**/events**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'event: ready\ndata: {"latest_seq":0}\n\n' }),
    );
    await page.route(`**/v1/boards/${boardId}/nodes**`, (route) => {
      if (route.request().method() !== 'GET' || reachable || reads++ === 0) return route.continue();
      refused++;
      return route.abort('connectionrefused');
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Catching up', level: 1 }).waitFor();
    await eventually('catching up tried while out of reach', async () => refused >= 2);
    assert.equal(await page.locator('.bw-notice').count(), 0, 'a notice for a service out of reach');

    const id = (
      await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Made meanwhile' } })
    ).data.id as string;
    reachable = true;
    await page.getByTestId(`node-${id}`).waitFor();
    assert.equal(await page.locator('.bw-notice').count(), 0);
  } finally {
    await close();
  }
});

/** The page's header status text. */
const headerStatus = (page: Page) => page.locator('.bw-save').first();

/** Calls the child service's API with a bearer token; returns the JSON body (throws on non-2xx). */
function childApi(child: () => ChildServer, token: string): AccountApi {
  return async (method, urlPath, body) => {
    const res = await fetch(`${child().url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Where React Flow draws a node, in canvas coordinates. */
const flowPosition = (page: Page, id: string) =>
  page.locator(`.react-flow__node[data-id="${id}"]`).evaluate((el) => {
    const match = /translate\((-?[\d.]+)px,\s*(-?[\d.]+)px\)/.exec((el as HTMLElement).style.transform);
    return match ? { x: Number(match[1]), y: Number(match[2]) } : undefined;
  });

test('edits made while the service is down, and a reload meanwhile, reach the service and the other browser once it is back, with no click', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-outbox-'));
  const env = { DATA_DIR: dataDir, AUTH_LOGIN_PER_MINUTE: '1000' };
  let child = await startChildServer(env);
  const port = new URL(child.url).port;
  const owner = await signUp({ url: child.url } as TestServer);
  const api = childApi(() => child, owner.accessToken);
  const boardId = (await api('POST', '/v1/boards', { name: 'Outage board' })).data.id as string;
  await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'edit' });
  const make = async (text: string, x: number, y: number) =>
    (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y }, data: { text } })).data.id as string;
  const kept = await make('Written before', 0, 0);
  const doomed = await make('To be deleted', 0, 260);
  const target = await make('Connect to me', 420, 0);

  const a = await launchBrowser();
  const b = await launchBrowser();
  try {
    await a.context.addCookies([
      { name: 'bw_refresh', value: owner.refreshCookie, url: `${child.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await a.page.goto(`${child.url}/boards/${boardId}`);
    const visitor = await signUp({ url: child.url } as TestServer);
    await b.context.addCookies([
      { name: 'bw_refresh', value: visitor.refreshCookie, url: `${child.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await b.page.goto(`${child.url}/boards/${boardId}`);
    for (const p of [a.page, b.page]) await p.getByRole('heading', { name: 'Outage board', level: 1 }).waitFor();
    // The service worker has the app shell (it controls the page once installed).
    await eventually('the service worker in control', () => a.page.evaluate(() => navigator.serviceWorker.controller !== null));

    // The service goes down.
    child.proc.kill('SIGKILL');
    await child.exit;

    // Text typed into a note.
    const keptText = a.page.getByTestId(`node-${kept}`).getByRole('textbox', { name: 'Note text' });
    await keptText.click();
    await keptText.press('Control+End');
    await a.page.keyboard.type(' and during the outage');
    // A note moved.
    const targetTitle = (await a.page.getByTestId(`node-${target}`).locator('.bw-node__title').boundingBox())!;
    const before = (await flowPosition(a.page, target))!;
    await dragBy(a.page, { x: targetTitle.x + 20, y: targetTitle.y + targetTitle.height / 2 }, 120, 60);
    const moved = (await flowPosition(a.page, target))!;
    assert.notDeepEqual(moved, before);
    // A connection.
    const source = (await a.page.getByTestId(`node-${kept}`).locator('.react-flow__handle.source').boundingBox())!;
    const end = (await a.page.getByTestId(`node-${target}`).locator('.react-flow__handle.target').boundingBox())!;
    await a.page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await a.page.mouse.down();
    await a.page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 12 });
    await a.page.mouse.up();
    await a.page.locator('.react-flow__edge').first().waitFor({ state: 'attached' });
    // A note deleted.
    await a.page.getByTestId(`node-${doomed}`).getByRole('button', { name: 'Menu of To be deleted' }).click();
    await a.page.getByRole('menuitem', { name: 'Delete' }).click();
    await a.page.getByTestId(`node-${doomed}`).waitFor({ state: 'detached' });
    // A new note, typed into at once.
    await a.page.getByRole('button', { name: 'Add note' }).click();
    await a.page.keyboard.type('Made while offline');
    await a.page.locator('.react-flow__node.selected').getByText('Kept on this device until the service is back').waitFor();
    // The header says the changes wait on this device.
    await headerStatus(a.page).filter({ hasText: 'Offline: your changes are kept on this device' }).waitFor();

    // A reload while the service is still down: the board as last seen, with the waiting edits on it.
    await a.page.reload();
    await a.page.getByRole('heading', { name: 'Outage board', level: 1 }).waitFor();
    await eventually(
      'the typed text after the reload',
      async () => (await keptText.inputValue()) === 'Written before and during the outage',
    );
    await a.page.getByTestId(`node-${doomed}`).waitFor({ state: 'detached' });
    await a.page.locator('.react-flow__edge').first().waitFor({ state: 'attached' });
    const offlineNote = a.page.locator('textarea').filter({ hasText: 'Made while offline' });
    await eventually('the new note after the reload', async () => {
      for (const value of await a.page
        .locator('textarea[aria-label="Note text"]')
        .evaluateAll((els) => els.map((e) => (e as HTMLTextAreaElement).value)))
        if (value === 'Made while offline') return true;
      return false;
    });
    assert.ok(offlineNote);
    assert.deepEqual(await flowPosition(a.page, target), moved);
    await headerStatus(a.page).filter({ hasText: 'Offline: your changes are kept on this device' }).waitFor();

    // The service is back on the same data directory and port: no click anywhere.
    child = await startChildServer({ ...env, PORT: port });
    const nodes = await eventually(
      'every change on the service',
      async () => {
        const list = (await api('GET', `/v1/boards/${boardId}/nodes`)).data as NodeBody[];
        const edges = (await api('GET', `/v1/boards/${boardId}/edges`)).data as { source_node_id: string; target_node_id: string }[];
        const byId = new Map(list.map((n) => [n.id, n]));
        const ok =
          byId.get(kept)?.node_data.text === 'Written before and during the outage' &&
          !byId.has(doomed) &&
          list.some((n) => n.node_data.text === 'Made while offline') &&
          byId.get(target)?.position_x === moved.x &&
          byId.get(target)?.position_y === moved.y &&
          edges.some((e) => e.source_node_id === kept && e.target_node_id === target);
        return ok ? list : undefined;
      },
      15_000,
    );
    const created = nodes.find((n) => n.node_data.text === 'Made while offline')!;
    // The other browser shows every change, without a reload.
    const bText = (id: string) => b.page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
    await eventually(
      'every change in the other browser',
      async () =>
        (await bText(kept).inputValue()) === 'Written before and during the outage' &&
        (await bText(created.id).inputValue()) === 'Made while offline' &&
        (await b.page.getByTestId(`node-${doomed}`).count()) === 0 &&
        (await b.page.locator('.react-flow__edge').count()) === 1 &&
        JSON.stringify(await flowPosition(b.page, target)) === JSON.stringify(moved),
      15_000,
    );
    await headerStatus(a.page).filter({ hasText: 'All changes saved' }).waitFor();
  } finally {
    await a.close();
    await b.close();
    child.proc.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
