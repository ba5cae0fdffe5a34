// End to end: a public board shared with edit access, used from a second account's canvas in
// Chromium against the real service. The visitor adds a note from the toolbar and types into it;
// the owner finds it through the API and on their own canvas. The visitor gets the editing tools
// but none of the owner's: no file uploads (a dropped file is refused with a notice), no public
// badge, and the board is not in their own boards list (where sharing and deleting live).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { dropFiles, eventually, makePng, openBoardAsNewAccount, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test("a second account adds and writes a note on someone else's public edit board, without the owner's controls", async () => {
  const owner = await openNewBoard(server, 'Team board', async (api, boardId) => {
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'edit' });
  });
  let visitor: Awaited<ReturnType<typeof openBoardAsNewAccount>> | undefined;
  try {
    const { api, boardId } = owner;
    await owner.page.getByText('Public · edit').waitFor();
    await owner.page.getByText('This board is empty. Add a note, or drop an image or PDF here.', { exact: true }).waitFor();

    visitor = await openBoardAsNewAccount(server, boardId, 'Team board');
    const { page } = visitor;
    // The editing tools, without the owner's: no upload, no public badge, not read-only.
    const tools = page.getByRole('toolbar', { name: 'Board tools' });
    await tools.getByRole('button', { name: 'Add note' }).waitFor();
    assert.equal(await tools.getByRole('button', { name: 'Delete selected' }).count(), 1);
    assert.equal(await page.getByLabel('Upload image, PDF or document').count(), 0);
    assert.equal(await page.getByText('Upload file').count(), 0);
    assert.equal(await page.getByText('View only').count(), 0);
    assert.equal(await page.getByText('Public · edit').count(), 0);
    // The empty board does not invite the visitor to drop files they may not add.
    await page.getByText('This board is empty. Add a note.', { exact: true }).waitFor();

    // A file dropped anyway is refused with a notice; nothing is uploaded or placed.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    await dropFiles(page, { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2 }, [
      { name: 'photo.png', type: 'image/png', data: await makePng(40, 30) },
    ]);
    await page.getByRole('alert').filter({ hasText: "Only the board's owner can add files to it." }).waitFor();
    assert.equal(await page.getByTestId('upload-photo.png').count(), 0);
    assert.equal((await api('GET', `/v1/boards/${boardId}/assets`)).data.length, 0);

    // Add a note from the toolbar: it takes the focus, and what is typed is saved.
    await tools.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('textbox', { name: 'Note text' }).waitFor();
    const id = await eventually(
      'the note created',
      async () => (await api('GET', `/v1/boards/${boardId}/nodes`)).data[0]?.id as string | undefined,
    );
    await page.keyboard.type('Agenda: budget, hiring, offsite');
    const saved = await eventually('the text saved', async () => {
      const node = (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data;
      return node.node_data.text === 'Agenda: budget, hiring, offsite' ? node : undefined;
    });
    assert.equal(saved.node_type, 'note');
    assert.equal((await api('GET', `/v1/boards/${boardId}/nodes`)).data.length, 1);
    await page.getByRole('status').filter({ hasText: 'All changes saved' }).waitFor();

    // The visitor's node menu offers what edit access allows.
    await page.getByTestId(`node-${id}`).getByRole('button', { name: 'Menu of Agenda: budget, hiring, offsite' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).waitFor();
    await page.keyboard.press('Escape');
    // What the visitor typed is read by itself (the board's auto_read), as the owner's typing would be.
    await page.getByTestId(`node-${id}`).getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });

    // The owner sees the visitor's note on their canvas after a reload.
    await owner.page.reload();
    await owner.page.getByRole('heading', { name: 'Team board', level: 1 }).waitFor();
    assert.equal(
      await owner.page.getByTestId(`node-${id}`).getByRole('textbox', { name: 'Note text' }).inputValue(),
      'Agenda: budget, hiring, offsite',
    );

    // Sharing, renaming and deleting a board are the owner's: the visitor's own list does not hold
    // this board; it is under "Shared with me", without Share.
    await page.getByRole('link', { name: 'Boards', exact: true }).click();
    await page.getByText('No boards yet').waitFor();
    assert.equal(await page.getByRole('list', { name: 'Your boards' }).getByRole('link', { name: 'Team board', exact: true }).count(), 0);
    await page.getByRole('list', { name: 'Boards shared with me' }).getByRole('link', { name: 'Team board', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Share' }).count(), 0);
  } finally {
    await visitor?.close();
    await owner.close();
  }
});
