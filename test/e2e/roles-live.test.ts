// End to end (issue 31): a change of a member's role reaches their open page without a reload. The
// owner lowers an editor to viewer in the Share dialog: the editor's note turns read-only and the
// editing tools go, live. The owner then removes them: their page says "You no longer have access
// to this board" and the board closes, and the text they had typed that had not reached the service
// (their writes cut off meanwhile) is not dropped in silence: it is named as not saved, with their
// words to copy; the copy of the board kept on their device for offline use is forgotten.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { boardsVisible, eventually, openNewBoard, signedInBrowser, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** Whether the web app keeps the board as last seen in this page's IndexedDB (web/src/board/canvas/sync/store.ts). */
function keptOffline(page: Page, boardId: string): Promise<boolean> {
  return page.evaluate(
    (id) =>
      new Promise<boolean>((resolve, reject) => {
        const open = indexedDB.open('board-workspace-sync');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('boards').objectStore('boards').get(id);
          get.onerror = () => reject(get.error);
          get.onsuccess = () => {
            open.result.close();
            resolve(get.result !== undefined);
          };
        };
      }),
    boardId,
  );
}

test('an editor lowered to viewer turns read-only live; removed, their page closes and their unsaved text is named', async () => {
  let noteId = '';
  const owner = await openNewBoard(server, 'Team plan', async (api, boardId) => {
    noteId = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Draft' } })).data
      .id;
  });
  const colleague = await signedInBrowser(server, '/boards');
  try {
    const { page } = colleague;
    // Signed in first: leaving the page while its first token refresh is under way can cost the
    // rotated refresh cookie (see the session's note).
    await boardsVisible(page, server);
    await owner.api('POST', `/v1/boards/${owner.boardId}/members`, { user_id: colleague.account.userId, role: 'editor' });
    await page.goto(`${server.url}/boards/${owner.boardId}`);
    await page.getByRole('heading', { name: 'Team plan', level: 1 }).waitFor();
    const box = page.getByTestId(`node-${noteId}`).getByRole('textbox', { name: 'Note text' });
    await box.waitFor();
    assert.equal(await box.isEditable(), true, 'an editor edits the note');
    const tools = page.getByRole('toolbar', { name: 'Board tools' });
    await tools.getByRole('button', { name: 'Add note' }).waitFor();
    // A mark on this page: it is gone if the page reloads.
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });

    // The colleague's writes cannot reach the service for now: what they type waits in the outbox.
    await page.route('**/v1/boards/*/nodes/**', (route) =>
      route.request().method() === 'GET' ? route.continue() : route.abort('internetdisconnected'),
    );
    await page.route('**/v1/boards/*/batch', (route) => route.abort('internetdisconnected'));
    await box.click();
    await box.press('Control+End');
    await page.keyboard.type(' with my unsaved words');

    // The owner lowers them to viewer in the Share dialog.
    await owner.page.getByRole('button', { name: 'More' }).click();
    await owner.page.getByRole('button', { name: 'Share' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Share “Team plan”' });
    const members = dialog.getByRole('list', { name: 'Members' });
    await members.getByLabel(`Role of ${colleague.account.email}`).selectOption('viewer');

    // Live, without a reload: the note is read-only, the editing tools are gone, "View only" shows.
    await eventually('the note to turn read-only', async () => !(await box.isEditable()));
    await page.getByText('View only').first().waitFor();
    assert.equal(await tools.getByRole('button', { name: 'Add note' }).count(), 0, 'a viewer gets no editing tools');
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page reloaded');
    // What they typed is still shown, not dropped.
    assert.match(await box.inputValue(), /with my unsaved words/);

    // This device keeps a copy of the board for offline use while they may see it.
    await eventually('the board to be kept offline', () => keptOffline(page, owner.boardId));
    // The owner removes them: the board closes on their page.
    await members.getByRole('button', { name: `Remove ${colleague.account.email}` }).click();
    await members.getByText(colleague.account.email).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'You no longer have access to this board.' }).waitFor();
    assert.equal(await page.locator('.react-flow').count(), 0, 'the canvas is closed');
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page reloaded');
    // The copy of the board this device kept for offline use (other people's content) is forgotten.
    await eventually('the offline copy of the board to be forgotten', async () => !(await keptOffline(page, owner.boardId)));

    // Their connection returns: the waiting text is refused by the service and named as not saved
    // (in one notice, or one per send when the typing went out in more than one).
    await page.unrouteAll();
    const notices = page.getByRole('alert').filter({ hasText: 'Not saved' });
    await notices.first().waitFor({ timeout: 20_000 });
    for (const notice of await notices.all()) {
      assert.match(await notice.innerText(), /your text in “.*”: you no longer have access to this board/i);
      await notice.getByRole('button', { name: 'Copy my text' }).waitFor();
    }
    // Nothing of theirs reached the board.
    const saved = await owner.api('GET', `/v1/boards/${owner.boardId}/nodes/${noteId}`);
    assert.equal(saved.data.node_data.text, 'Draft');
    assert.equal((await server.request('GET', `/v1/boards/${owner.boardId}`, { token: colleague.account.accessToken })).status, 404);
  } finally {
    await colleague.close();
    await owner.close();
  }
});
