// End-to-end harness: the real service (harness.startServer, which serves the built web app from
// web/dist) and Debian's Chromium driven by playwright-core, headless, with a fresh profile per
// browser. `npm run test:e2e` builds the app first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(root, 'docs', 'screenshots');
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium with a fresh user-data dir, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The service with the built web app; fails clearly when the app has not been built. */
export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  if (!fs.existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is missing: run `npm run build` (npm run test:e2e does) before the end-to-end tests');
  }
  return startServer(env);
}

let accounts = 0;

/** A new local account made through the public API; returns its credentials and session. */
export async function signUp(server: TestServer): Promise<{ email: string; password: string; accessToken: string; userId: string; refreshCookie: string }> {
  const email = `person${++accounts}-${Date.now()}@example.test`;
  const password = 'correct horse battery staple';
  const res = await fetch(`${server.url}/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 201) throw new Error(`signup answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { access_token: string; user: { id: string } };
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('bw_refresh='));
  if (!cookie) throw new Error('signup set no bw_refresh cookie');
  return { email, password, accessToken: body.access_token, userId: body.user.id, refreshCookie: cookie.split(';')[0]!.slice('bw_refresh='.length) };
}

/**
 * A browser already signed in as a new local account (its refresh cookie placed in the profile,
 * as if the person had signed in), opened at `urlPath`.
 */
export async function signedInBrowser(server: TestServer, urlPath = '/'): Promise<Browser & { account: Awaited<ReturnType<typeof signUp>> }> {
  const account = await signUp(server);
  const browser = await launchBrowser();
  await browser.context.addCookies([{ name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' }]);
  await browser.page.goto(`${server.url}${urlPath}`);
  return { ...browser, account };
}

/** Saves a screenshot under docs/screenshots/ (shown in the README). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, name) });
}
