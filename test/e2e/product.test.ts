// End to end (Chromium): the product items of issue 14. Searchable notes that keep up with their
// text (re-indexed after edits, the badge derived from the service so it survives a reload, "Index
// behind" when someone else changed the text); the viewport kept per person and device; "Shared
// with me"; and the bugs, each checked where it showed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { PDFDocument } from 'pdf-lib';
import { postParts } from '../helpers/assets.js';
import type { TestServer } from '../helpers/harness.js';
import {
  allowClipboard,
  eventually,
  launchBrowser,
  openBoardAsNewAccount,
  openNewBoard,
  signedInBrowser,
  startWebServer,
  threadReady,
} from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer({ JOB_POLL_MS: '50' });
});

after(async () => {
  await server?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The labels of the search results for `query`, once the search has answered. */
async function searchLabels(page: Page, query: string): Promise<string[]> {
  const box = page.getByRole('searchbox', { name: 'Search this board' });
  await box.fill(query);
  await box.press('Enter');
  const results = page.getByRole('region', { name: 'Search results' });
  await results.waitFor();
  await eventually('the search to answer', async () => !(await results.getByText('Searching…').count()) || undefined);
  return results.getByRole('button').allInnerTexts();
}

test('a searchable note keeps up with its text: re-indexed after edits, the badge survives a reload, behind when changed elsewhere', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Garden', async (api, id) => {
    await api('POST', `/v1/boards/${id}/nodes`, {
      type: 'note',
      position: { x: 0, y: 0 },
      data: { label: 'Beds', text: 'Tomatoes need sun.' },
    });
  });
  try {
    const nodeId = (await api('GET', `/v1/boards/${boardId}/nodes`)).data[0].id as string;
    const card = page.getByTestId(`node-${nodeId}`);
    // Made through the API, the note was not read by a page: its card offers Read.
    await card.getByRole('button', { name: 'Read', exact: true }).click();
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    assert.ok(
      (await searchLabels(page, 'tomatoes')).some((t) => t.includes('Beds')),
      'found by its words',
    );

    // Edited here: re-indexed once the typing settles, then found by the new words.
    const text = card.getByRole('textbox', { name: 'Note text' });
    await text.fill('Cucumbers climb the trellis.');
    await eventually(
      'the index to hold the new text',
      async () => {
        const index = (await api('GET', `/v1/boards/${boardId}/documents/nodes`)).data;
        return index[0]?.text_sha256 === sha256('Cucumbers climb the trellis.');
      },
      30_000,
    );
    await eventually('search to find the new words', async () =>
      (await searchLabels(page, 'cucumbers trellis')).some((t) => t.includes('Beds')),
    );
    await card.getByText('Searchable · 1 passage').waitFor();

    // The badge comes from the service: still there after a reload.
    await page.reload();
    await card.getByText('Searchable · 1 passage').waitFor();

    // Someone else changes the text (through the API, which reads nothing): this page shows the
    // index is behind, and Read again redoes it.
    await api('PATCH', `/v1/boards/${boardId}/nodes/${nodeId}`, { data: { text: 'Beans fix nitrogen.' } });
    await card.getByText('Changed since it was read').waitFor();
    await card.getByRole('button', { name: 'Read again' }).click();
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    assert.equal((await api('GET', `/v1/boards/${boardId}/documents/nodes`)).data[0].text_sha256, sha256('Beans fix nitrogen.'));
  } finally {
    await close();
  }
});

/** The canvas's transform as React Flow renders it (translate and scale). */
const transformOf = (page: Page) => page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);

test('the viewport is per person and device: a zoom in one browser moves neither the other nor the board; the owner sets the default', async () => {
  const first = await openNewBoard(server, 'Views', async (api, id) => {
    await api('POST', `/v1/boards/${id}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'A' } });
    await api('POST', `/v1/boards/${id}/nodes`, { type: 'note', position: { x: 900, y: 500 }, data: { text: 'B' } });
  });
  // The same person signed in on a second device (a browser profile of its own).
  const second = await launchBrowser();
  try {
    const login = await fetch(`${server.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: first.account.email, password: first.account.password }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('bw_refresh='))!;
    await second.context.addCookies([
      {
        name: 'bw_refresh',
        value: cookie.split(';')[0]!.slice('bw_refresh='.length),
        url: `${server.url}/v1/auth`,
        httpOnly: true,
        sameSite: 'Strict',
      },
    ]);
    await second.page.goto(`${server.url}/boards/${first.boardId}`);
    await second.page.getByRole('heading', { name: 'Views', level: 1 }).waitFor();
    const secondView = await transformOf(second.page);

    // Zoom in on the first device.
    const before = await transformOf(first.page);
    await first.page.getByRole('button', { name: 'zoom in' }).click();
    await first.page.getByRole('button', { name: 'zoom in' }).click();
    const zoomed = await eventually('the zoom to end', async () => {
      const now = await transformOf(first.page);
      return now !== before && now;
    });
    // This device keeps it (in this browser, for this person).
    await first.page.waitForFunction(
      (key) => Object.keys(localStorage).some((k) => k.startsWith('bw-viewport:') && k.endsWith(key)),
      first.boardId,
    );
    // Kept when the zoom's animation ended: the view shown is final.
    const kept = await transformOf(first.page);

    // The other device opens where it was; the board's stored view is untouched.
    await second.page.reload();
    await second.page.getByRole('heading', { name: 'Views', level: 1 }).waitFor();
    await eventually('the second view', async () => (await transformOf(second.page)) === secondView);
    const board = (await first.api('GET', `/v1/boards/${first.boardId}`)).data;
    assert.deepEqual([board.viewport_x, board.viewport_y, board.viewport_zoom], [0, 0, 1]);

    // The first device opens at its own view.
    await first.page.reload();
    await first.page.getByRole('heading', { name: 'Views', level: 1 }).waitFor();
    await eventually('the first view restored', async () => (await transformOf(first.page)) === kept);
    assert.notEqual(kept, secondView, `zoomed ${zoomed}`);

    // The owner makes it the board's default (what others and new devices open at).
    await first.page.getByRole('button', { name: 'More' }).click();
    await first.page.getByRole('button', { name: 'Set as default view' }).click();
    await first.page.getByRole('button', { name: 'Default view set' }).waitFor();
    const saved = (await first.api('GET', `/v1/boards/${first.boardId}`)).data;
    assert.ok(saved.viewport_zoom > 1, `zoom ${saved.viewport_zoom}`);
  } finally {
    await second.close();
    await first.close();
  }
});

test('Share on the board page; a public board someone else opened is listed under "Shared with me" until removed', async () => {
  const owner = await openNewBoard(server, 'Atlas');
  try {
    // The header is one row at 1280 px, Chat and More in it; Share is on the board page itself, in More.
    const bar = await owner.page.locator('.bw-board__bar').boundingBox();
    const more = await owner.page.getByRole('button', { name: 'More' }).boundingBox();
    const chat = await owner.page.getByRole('button', { name: 'Chat' }).boundingBox();
    assert.ok(bar && more && chat);
    assert.ok(bar.height <= 52, `the header is ${bar.height} px high at ${owner.page.viewportSize()?.width} px: one row`);
    assert.ok(Math.abs(more.y - chat.y) < 2 && more.y < bar.y + bar.height, 'Chat and More in that row');
    await owner.page.getByRole('button', { name: 'More' }).click();
    await owner.page.getByRole('button', { name: 'Share' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Share “Atlas”' });
    await dialog.getByLabel('Public, view only').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await owner.page.getByText('Public · view').waitFor();
    assert.equal((await owner.api('GET', `/v1/boards/${owner.boardId}`)).data.is_public, true);

    const visitor = await openBoardAsNewAccount(server, owner.boardId, 'Atlas');
    try {
      // A visitor's More holds the export, not Share.
      await visitor.page.getByRole('button', { name: 'More' }).click();
      await visitor.page.getByRole('button', { name: 'Export .canvas' }).waitFor();
      assert.equal(await visitor.page.getByRole('button', { name: 'Share' }).count(), 0, 'only the owner shares');
      await visitor.page.keyboard.press('Escape');
      await visitor.page.goto(`${server.url}/boards`);
      const shared = visitor.page.getByRole('list', { name: 'Boards shared with me' });
      const link = shared.getByRole('link', { name: 'Atlas' });
      await link.waitFor();
      assert.equal(await shared.getByText('Public · view only').count(), 1);
      // Not mixed with the person's own boards.
      assert.equal(await visitor.page.getByRole('list', { name: 'Your boards' }).getByRole('link').count(), 0);
      await link.click();
      await visitor.page.getByRole('heading', { name: 'Atlas', level: 1 }).waitFor();
      await visitor.page.goBack();
      await shared.getByRole('button', { name: 'Remove Atlas from this list' }).click();
      assert.equal(await visitor.page.getByRole('heading', { name: 'Shared with me' }).count(), 0);
      await visitor.page.reload();
      await visitor.page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
      assert.equal(await visitor.page.getByRole('heading', { name: 'Shared with me' }).count(), 0);
    } finally {
      await visitor.close();
    }
  } finally {
    await owner.close();
  }
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function boxOf(page: Page, selector: string): Promise<Box> {
  const box = await page.locator(selector).first().boundingBox();
  assert.ok(box, `${selector} is shown`);
  return box;
}

test('board page bugs: fit view clear of the minimap, new notes side by side, a note deleted elsewhere, the note length limit, the tab title', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Layout', async (api, id) => {
    // Spread so that the fitted view reaches into the bottom-right corner, where the minimap is.
    for (const [x, y] of [
      [0, 0],
      [1500, 0],
      [0, 820],
      [1500, 820],
    ]) {
      await api('POST', `/v1/boards/${id}/nodes`, { type: 'note', position: { x, y }, data: { text: `at ${x},${y}` } });
    }
  });
  try {
    assert.equal(await page.title(), 'Layout · Board Workspace');
    // Fit view (on opening a board never moved) keeps every node clear of the minimap and the controls.
    await page.locator('.react-flow__node').nth(3).waitFor();
    const minimap = await boxOf(page, '.react-flow__minimap');
    const controls = await boxOf(page, '.react-flow__controls');
    for (const node of await page.locator('.react-flow__node').all()) {
      const box = (await node.boundingBox())!;
      assert.ok(!overlaps(box, minimap), `node ${JSON.stringify(box)} under the minimap ${JSON.stringify(minimap)}`);
      assert.ok(!overlaps(box, controls), 'node under the controls');
    }

    // Two notes added one after the other lie side by side.
    const before = (await api('GET', `/v1/boards/${boardId}/nodes?limit=100`)).data.length;
    for (let i = 1; i <= 2; i++) {
      await page.getByRole('button', { name: 'Add note' }).click();
      await eventually(
        'the note added',
        async () => (await api('GET', `/v1/boards/${boardId}/nodes?limit=100`)).data.length === before + i,
      );
    }
    const all = (await api('GET', `/v1/boards/${boardId}/nodes?limit=100`)).data as Array<{ id: string; created_at: string }>;
    const added = all.sort((a, b) => a.created_at.localeCompare(b.created_at)).slice(-2);
    const boxes = await Promise.all(added.map((n) => page.getByTestId(`node-${n.id}`).boundingBox()));
    assert.ok(!overlaps(boxes[0]!, boxes[1]!), `new notes overlap: ${JSON.stringify(boxes)}`);

    // The note length: a counter near the limit, and a clear message (nothing sent) over it.
    const note = page.getByTestId(`node-${added[1]!.id}`);
    const text = note.getByRole('textbox', { name: 'Note text' });
    await text.fill('a'.repeat(95_000));
    await note.getByText('95,000 / 100,000 characters').waitFor();
    await eventually(
      'the long text saved',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes/${added[1]!.id}`)).data.node_data.text.length === 95_000,
    );
    await text.fill('a'.repeat(100_050));
    await note
      .getByRole('alert')
      .getByText('Too long to save: 100,050 characters, a note holds at most 100,000. Remove 50 to save it.')
      .waitFor();
    await text.fill('a'.repeat(99_990));
    await eventually(
      'the shortened text saved',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes/${added[1]!.id}`)).data.node_data.text.length === 99_990,
    );

    // Someone else deletes a note being edited while this page hears nothing of it (stream down):
    // the save's 404 says so once, and nothing is left to retry.
    await page.route('**/events**', (route) => route.abort());
    await page.reload();
    await page.getByRole('heading', { name: 'Layout', level: 1 }).waitFor();
    const doomed = page.getByTestId(`node-${added[0]!.id}`);
    await doomed.getByRole('textbox', { name: 'Note text' }).fill('typing away');
    // Saved before the deletion: otherwise its own save could meet the 404 and take the note away
    // before the typing below.
    await eventually(
      'the first words saved',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes/${added[0]!.id}`)).data.node_data.text === 'typing away',
    );
    await api('DELETE', `/v1/boards/${boardId}/nodes/${added[0]!.id}`);
    await doomed.getByRole('textbox', { name: 'Note text' }).fill('typing away, still');
    const notice = page.locator('.bw-notice').filter({ hasText: 'was deleted by someone else' });
    await notice.waitFor();
    await doomed.waitFor({ state: 'detached' });
    assert.equal(await page.getByText('Not saved').count(), 0);
    // Notices stay clear of the zoom buttons and the minimap.
    const noticeBox = (await notice.boundingBox())!;
    assert.ok(!overlaps(noticeBox, await boxOf(page, '.react-flow__controls')), 'notice over the controls');
    assert.ok(!overlaps(noticeBox, await boxOf(page, '.react-flow__minimap')), 'notice over the minimap');
  } finally {
    await close();
  }
});

/** A PDF whose page 2 alone speaks of glaciers. */
async function twoPagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 200]).drawText('Volcanoes erupt with lava.', { x: 20, y: 100, size: 12 });
  doc.addPage([300, 200]).drawText('Glaciers carve deep valleys.', { x: 20, y: 100, size: 12 });
  return Buffer.from(await doc.save());
}

test("search and chat: a node thread names its node, a reply's source on p. 1 and a search hit on p. 2 open the PDF there", async () => {
  const { page, api, account, boardId, close } = await openNewBoard(server, 'Sources');
  try {
    const upload = await postParts(server, account.accessToken, boardId, [
      { filename: 'earth.pdf', type: 'application/pdf', data: await twoPagePdf() },
    ]);
    assert.equal(upload.status, 201, upload.text);
    const asset = upload.body.data;
    const pdf = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'pdf',
        position: { x: 0, y: 0 },
        data: { storagePath: asset.storage_path, publicUrl: asset.url, fileSize: asset.size, label: 'Earth', pageCount: 2 },
      })
    ).data;
    const job = (await api('POST', `/v1/boards/${boardId}/documents`, { node_id: pdf.id })).data;
    await eventually('the pdf indexed', async () => (await api('GET', `/v1/jobs/${job.id}`)).data.status === 'completed', 30_000);
    await api('POST', `/v1/boards/${boardId}/chats`, { title: 'About the PDF', node_id: pdf.id });
    await page.reload();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();

    // A thread about a node asks about that node; a reply's source on p. 1 opens the PDF there.
    await page.getByRole('button', { name: 'Chat' }).click();
    const panel = page.getByRole('complementary', { name: 'Chat' });
    await panel.getByRole('button', { name: /About the PDF/ }).click();
    const message = panel.getByRole('textbox', { name: 'Message' });
    assert.equal(await message.getAttribute('placeholder'), 'Ask about “Earth”…');
    await message.fill('What erupts with lava?');
    await threadReady(panel);
    await message.press('Enter');
    await panel.locator('.bw-sources').last().getByRole('button', { name: 'Earth · p. 1' }).click();
    const openAtOne = page.getByTestId(`node-${pdf.id}`).getByRole('link', { name: 'Open PDF at p. 1' });
    await openAtOne.waitFor();
    assert.equal(await openAtOne.getAttribute('href'), `${asset.url}#page=1`);

    const box = page.getByRole('searchbox', { name: 'Search this board' });
    await box.fill('glaciers valleys');
    await box.press('Enter');
    const hit = page.getByRole('region', { name: 'Search results' }).getByRole('button').filter({ hasText: 'p. 2' });
    await hit.waitFor();
    for (const score of await page.locator('.bw-hit__score').allInnerTexts()) assert.notEqual(score, '0.00');
    await hit.click();
    const open = page.getByTestId(`node-${pdf.id}`).getByRole('link', { name: 'Open PDF at p. 2' });
    await open.waitFor();
    assert.equal(await open.getAttribute('href'), `${asset.url}#page=2`);
  } finally {
    await close();
  }
});

test('app shell: no failing request on a signed-out load, titles per page, the API reference linked, Copy key says Copied', async () => {
  const visitor = await launchBrowser();
  try {
    const failures: string[] = [];
    visitor.page.on('response', (r) => {
      if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
    });
    await visitor.page.goto(server.url);
    await visitor.page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await visitor.page.title(), 'Sign in · Board Workspace');
    const icon = await visitor.page.locator('link[rel="icon"]').getAttribute('href');
    assert.equal((await fetch(`${server.url}${icon}`)).status, 200);
    assert.deepEqual(failures, []);
  } finally {
    await visitor.close();
  }

  const browser = await signedInBrowser(server, '/keys');
  try {
    await allowClipboard(browser, server);
    const { page } = browser;
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    assert.equal(await page.title(), 'API keys · Board Workspace');
    const reference = page.getByRole('link', { name: 'API reference' });
    assert.equal(await reference.getAttribute('href'), '/docs');
    assert.equal((await fetch(`${server.url}/docs`)).status, 200);
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill('Feedback');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: /Your new key/ });
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('button', { name: 'Copied ✓' }).waitFor();
    await page.getByRole('link', { name: 'Boards' }).click();
    await page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
    assert.equal(await page.title(), 'Boards · Board Workspace');
  } finally {
    await browser.close();
  }
});

test('search leaves out results that share next to nothing with the query (listed before as 0.00)', async () => {
  // Twenty notes share "garden"; three of them also hold "apple". Searching both words, the local
  // model scores the other seventeen a hair above 0 (0.0014).
  const all = ['apple', 'river', 'stone', 'cloud', 'piano', 'tiger', 'lemon', 'candle', 'mirror', 'rocket', 'violin'];
  all.push('desert', 'forest', 'castle', 'bridge', 'pepper', 'copper', 'marble', 'saddle', 'lantern', 'harbor', 'meadow');
  const { page, close } = await openNewBoard(server, 'Orchard', async (api, id) => {
    for (let i = 0; i < 20; i++) {
      const text = `The garden ${all[i]} ${all[(i + 1) % 22]} ${all[(i + 2) % 22]} ${all[(i + 3) % 22]} ${all[(i + 5) % 22]} grows.`;
      const position = { x: (i % 5) * 320, y: Math.floor(i / 5) * 200 };
      const note = (await api('POST', `/v1/boards/${id}/nodes`, { type: 'note', position, data: { text } })).data;
      const job = (await api('POST', `/v1/boards/${id}/documents`, { node_id: note.id, text })).data;
      await eventually('the note indexed', async () => (await api('GET', `/v1/jobs/${job.id}`)).data.status === 'completed', 30_000);
    }
  });
  try {
    const box = page.getByRole('searchbox', { name: 'Search this board' });
    await box.fill('garden apple');
    await box.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await results.getByRole('button').first().waitFor();
    const scores = await page.locator('.bw-hit__score').allInnerTexts();
    assert.deepEqual(
      scores.filter((t) => t === '0.00'),
      [],
      `scores ${scores.join(' ')}`,
    );
    assert.equal(scores.length, 3, 'the three notes holding both words');
  } finally {
    await close();
  }
});
