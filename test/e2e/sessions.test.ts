// End-to-end: a sign-in that ends while the page is open. The sign-in is revoked on the server (a
// password change ends every sign-in of the account); once the short-lived access token is gone
// the app cannot renew it and shows its "session ended" banner, keeping what was typed, and
// signing in again returns to the app. (OIDC sign-out through the provider: auth.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Request } from 'playwright-core';
import { AccountService } from '../../src/accounts/accounts.js';
import type { TestServer } from '../helpers/harness.js';
import { boardsVisible, eventually, signedInBrowser, startWebServer } from './helpers/browser.js';
import type { BodyOf, BoardList } from '../helpers/api-types.js';

const NEW_PASSWORD = 'a different long password';

describe('a local sign-in revoked on the server', () => {
  let server: TestServer;
  before(async () => {
    // Tokens live 10 s (the minimum), so the app's scheduled renewal comes within seconds.
    server = await startWebServer({ AUTH_ACCESS_TOKEN_TTL_SECONDS: '10' });
  });
  after(async () => server?.close());

  test('the next action cannot renew: the session-ended banner, the draft kept, sign in again', async () => {
    const browser = await signedInBrowser(server, '/boards');
    try {
      const { page, account } = browser;
      await boardsVisible(page, server);
      await page.locator('.account-email').getByText(account.email).waitFor();
      assert.equal(await page.locator('.banner').count(), 0);

      // Changing the password ends every sign-in of the account (all refresh tokens revoked).
      const changed = await new AccountService({ db: server.database.db }).setPassword(account.email, NEW_PASSWORD);
      assert.ok(changed && changed.endedSignIns >= 1, `ended sign-ins: ${changed?.endedSignIns}`);
      // Refreshes the page starts from now on (one started before may still have succeeded).
      const sentAfter = new Set<Request>();
      const refreshes: number[] = [];
      page.on('request', (request) => {
        if (request.url() === `${server.url}/v1/auth/refresh`) sentAfter.add(request);
      });
      page.on('response', (response) => {
        if (sentAfter.has(response.request())) refreshes.push(response.status());
      });

      // The app renews its token before it expires (at 80 % of its 10 s life): that renewal is
      // refused, and the page says so without waiting for the person to do anything.
      const banner = page.locator('.banner[role="alert"]');
      await banner
        .getByText('Your session has ended. Anything you type stays here; sign in again to save it.')
        .waitFor({ timeout: 30_000 });
      const draft = 'Typed after the revocation';
      await page.getByLabel('New board name').fill(draft);
      await page.getByRole('button', { name: 'Create board' }).click();
      // The failed create is explained in words meant for a person, not the API's 401 envelope.
      await page.getByText('Your session has ended. Sign in again to save this.').waitFor();
      assert.equal(await page.getByText('Missing bearer token', { exact: false }).count(), 0);
      assert.ok(refreshes.includes(401), `refresh answers: ${refreshes.join(', ')}`);
      assert.ok(!refreshes.includes(200), `no renewal succeeded after the revocation: ${refreshes.join(', ')}`);
      // The page stays (signed-in layout, same URL) and the typed name is still in the field.
      assert.equal(page.url(), `${server.url}/boards`);
      assert.equal(await page.getByLabel('New board name').inputValue(), draft);
      await eventually(
        'the create request to finish',
        async () => (await page.getByRole('button', { name: 'Create board' }).isEnabled()) || undefined,
      );
      assert.equal(await page.getByRole('link', { name: draft }).count(), 0, 'nothing was created without a session');
      // Nothing was saved on the server either.
      const login = await server.request<BodyOf<'/v1/auth/login', 'post'>>('POST', '/v1/auth/login', {
        body: { email: account.email, password: NEW_PASSWORD },
      });
      assert.equal(login.status, 200, login.text);
      const listed = await server.request<BoardList>('GET', '/v1/boards', { token: login.body.access_token });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.data, []);

      await banner.getByRole('button', { name: 'Sign in again' }).click();
      await page.waitForURL(`${server.url}/login?next=%2Fboards`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByRole('status').getByText('Your session ended. Sign in again to continue.').waitFor();
      assert.equal(await page.locator('.account-email').count(), 0);

      // The old password no longer works; the new one does and returns to the boards.
      await page.getByLabel('Email').fill(account.email);
      await page.getByLabel('Password').fill(account.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('Email or password is incorrect').waitFor();
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await boardsVisible(page, server);
      assert.equal(await page.locator('.account-email').innerText(), account.email);
      assert.equal(await page.locator('.banner').count(), 0);

      await page.getByLabel('New board name').fill('Saved after signing in again');
      await page.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('link', { name: 'Saved after signing in again' }).waitFor();
      assert.equal(await page.locator('.banner').count(), 0);
    } finally {
      await browser.close();
    }
  });
});
