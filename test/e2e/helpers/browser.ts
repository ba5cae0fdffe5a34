// End-to-end harness: the real service (harness.startServer, which serves the built web app from
// web/dist) and Debian's Chromium driven by playwright-core, headless: one Chromium per test
// process, and a browser context of its own for each person. `npm run test:e2e` builds the app first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterEachFile, afterProcess } from '../../helpers/file-group.js';
import { startServer, type TestServer } from '../../helpers/harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** docs/screenshots/ (shown in the README) with UPDATE_SCREENSHOTS=1; otherwise a temporary folder, so a test run leaves the tree clean. */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? path.join(root, 'docs', 'screenshots') : path.join(os.tmpdir(), 'bwk-e2e-screenshots');
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

/** A device to emulate: its viewport (default 1280 x 800), and a phone's touch and mobile viewport. */
export interface Device {
  viewport?: { width: number; height: number };
  isMobile?: boolean;
  hasTouch?: boolean;
}

/** A phone-sized screen (an iPhone 12/13/14's CSS pixels), touch and mobile viewport. */
export const PHONE: Device = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let chromiumProcess: Promise<PlaywrightBrowser> | undefined;
// One Chromium per test process, closed when its last file ends (helpers/file-group.ts): starting
// one cost about 2 s of CPU, and a test file opens up to eight browsers.
afterProcess(async () => {
  await (await chromiumProcess)?.close();
});

/** The contexts still open: those a test left open are closed when its file ends. */
const openContexts = new Set<BrowserContext>();
afterEachFile(async () => {
  await Promise.all([...openContexts].map((context) => context.close()));
});

/**
 * A browser as a new person has it: a context of its own (cookies, storage, permissions; nothing
 * shared with any other) in the process's Chromium, with one page; `device` emulates another screen.
 * The app's service worker is let in, as in every browser.
 */
export async function launchBrowser(device: Device = {}): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  chromiumProcess ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await (await chromiumProcess).newContext({
    viewport: device.viewport ?? { width: 1280, height: 800 },
    isMobile: device.isMobile,
    hasTouch: device.hasTouch,
  });
  openContexts.add(context);
  context.on('close', () => openContexts.delete(context));
  // Three browser files run at once on two cores (npm test): a page can take more than 15 s to open.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  return { context, page, close: () => context.close() };
}

/** What every web server of the tests gets: tests make several accounts from one address (the sign-in rate limit is tested elsewhere). */
const WEB_SERVER_ENV = { AUTH_LOGIN_PER_MINUTE: '1000' };

let sharedServer: Promise<TestServer> | undefined;
afterProcess(async () => {
  await (await sharedServer?.catch(() => undefined))?.close();
});

/**
 * The service with the built web app; fails clearly when the app has not been built. Without
 * settings of its own, the files of a test process share one server (each test makes its own
 * accounts and boards), closed when the last file ends; its `close` does nothing. With `env`, a
 * server of the caller's own.
 */
export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  if (!fs.existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is missing: run `npm run build` (npm run test:e2e does) before the end-to-end tests');
  }
  if (Object.keys(env).length > 0) return startServer({ ...WEB_SERVER_ENV, ...env });
  sharedServer ??= startServer(WEB_SERVER_ENV).catch((error) => {
    sharedServer = undefined;
    throw error;
  });
  return { ...(await sharedServer), close: async () => {} };
}

let accounts = 0;

/** An email address no other test uses. */
export function uniqueEmail(label = 'person'): string {
  return `${label}${++accounts}-${Date.now()}@example.test`;
}

/** Lets the page use the async Clipboard API (copy buttons), and read it back in the test. */
export async function allowClipboard(browser: Browser, server: TestServer): Promise<void> {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
}

/** What the page's clipboard holds. */
export function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** A new local account made through the public API; returns its credentials and session. */
export async function signUp(
  server: TestServer,
): Promise<{ email: string; password: string; accessToken: string; userId: string; refreshCookie: string }> {
  const email = uniqueEmail();
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
  return {
    email,
    password,
    accessToken: body.access_token,
    userId: body.user.id,
    refreshCookie: cookie.split(';')[0]!.slice('bw_refresh='.length),
  };
}

/**
 * A browser already signed in as a new local account (its refresh cookie placed in the profile,
 * as if the person had signed in), opened at `urlPath`.
 */
export async function signedInBrowser(
  server: TestServer,
  urlPath = '/',
): Promise<Browser & { account: Awaited<ReturnType<typeof signUp>> }> {
  const account = await signUp(server);
  const browser = await launchBrowser();
  await browser.context.addCookies([
    { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
  ]);
  await browser.page.goto(`${server.url}${urlPath}`);
  return { ...browser, account };
}

/** Waits until the page is the boards list (where a sign-in lands). */
export async function boardsVisible(page: Page, server: TestServer): Promise<void> {
  await page.waitForURL(`${server.url}/boards`);
  await page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
}

/** Saves a screenshot in SCREENSHOTS. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, name) });
}

// ---- Board page helpers (canvas and chat/search tests) ------------------------------------------

/** A real RGBA PNG of the given size (a colour gradient), made with zlib: no image library. */
export async function makePng(width: number, height: number): Promise<Buffer> {
  const { deflateSync } = await import('node:zlib');
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 4 + 1);
    for (let x = 0; x < width; x++) {
      const at = row + 1 + x * 4;
      rows[at] = Math.round(40 + (180 * x) / width);
      rows[at + 1] = Math.round(90 + (120 * y) / height);
      rows[at + 2] = 220;
      rows[at + 3] = 255;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Drops files on the page at a point (viewport coordinates), as a person dragging them from the
 * desktop would: dragenter, dragover and drop events carrying a DataTransfer with the files.
 */
export async function dropFiles(
  page: Page,
  at: { x: number; y: number },
  files: { name: string; type: string; data: Buffer }[],
): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, type: f.type, base64: f.data.toString('base64') }));
  await page.evaluate(
    ({ at, payload }) => {
      const transfer = new DataTransfer();
      for (const f of payload) {
        const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], f.name, { type: f.type }));
      }
      const target = document.elementFromPoint(at.x, at.y);
      if (!target) throw new Error(`nothing at ${at.x},${at.y}`);
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(
          new DragEvent(type, { bubbles: true, cancelable: true, clientX: at.x, clientY: at.y, dataTransfer: transfer }),
        );
      }
    },
    { at, payload },
  );
}

/** A node's card on screen (its box in page pixels); fails if it is not shown. */
export async function nodeBox(page: Page, id: string) {
  const box = await page.getByTestId(`node-${id}`).boundingBox();
  assert.ok(box, `node ${id} is on screen`);
  return box;
}

/** Drags with the mouse from `from` by (dx, dy) page pixels, in steps, with the given button. */
export async function dragBy(page: Page, from: { x: number; y: number }, dx: number, dy: number, button: 'left' | 'middle' = 'left') {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down({ button });
  await page.mouse.move(from.x + dx / 2, from.y + dy / 2, { steps: 8 });
  await page.mouse.move(from.x + dx, from.y + dy, { steps: 8 });
  await page.mouse.up({ button });
}

/** Waits until the save indicator says every change is saved. */
export const allSaved = (page: Page) => page.getByRole('status').filter({ hasText: 'All changes saved' }).waitFor();

/** Polls `check` until it returns a value other than undefined/false, or fails with `what`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until an opened chat thread takes a message: its messages loaded, which enables Send (with
 * text in the box). Enter before that sends nothing and keeps the text, as Send is disabled.
 */
export const threadReady = (panel: Locator) =>
  eventually('the thread to take a message', () => panel.getByRole('button', { name: 'Send' }).isEnabled());

/** Calls the API as the signed-in account; throws on a non-2xx answer; returns the JSON body. */
export type AccountApi = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * A browser signed in as a new account, on a new board of that account (its heading shown);
 * `setup` may fill the board through the API before the page opens.
 */
/** Calls the API as this account: answers the body, throws on a status of 300 or more. */
export function accountApi(server: TestServer, account: { accessToken: string }): AccountApi {
  return async (method, urlPath, body) => {
    const res = await server.request(method, urlPath, { token: account.accessToken, body });
    if (res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${res.text}`);
    return res.body;
  };
}

export async function openNewBoard(server: TestServer, name: string, setup?: (api: AccountApi, boardId: string) => Promise<void>) {
  const account = await signUp(server);
  const api = accountApi(server, account);
  const boardId = (await api('POST', '/v1/boards', { name })).data.id as string;
  await setup?.(api, boardId);
  // Opened straight at the board: one page load, one refresh of the session cookie.
  const browser = await launchBrowser();
  try {
    await browser.context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await browser.page.goto(`${server.url}/boards/${boardId}`);
    await browser.page.getByRole('heading', { name, level: 1 }).waitFor();
    return { ...browser, account, api, boardId };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** A browser signed in as another new account, opened on someone else's (public) board. */
export async function openBoardAsNewAccount(server: TestServer, boardId: string, heading: string) {
  const browser = await signedInBrowser(server, `/boards/${boardId}`);
  try {
    await browser.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    return browser;
  } catch (error) {
    await browser.close();
    throw error;
  }
}
