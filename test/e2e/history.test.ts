// End to end: board history in Chromium against the real service. The owner names a version, the
// board changes, and the owner restores the version from the history panel (after a look at its
// preview); a second person watching the board in another browser context sees the deleted card
// come back and the edited one return to its old text, live, without a reload. "Undo restore" takes
// it back again, and one card alone is restored from the preview's list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { eventually, openBoardAsNewAccount, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

/** Waits for the note card `id` to show `text`. */
const card = (page: Page, id: string, text: string) => ({
  waitFor: () =>
    eventually(`${id} showing ${text}`, async () => {
      const box = page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' });
      return (await box.inputValue({ timeout: 500 }).catch(() => undefined)) === text;
    }),
});

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test('a version restored from the history panel comes back on a second person’s canvas, live; undo and one card', async () => {
  let alpha = '';
  let beta = '';
  const owner = await openNewBoard(server, 'History board', async (api, boardId) => {
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'view' });
    alpha = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Alpha plan' } }))
      .data.id;
    beta = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 400, y: 0 }, data: { text: 'Beta plan' } }))
      .data.id;
    await api('POST', `/v1/boards/${boardId}/history`, { name: 'Good state' });
  });
  let watcher: Awaited<ReturnType<typeof openBoardAsNewAccount>> | undefined;
  try {
    const { api, boardId, page } = owner;
    watcher = await openBoardAsNewAccount(server, boardId, 'History board');
    const other = watcher.page;
    await card(other, beta, 'Beta plan').waitFor();

    // The board changes: Beta deleted, Alpha rewritten; both canvases follow.
    await api('DELETE', `/v1/boards/${boardId}/nodes/${beta}`);
    await api('PATCH', `/v1/boards/${boardId}/nodes/${alpha}`, { data: { text: 'Alpha ruined' } });
    await card(other, alpha, 'Alpha ruined').waitFor();
    await other.getByTestId(`node-${beta}`).waitFor({ state: 'detached' });
    await page.getByTestId(`node-${beta}`).waitFor({ state: 'detached' });

    // The owner opens the history and previews the named version: it tells what changed since.
    await page.getByRole('button', { name: 'History' }).click();
    const panel = page.getByRole('complementary', { name: 'History' });
    await panel.getByRole('button', { name: /Good state/ }).click();
    const preview = panel.getByRole('region', { name: 'Version preview' });
    await preview.getByText('Since then: 2 cards changed or deleted, 0 added.').waitFor();
    const differing = preview.getByRole('list', { name: 'Cards that differ' });
    await differing.getByText('Beta plan').waitFor();
    await differing.getByText('deleted since').waitFor();
    await preview.getByRole('img', { name: 'Sketch of 2 cards' }).waitFor();

    // Restore: the other person's canvas gets Beta back and Alpha's old text, live.
    await preview.getByRole('button', { name: 'Restore this version' }).click();
    await card(other, beta, 'Beta plan').waitFor();
    await card(other, alpha, 'Alpha plan').waitFor();
    await card(page, beta, 'Beta plan').waitFor();
    await preview.getByText('The board matches this version.').waitFor();
    const nodes = (await api('GET', `/v1/boards/${boardId}/nodes`)).data as { id: string; node_data: { text: string } }[];
    assert.deepEqual(nodes.map((n) => n.node_data.text).sort(), ['Alpha plan', 'Beta plan']);
    // The restore kept the board as it was before, listed in the panel.
    await panel.getByRole('button', { name: /Before a restore/ }).waitFor();

    // Undo restore: the board as it was just before, on the other canvas too.
    await panel.getByRole('button', { name: 'Undo restore' }).click();
    await other.getByTestId(`node-${beta}`).waitFor({ state: 'detached' });
    await card(other, alpha, 'Alpha ruined').waitFor();

    // One card alone: Beta comes back, Alpha keeps its new text.
    await panel.getByRole('button', { name: /Good state/ }).click();
    await differing.getByText('Beta plan').waitFor();
    await differing.getByRole('listitem').filter({ hasText: 'Beta plan' }).getByRole('button', { name: 'Restore card' }).click();
    await card(other, beta, 'Beta plan').waitFor();
    await eventually('Alpha untouched', async () => {
      const node = (await api('GET', `/v1/boards/${boardId}/nodes/${alpha}`)).data;
      return node.node_data.text === 'Alpha ruined' ? node : undefined;
    });
    await card(other, alpha, 'Alpha ruined').waitFor();
    // The watcher may read the history but not restore it.
    await other.getByRole('button', { name: 'History' }).click();
    const theirs = other.getByRole('complementary', { name: 'History' });
    await theirs.getByRole('button', { name: /Good state/ }).click();
    await theirs.getByRole('region', { name: 'Version preview' }).waitFor();
    assert.equal(await theirs.getByRole('button', { name: 'Restore this version' }).count(), 0);
  } finally {
    await watcher?.close();
    await owner.close();
  }
});
