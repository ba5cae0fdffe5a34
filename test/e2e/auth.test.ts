// End-to-end: signing in through the web app. Local accounts: sign up, reload and stay signed in
// (refresh cookie), sign out, sign in again, a wrong password, a deep link kept across sign-in,
// the access token renewed when it expires. OIDC: the authorization-code flow with PKCE against
// the fake identity provider, landing signed in and creating a board; Sign out through the
// provider's end_session_endpoint (client_id, post_logout_redirect_uri, id_token_hint) and back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { startFakeOidc, type FakeOidc } from '../helpers/fake-oidc.js';
import { boardsVisible, eventually, launchBrowser, saveScreenshot, startWebServer, uniqueEmail } from './helpers/browser.js';
import type { AuthConfigBody } from '../helpers/api-types.js';

const PASSWORD = 'a long enough password';

async function fillCredentials(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
}

describe('local accounts', () => {
  let server: TestServer;
  before(async () => {
    server = await startWebServer({ AUTH_ACCESS_TOKEN_TTL_SECONDS: '10' });
  });
  after(async () => server?.close());

  test('sign up through the UI, stay signed in across a reload, sign out, sign in again', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      const email = uniqueEmail('signup');
      await page.goto(`${server.url}/`);
      await page.waitForURL(`${server.url}/login`);
      await page.getByRole('link', { name: 'Create one' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();

      // Too short a password is explained before anything is sent.
      await fillCredentials(page, email, 'short');
      await page.getByRole('button', { name: 'Create account' }).click();
      assert.match(await page.getByRole('alert').innerText(), /at least 8 characters/);

      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await boardsVisible(page, server);
      assert.equal(await page.locator('.account-email').innerText(), email);

      // The access token lives in memory only: a reload signs in again from the refresh cookie.
      const cookies = await browser.context.cookies(`${server.url}/v1/auth`);
      assert.ok(
        cookies.some((c) => c.name === 'bw_refresh' && c.httpOnly),
        'the refresh cookie is HttpOnly',
      );
      assert.deepEqual(await page.evaluate(() => [Object.keys(localStorage), Object.keys(sessionStorage)]), [[], []]);
      await page.reload();
      await page.locator('.account-email').getByText(email).waitFor();

      // The same address again is refused with the API's message.
      const second = await launchBrowser();
      try {
        await second.page.goto(`${server.url}/signup`);
        await fillCredentials(second.page, email.toUpperCase(), PASSWORD);
        await second.page.getByRole('button', { name: 'Create account' }).click();
        assert.match(await second.page.getByRole('alert').innerText(), /already|exists|taken|use/i);
      } finally {
        await second.close();
      }

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.reload(); // the cookie was revoked: still signed out
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.equal(await page.locator('.account-email').count(), 0);

      await fillCredentials(page, email, PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await boardsVisible(page, server);
      assert.equal(await page.locator('.account-email').innerText(), email);
    } finally {
      await browser.close();
    }
  });

  test('a wrong password is refused with a readable message and the form stays filled', async () => {
    const email = uniqueEmail('wrong');
    const made = await fetch(`${server.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    assert.equal(made.status, 201);
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      await page.goto(`${server.url}/login`);
      await fillCredentials(page, email, 'not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      await saveScreenshot(page, 'sign-in.png');
      assert.equal(await alert.innerText(), 'Email or password is incorrect');
      assert.equal(await page.getByLabel('Email').inputValue(), email);
      assert.equal(await page.getByRole('button', { name: 'Sign in' }).isEnabled(), true);
      assert.equal(page.url(), `${server.url}/login`);

      // An unknown address gets the same message (no account discovery).
      await fillCredentials(page, uniqueEmail('nobody'), PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('Email or password is incorrect').waitFor();
    } finally {
      await browser.close();
    }
  });

  test('a deep link survives signing in, and an expired access token is renewed', async () => {
    const email = uniqueEmail('deeplink');
    await fetch(`${server.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      await page.goto(`${server.url}/keys`);
      await page.waitForURL(`${server.url}/login?next=%2Fkeys`);
      await fillCredentials(page, email, PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${server.url}/keys`);
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

      // Tokens here live 10 s. Past that, work still goes through: the app renews the token (on
      // its timer, or on the 401) from the refresh cookie.
      const refreshes: number[] = [];
      page.on('response', (response) => {
        if (response.url().endsWith('/v1/auth/refresh')) refreshes.push(response.status());
      });
      await page.waitForTimeout(12_000);
      await page.getByRole('link', { name: 'Boards' }).click();
      await page.getByLabel('New board name').fill('After renewal');
      await page.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('link', { name: 'After renewal' }).waitFor();
      assert.ok(refreshes.length >= 1 && refreshes.every((status) => status === 200), `refreshes: ${refreshes.join(', ')}`);
      assert.equal(await page.getByRole('alert').count(), 0);
    } finally {
      await browser.close();
    }
  });
});

describe('OpenID Connect', () => {
  let idp: FakeOidc;
  let server: TestServer;
  before(async () => {
    idp = await startFakeOidc();
    server = await startWebServer({ AUTH_OIDC_ISSUER: idp.issuer, AUTH_OIDC_CLIENT_ID: idp.clientId });
  });
  after(async () => {
    await server?.close();
    await idp?.close();
  });

  test('sign in through the provider (code flow with PKCE), create a board, sign out', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      const authorize: URL[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${idp.issuer}/authorize`)) authorize.push(new URL(request.url()));
      });
      await page.goto(`${server.url}/boards`);
      await page.waitForURL(`${server.url}/login?next=%2Fboards`);
      // No local accounts in this mode.
      assert.equal(await page.getByLabel('Password').count(), 0);
      await page.getByRole('button', { name: 'Continue to sign-in' }).click();
      await boardsVisible(page, server);

      const sent = authorize[0]!;
      assert.equal(sent.searchParams.get('code_challenge_method'), 'S256');
      assert.match(sent.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(sent.searchParams.get('redirect_uri'), `${server.url}/auth/callback`);
      assert.equal(idp.stats.token, 1);
      await page.locator('.account-email').getByText('alice@example.test').waitFor();
      // The verifier and state are gone once used.
      assert.equal(await page.evaluate(() => sessionStorage.getItem('bw.oidc.pending')), null);

      await page.getByLabel('New board name').fill('Made through OIDC');
      await page.getByRole('button', { name: 'Create board' }).click();
      await page.getByRole('link', { name: 'Made through OIDC' }).waitFor();

      // A reload keeps the session (tokens in sessionStorage), the board is there.
      await page.reload();
      await page.getByRole('link', { name: 'Made through OIDC' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${server.url}/login`);
      await page.getByRole('button', { name: 'Continue to sign-in' }).waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.getItem('bw.oidc.tokens')), null);
    } finally {
      await browser.close();
    }
  });

  test('a callback with a forged state is refused with a readable message', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      await page.goto(`${server.url}/auth/callback?code=abc&state=forged`);
      await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
      assert.match(await page.getByRole('alert').innerText(), /expired or was already used/);
      assert.equal(idp.stats.token, 1, 'no code exchange was attempted');
    } finally {
      await browser.close();
    }
  });

  test("Sign out goes through the provider's end_session_endpoint and back to the app, signed out", async () => {
    const config = await server.request<AuthConfigBody>('GET', '/v1/auth/config');
    assert.ok(config.body.mode === 'oidc', config.text);
    assert.equal(config.body.end_session_endpoint, `${idp.issuer}/logout`);

    const browser = await launchBrowser();
    try {
      const { page } = browser;
      const endSession: URL[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${idp.issuer}/logout`)) endSession.push(new URL(request.url()));
      });
      await page.goto(`${server.url}/boards`);
      await page.waitForURL(`${server.url}/login?next=%2Fboards`);
      await page.getByRole('button', { name: 'Continue to sign-in' }).click();
      await boardsVisible(page, server);
      await page.locator('.account-email').getByText('alice@example.test').waitFor();
      const stored = await page.evaluate(() => sessionStorage.getItem('bw.oidc.tokens'));
      const idToken = (JSON.parse(stored ?? '{}') as { idToken?: string }).idToken;
      assert.ok(idToken, 'the provider gave an ID token');
      assert.equal(endSession.length, 0);

      await page.getByRole('button', { name: 'Sign out' }).click();
      const sent = await eventually('the end-session request', async () => endSession[0]);
      await page.waitForURL(`${server.url}/login`);
      await page.getByRole('button', { name: 'Continue to sign-in' }).waitFor();

      assert.equal(sent.origin + sent.pathname, `${idp.issuer}/logout`);
      assert.equal(sent.searchParams.get('client_id'), idp.clientId);
      assert.equal(sent.searchParams.get('post_logout_redirect_uri'), `${server.url}/login`);
      assert.equal(sent.searchParams.get('id_token_hint'), idToken);
      const hint = decodeJwt(sent.searchParams.get('id_token_hint')!);
      assert.equal(hint.sub, idp.user('alice@example.test').sub);
      assert.equal(hint.aud, idp.clientId);
      assert.equal(endSession.length, 1);

      assert.equal(await page.evaluate(() => sessionStorage.getItem('bw.oidc.tokens')), null);
      assert.equal(await page.locator('.account-email').count(), 0);
      await page.reload(); // nothing left to restore a session from
      await page.getByRole('button', { name: 'Continue to sign-in' }).waitFor();
      assert.equal(await page.locator('.account-email').count(), 0);

      // Signing in again works and returns to the app.
      const tokenExchanges = idp.stats.token;
      await page.getByRole('button', { name: 'Continue to sign-in' }).click();
      await boardsVisible(page, server);
      await page.locator('.account-email').getByText('alice@example.test').waitFor();
      assert.equal(idp.stats.token, tokenExchanges + 1);
    } finally {
      await browser.close();
    }
  });
});
