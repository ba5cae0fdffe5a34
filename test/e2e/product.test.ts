// End to end (Chromium): the product items of issue 14. Searchable notes that keep up with their
// text (re-indexed after edits, the badge derived from the service so it survives a reload, "Index
// behind" when someone else changed the text); the viewport kept per person and device; "Shared
// with me"; and the bugs, each checked where it showed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { eventually, launchBrowser, openBoardAsNewAccount, openNewBoard, startWebServer } from './helpers/browser.js';

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
    await page.getByRole('button', { name: 'Menu of Beds' }).click();
    await page.getByRole('menuitem', { name: 'Make searchable' }).click();
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

    // Someone else changes the text: this page shows the index is behind, and Update redoes it.
    await api('PATCH', `/v1/boards/${boardId}/nodes/${nodeId}`, { data: { text: 'Beans fix nitrogen.' } });
    await card.getByText('Index behind the text').waitFor();
    await card.getByRole('button', { name: 'Update' }).click();
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
    // Share from the board page itself.
    await owner.page.getByRole('button', { name: 'Share' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Share “Atlas”' });
    await dialog.getByLabel('Public, view only').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await owner.page.getByText('Public · view').waitFor();
    assert.equal((await owner.api('GET', `/v1/boards/${owner.boardId}`)).data.is_public, true);

    const visitor = await openBoardAsNewAccount(server, owner.boardId, 'Atlas');
    try {
      assert.equal(await visitor.page.getByRole('button', { name: 'Share' }).count(), 0, 'only the owner shares');
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
