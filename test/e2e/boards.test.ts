// End-to-end: the boards page. Create, rename in place (a failed save keeps the draft and
// retries), duplicate, delete after a confirmation, "Load more" pages, make a board public and
// open it by its link as a second account (also when that person must sign in first).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import {
  allowClipboard,
  launchBrowser,
  readClipboard,
  saveScreenshot,
  signedInBrowser,
  signUp,
  startWebServer,
} from './helpers/browser.js';
import type { BoardBody, BoardList } from '../helpers/api-types.js';

let server: TestServer;
before(async () => {
  server = await startWebServer();
});
after(async () => server?.close());

const row = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });

async function apiBoards(token: string): Promise<{ id: string; name: string; is_public: boolean }[]> {
  const res = await server.request<BoardList>('GET', '/v1/boards?limit=100', { token });
  assert.equal(res.status, 200);
  return res.body.data;
}

test('create, rename in place (keeping the draft on a failed save), duplicate, delete with confirmation', async () => {
  const browser = await signedInBrowser(server, '/boards');
  try {
    const { page, account } = browser;
    await page.getByText('No boards yet').waitFor();

    await page.getByLabel('New board name').fill('Roadmap');
    await page.getByRole('button', { name: 'Create board' }).click();
    await row(page, 'Roadmap').waitFor();
    assert.equal(await page.getByLabel('New board name').inputValue(), '', 'the field is cleared after creating');
    assert.deepEqual(
      (await apiBoards(account.accessToken)).map((b) => b.name),
      ['Roadmap'],
    );

    // Rename, with the first save failing: the draft stays, the error is shown, Retry saves it.
    let failNext = true;
    await page.route('**/v1/boards/*', async (route) => {
      if (route.request().method() === 'PATCH' && failNext) {
        failNext = false;
        return route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ object: 'error', status: 503, code: 'unavailable', message: 'The service is briefly unavailable' }),
        });
      }
      return route.fallback();
    });
    await row(page, 'Roadmap').getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Board name', { exact: true }).fill('Roadmap 2027');
    await page.getByLabel('Board name', { exact: true }).press('Enter');
    await page.getByRole('alert').getByText('The service is briefly unavailable').waitFor();
    assert.equal(await page.getByLabel('Board name', { exact: true }).inputValue(), 'Roadmap 2027', 'the draft is kept');
    await page.getByRole('button', { name: 'Retry' }).click();
    await row(page, 'Roadmap 2027').waitFor();
    assert.equal(await page.getByLabel('Board name', { exact: true }).count(), 0);
    assert.deepEqual(
      (await apiBoards(account.accessToken)).map((b) => b.name),
      ['Roadmap 2027'],
    );

    // Escape abandons a rename.
    await row(page, 'Roadmap 2027').getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Board name', { exact: true }).fill('Not this');
    await page.getByLabel('Board name', { exact: true }).press('Escape');
    await row(page, 'Roadmap 2027').waitFor();

    await row(page, 'Roadmap 2027').getByRole('button', { name: 'Duplicate' }).click();
    await row(page, 'Roadmap 2027 (Copy)').waitFor();
    assert.equal((await apiBoards(account.accessToken)).length, 2);

    // Delete asks first; Cancel keeps the board.
    await row(page, 'Roadmap 2027 (Copy)').getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this board?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Roadmap 2027 \(Copy\)[\s\S]*cannot be undone/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await apiBoards(account.accessToken)).length, 2);

    await row(page, 'Roadmap 2027 (Copy)').getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete board' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'Roadmap 2027 (Copy)').waitFor({ state: 'detached' });
    assert.deepEqual(
      (await apiBoards(account.accessToken)).map((b) => b.name),
      ['Roadmap 2027'],
    );

    // Opening a board goes to its page.
    await page.getByRole('link', { name: 'Roadmap 2027', exact: true }).click();
    await page.waitForURL(/\/boards\/[0-9a-f-]{36}$/);
  } finally {
    await browser.close();
  }
});

test('long lists page with "Load more"; screenshot of the boards page', async () => {
  const account = await signUp(server);
  for (let i = 1; i <= 23; i++) {
    const res = await server.request('POST', '/v1/boards', {
      token: account.accessToken,
      body: { name: `Board ${String(i).padStart(2, '0')}` },
    });
    assert.equal(res.status, 201);
  }
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    await browser.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(`${server.url}/boards`);
    await row(page, 'Board 23').waitFor();
    assert.equal(await page.locator('.board-row').count(), 20);
    await page.getByRole('button', { name: 'Load more' }).click();
    await row(page, 'Board 01').waitFor();
    assert.equal(await page.locator('.board-row').count(), 23);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
  } finally {
    await browser.close();
  }
});

test('make a board public, copy its link, open it as a second account', async () => {
  const owner = await signedInBrowser(server, '/boards');
  const visitor = await launchBrowser();
  try {
    const { page } = owner;
    await allowClipboard(owner, server);
    for (const name of ['Team retro', 'Launch plan', 'Reading list']) {
      await page.getByLabel('New board name').fill(name);
      await page.getByRole('button', { name: 'Create board' }).click();
      await row(page, name).waitFor();
    }
    const boardId = (await apiBoards(owner.account.accessToken)).find((b) => b.name === 'Launch plan')!.id;

    await row(page, 'Launch plan').getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “Launch plan”' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Private').isChecked(), true);
    await dialog.getByLabel('Public, view only').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'Launch plan').getByText('Public · view only').waitFor();
    const stored = await server.request<BoardBody>('GET', `/v1/boards/${boardId}`, { token: owner.account.accessToken });
    assert.equal(stored.body.data.is_public, true);
    assert.equal(stored.body.data.public_access_level, 'view');

    // Switch to edit access; reopening the dialog shows the stored level.
    await row(page, 'Launch plan').getByRole('button', { name: 'Share' }).click();
    await dialog.getByLabel('Public, can edit').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row(page, 'Launch plan').getByText('Public · can edit').waitFor();
    await page.reload();
    await row(page, 'Launch plan').getByText('Public').waitFor();
    await row(page, 'Launch plan').getByRole('button', { name: 'Share' }).click();
    await dialog.waitFor();
    await page.waitForFunction(() => (document.querySelector('input[value="edit"]') as HTMLInputElement | null)?.checked === true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await saveScreenshot(page, 'boards.png');

    await row(page, 'Launch plan').getByRole('button', { name: 'Copy link' }).click();
    await page.getByText('Link copied').waitFor();
    const link = await readClipboard(page);
    assert.equal(link, `${server.url}/boards/${boardId}`);

    // A second person, not signed in yet, opens the link: sign in first, then the board.
    const second = await signUp(server);
    const boardRequests: number[] = [];
    visitor.page.on('response', (response) => {
      if (response.url() === `${server.url}/v1/boards/${boardId}` && response.request().method() === 'GET')
        boardRequests.push(response.status());
    });
    await visitor.page.goto(link);
    await visitor.page.waitForURL(`${server.url}/login?next=${encodeURIComponent(`/boards/${boardId}`)}`);
    await visitor.page.getByLabel('Email').fill(second.email);
    await visitor.page.getByLabel('Password').fill(second.password);
    await visitor.page.getByRole('button', { name: 'Sign in' }).click();
    await visitor.page.waitForURL(link);
    await visitor.page.locator('.account-email').getByText(second.email).waitFor();
    // The board page (web/src/board) shows the public board; the API lets the visitor read it.
    const asVisitor = await server.request<BoardBody>('GET', `/v1/boards/${boardId}`, { token: second.accessToken });
    assert.equal(asVisitor.status, 200);
    assert.equal(asVisitor.body.data.name, 'Launch plan');
    await visitor.page.getByText('Launch plan').first().waitFor();
    assert.ok(boardRequests.includes(200), `the board page loaded the public board (${boardRequests.join(', ')})`);
    await saveScreenshot(visitor.page, 'public-board.png');
  } finally {
    await visitor.close();
    await owner.close();
  }
});
