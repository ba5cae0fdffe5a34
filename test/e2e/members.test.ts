// End to end (issue 31): a private board shared with a colleague by email through the Share
// dialog, in two browsers. The colleague finds it under "Shared with me" (from the API), opens it
// read-only as a viewer, gets the editing tools once the owner makes them an editor, and a third
// person joins through a share link; a revoked link admits nobody more.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { openNewBoard, signedInBrowser, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test('the owner shares a private board by email and by a link; roles decide what the others may do', async () => {
  const owner = await openNewBoard(server, 'Roadmap', async (api, boardId) => {
    await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Q3 goals' } });
  });
  const colleague = await signedInBrowser(server, '/boards');
  let guest: Awaited<ReturnType<typeof signedInBrowser>> | undefined;
  try {
    await colleague.page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
    // Nothing is shared with the colleague yet.
    assert.equal(await colleague.page.getByRole('heading', { name: 'Shared with me' }).count(), 0);

    await owner.page.getByRole('button', { name: 'More' }).click();
    await owner.page.getByRole('button', { name: 'Share' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Share “Roadmap”' });
    await dialog.getByLabel('Email of the person to add').fill(colleague.account.email);
    await dialog.getByLabel('Role of the person to add').selectOption('viewer');
    await dialog.getByRole('button', { name: 'Add' }).click();
    const members = dialog.getByRole('list', { name: 'Members' });
    await members.getByText(colleague.account.email).waitFor();

    // The colleague's "Shared with me" comes from the API: the board, as a viewer.
    await colleague.page.reload();
    const shared = colleague.page.getByRole('list', { name: 'Boards shared with me' });
    await shared.getByText('Can view').waitFor();
    await shared.getByRole('link', { name: 'Roadmap' }).click();
    await colleague.page.getByRole('heading', { name: 'Roadmap', level: 1 }).waitFor();
    await colleague.page.getByText('Q3 goals').first().waitFor();
    const tools = colleague.page.getByRole('toolbar', { name: 'Board tools' });
    assert.equal(await tools.getByRole('button', { name: 'Add note' }).count(), 0, 'a viewer gets no editing tools');

    // The owner makes them an editor: after a reload they may add notes.
    await members.getByLabel(`Role of ${colleague.account.email}`).selectOption('editor');
    const boardId = owner.boardId;
    const colleagueApi = (path: string) => server.request<any>('GET', path, { token: colleague.account.accessToken });
    for (let i = 0; i < 100 && (await colleagueApi(`/v1/boards/${boardId}`)).body.data.role !== 'editor'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await colleagueApi(`/v1/boards/${boardId}`)).body.data.role, 'editor');
    await colleague.page.reload();
    await colleague.page.getByRole('toolbar', { name: 'Board tools' }).getByRole('button', { name: 'Add note' }).waitFor();

    // A share link: a third person opens it and lands on the board as a commenter.
    await dialog.getByLabel('Role the link gives').selectOption('commenter');
    await dialog.getByRole('button', { name: 'Make a link' }).click();
    const address = dialog.getByRole('textbox', { name: 'Share link address' });
    await address.waitFor();
    const url = await address.inputValue();
    assert.match(url, /\/share\/bsl_/);
    guest = await signedInBrowser(server, new URL(url).pathname);
    await guest.page.getByRole('heading', { name: 'Roadmap', level: 1 }).waitFor();
    const guestBoard = await server.request<any>('GET', `/v1/boards/${boardId}`, { token: guest.account.accessToken });
    assert.equal(guestBoard.body.data.role, 'commenter');

    // Revoked, the link admits nobody more; the guest stays.
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByText('Revoked').waitFor();
    const late = await signUp(server);
    const refused = await server.request('POST', '/v1/share-links/accept', {
      token: late.accessToken,
      body: { token: new URL(url).pathname.split('/').pop() },
    });
    assert.equal(refused.status, 404, refused.text);
    assert.equal((await server.request('GET', `/v1/boards/${boardId}`, { token: late.accessToken })).status, 404);
    assert.equal((await server.request('GET', `/v1/boards/${boardId}`, { token: guest.account.accessToken })).status, 200);

    // Removing the colleague: the board leaves their list.
    await members.getByRole('button', { name: `Remove ${colleague.account.email}` }).click();
    await members.getByText(colleague.account.email).waitFor({ state: 'detached' });
    await colleague.page.goto(`${server.url}/boards`);
    await colleague.page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
    assert.equal((await colleagueApi(`/v1/boards/${boardId}`)).status, 404);
    assert.equal(
      await colleague.page.getByRole('list', { name: 'Boards shared with me' }).getByRole('link', { name: 'Roadmap' }).count(),
      0,
    );
  } finally {
    await guest?.close();
    await colleague.close();
    await owner.close();
  }
});
