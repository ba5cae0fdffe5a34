// `npm run bench:canvas`: the board canvas in Chromium at 6, 500, 2,000 and 10,000 cards, in one run (issue
// 30). The service runs in this process (test/helpers/harness.ts, the built web app from web/dist:
// `npm run build -w client && npm run build -w web` first) on a fresh embedded database; Debian's
// Chromium (playwright-core, headless, software rendering) opens each board as its owner would, in a
// 1280 x 800 window. Per board:
//   first card: from the navigation's start to the first card drawn (in the page, measured: React
//     Flow shows a card once it knows its size), the median of BENCH_CANVAS_OPENS opens (default 5);
//   pan: 60 wheel steps of 12 px across and 8 px down, then back (the wheel pans), at the zoom the board
//     opens at (every card fitted);
//   drag: after Shift+1 (fit every card again), a card near the centre dragged by its title bar, 300 px
//     in 60 mouse moves (far out, the pointer first goes over the card, which brings it into the page).
// Before the first card, each step of the opening (the page, the app's script, the sign-in settings
// and token, the canvas's script, the board's request, its first and last byte, its first cards and
// whole read, the outbox opened from IndexedDB) as its median time from the navigation's start, from
// the page's Resource Timing and the board page's marks (web/src/board/board-load.ts, MARKS).
// Frame times are the gaps between animation frames while the pan or drag runs (p50, p90), and the
// frame rate is frames per second over that time; each is also given as a share of the 6-card board's.
// Settings: BENCH_CANVAS_SIZES (default 6,500,2000,10000), BENCH_CANVAS_OPENS, CHROMIUM_PATH, and
// BENCH_CANVAS_PROFILE=<dir>: where the time goes, per board and phase (the last open, the pan, the
// drag): the page's script, style and layout time (Chromium's Performance metrics) printed, and a V8
// CPU profile of each written to <dir> (map it to the sources with bench/canvas-profile-summary.ts).
import fs from 'node:fs';
import path from 'node:path';
import { type CDPSession, chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from '../test/helpers/harness.js';
import { fmt, machine, median, quantile, table } from './lib/report.js';
import { ROOT } from './lib/server.js';

const SIZES = (process.env.BENCH_CANVAS_SIZES ?? '6,500,2000,10000').split(',').map(Number);
const OPENS = Number(process.env.BENCH_CANVAS_OPENS ?? 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PROFILE = process.env.BENCH_CANVAS_PROFILE;
const COLUMNS = 50;
const TEXT = 'Quarterly review: **risks**, owners and the next steps.\n- budget\n- hiring\n- the launch date';

interface Account {
  email: string;
  token: string;
}

const PASSWORD = 'correct horse battery staple';

/** Signs up (or in): the access token and a refresh cookie of a new session (each open takes its own:
 * a refresh cookie is replaced as it is used). */
async function session(server: TestServer, email: string, route: 'signup' | 'login'): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${server.url}/v1/auth/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status >= 300) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { access_token: string };
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('bw_refresh='));
  if (!cookie) throw new Error(`${route} set no bw_refresh cookie`);
  return { token: body.access_token, cookie: cookie.split(';')[0]!.slice('bw_refresh='.length) };
}

/** A board of `count` notes in a grid, COLUMNS wide, made with batches of 500. */
async function makeBoard(server: TestServer, account: Account, count: number): Promise<string> {
  const call = async (method: string, urlPath: string, body: unknown) => {
    const res = await server.request<{ data: { id: string } }>(method, urlPath, { token: account.token, body });
    if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${res.text}`);
    return res.body.data;
  };
  const board = await call('POST', '/v1/boards', { name: `${count} cards` });
  for (let start = 0; start < count; start += 500) {
    const operations = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const position = { x: (i % COLUMNS) * 320, y: Math.floor(i / COLUMNS) * 220 };
      operations.push({ op: 'create_node', type: 'note', position, data: { text: `Card ${i + 1}. ${TEXT}` } });
    }
    await call('POST', `/v1/boards/${board.id}/batch`, { operations });
  }
  return board.id;
}

// Runs in the page before its scripts: notes the time of the first card drawn (a card in the page, or
// far out, the far layer's first drawing of cards: web/src/board/canvas/navigation/far-layer.tsx).
const FIRST_CARD_WATCH = `(() => {
  const check = () => {
    const card = document.querySelector('.react-flow__node');
    const layer = document.querySelector('.bw-far-layer');
    if ((card && getComputedStyle(card).visibility !== 'hidden' && card.getBoundingClientRect().width > 0) || Number(layer?.dataset.drawn) > 0) {
      window.__firstCard = performance.now();
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

async function open(
  browser: Browser,
  server: TestServer,
  account: Account,
  boardId: string,
  profile?: string,
): Promise<{ page: Page; close(): Promise<void>; firstCardMs: number; phases: Phases; cdp?: CDPSession }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { cookie } = await session(server, account.email, 'login');
  await context.addCookies([{ name: 'bw_refresh', value: cookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' }]);
  await context.addInitScript(FIRST_CARD_WATCH);
  const page = await context.newPage();
  const cdp = profile ? await startProfile(page) : undefined;
  await page.goto(`${server.url}/boards/${boardId}`);
  try {
    await page.waitForFunction(() => (window as unknown as { __firstCard?: number }).__firstCard !== undefined, undefined, {
      timeout: 120_000,
    });
  } catch (error) {
    await page.screenshot({ path: '/tmp/bench-canvas-failed.png' });
    throw error;
  }
  const firstCardMs = await page.evaluate(() => (window as unknown as { __firstCard: number }).__firstCard);
  if (cdp && profile) await stopProfile(cdp, profile);
  const phases = await openingPhases(page, boardId);
  return { page, close: () => context.close(), firstCardMs, phases, cdp };
}

/** The steps of an open before its first card, each as ms from the navigation's start (undefined:
 * not seen before the first card). */
type Phases = Record<(typeof PHASES)[number], number | undefined>;

const PHASES = [
  'page',
  'app script',
  'sign-in settings',
  'token',
  'canvas script',
  'board asked',
  'board first byte',
  'board first cards',
  'board last byte',
  'board read',
  'outbox open',
  'first card',
] as const;

/** From the page's Resource Timing and the board page's marks (web/src/board/board-page.tsx). */
async function openingPhases(page: Page, boardId: string): Promise<Phases> {
  // A string, not a function: tsx would wrap the inner functions in a helper the page lacks.
  return page.evaluate(`(() => {
    const boardId = ${JSON.stringify(boardId)};
    const names = ${JSON.stringify(PHASES)};
    const resources = performance.getEntriesByType('resource');
    const resource = (test) => resources.find((r) => test(new URL(r.name).pathname));
    const mark = (name) => performance.getEntriesByName(name, 'mark')[0]?.startTime;
    const nav = performance.getEntriesByType('navigation')[0];
    const board = resource((p) => p === '/v1/boards/' + boardId);
    const firstCard = window.__firstCard;
    const values = [
      nav?.responseEnd,
      resource((p) => /^\\/assets\\/index-[^/]*\\.js$/.test(p))?.responseEnd,
      resource((p) => p === '/v1/auth/config')?.responseEnd,
      resource((p) => p === '/v1/auth/refresh')?.responseEnd,
      resource((p) => /^\\/assets\\/board-(route|page)[^/]*\\.js$/.test(p))?.responseEnd,
      board?.startTime ?? mark('bw:board-request'),
      board?.responseStart || undefined,
      mark('bw:board-first-cards'),
      board?.responseEnd || undefined,
      mark('bw:board-read'),
      mark('bw:outbox-open'),
      firstCard,
    ];
    // A step after the first card did not hold it up (the rest of a board read progressively).
    return Object.fromEntries(names.map((name, i) => [name, values[i] !== undefined && values[i] <= firstCard + 1 ? values[i] : undefined]));
  })()`);
}

/** Chromium's own counters of the page's main thread (seconds). */
const METRICS = ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration'];
const baseline = new WeakMap<CDPSession, Record<string, number>>();

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: list } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(list.filter((m) => METRICS.includes(m.name)).map((m) => [m.name, m.value]));
}

async function startProfile(page: Page, cdp?: CDPSession): Promise<CDPSession> {
  const session = cdp ?? (await page.context().newCDPSession(page));
  if (!cdp) {
    await session.send('Performance.enable');
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 200 });
  }
  baseline.set(session, await metrics(session));
  await session.send('Profiler.start');
  return session;
}

/** Writes the CPU profile to `file` and prints the main thread's time by kind since the start. */
async function stopProfile(cdp: CDPSession, file: string): Promise<void> {
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(profile));
  const before = baseline.get(cdp) ?? {};
  const after = await metrics(cdp);
  const ms = (name: string) => Math.round(((after[name] ?? 0) - (before[name] ?? 0)) * 1000);
  const other = ms('TaskDuration') - ms('ScriptDuration') - ms('RecalcStyleDuration') - ms('LayoutDuration');
  console.error(
    `  ${path.basename(file)}: main thread ${ms('TaskDuration')} ms: script ${ms('ScriptDuration')}, style ${ms('RecalcStyleDuration')}, layout ${ms('LayoutDuration')}, other (paint, parse, GC…) ${other}`,
  );
}

/** Gaps between animation frames (ms) while `action` runs. */
async function frameTimes(page: Page, action: () => Promise<void>): Promise<number[]> {
  // A string, not a function: tsx would wrap the inner functions in a helper the page lacks.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__recording = true;
    let last = performance.now();
    const tick = (now) => {
      window.__frames.push(now - last);
      last = now;
      if (window.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame((now) => {
      last = now;
      requestAnimationFrame(tick);
    });
  })()`);
  await action();
  // The last frames of the gesture drawn.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean };
    w.__recording = false;
    return w.__frames;
  });
}

interface Frames {
  p50: number;
  p90: number;
  fps: number;
}

const summary = (frames: number[]): Frames => {
  const total = frames.reduce((a, b) => a + b, 0);
  return { p50: quantile(frames, 0.5), p90: quantile(frames, 0.9), fps: (frames.length * 1000) / total };
};

/** Waits until the page has had a quiet second (the opening fit, measurements, late renders). */
const settle = (page: Page) => page.waitForTimeout(1500);

async function pan(page: Page): Promise<Frames> {
  await page.mouse.move(640, 420);
  return summary(
    await frameTimes(page, async () => {
      for (let i = 0; i < 60; i++) await page.mouse.wheel(i % 30 < 15 ? 12 : -12, i % 30 < 15 ? 8 : -8);
    }),
  );
}

async function drag(page: Page): Promise<Frames> {
  // Far out the cards are drawn on one canvas and a card comes into the page under the pointer: the
  // pointer goes over the view's centre (and a step aside while between two cards) first.
  for (let i = 0; i < 20; i++) {
    await page.mouse.move(640 + (i % 5) * 9, 420 + Math.floor(i / 5) * 7);
    await page.waitForTimeout(50);
    if ((await page.locator('.react-flow__node').count()) > 0) break;
  }
  // A card near the centre of the view, by its title bar.
  const box = await page.evaluate<{ x: number; y: number }>(`(() => {
    const cards = [...document.querySelectorAll('.react-flow__node')]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.left > 200 && r.top > 150 && r.right < 1000 && r.bottom < 650);
    const r = cards[0] ?? document.querySelector('.react-flow__node').getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + Math.min(8, r.height / 4) };
  })()`);
  await page.mouse.move(box.x, box.y);
  await page.mouse.down();
  const frames = await frameTimes(page, async () => {
    for (let i = 1; i <= 60; i++) await page.mouse.move(box.x + i * 5, box.y + i * 2);
  });
  await page.mouse.up();
  return summary(frames);
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is missing: run `npm run build -w client && npm run build -w web` first');
  }
  const host = machine();
  const server = await startServer({ AUTH_LOGIN_PER_MINUTE: '1000' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const rows: { size: number; firstCard: number[]; phases: Phases[]; pan: Frames; drag: Frames; zoom: number }[] = [];
  try {
    const email = `bench-${Date.now()}@example.test`;
    const account: Account = { email, token: (await session(server, email, 'signup')).token };
    for (const size of SIZES) {
      const boardId = await makeBoard(server, account, size);
      const firstCard: number[] = [];
      const phases: Phases[] = [];
      for (let i = 0; i < OPENS; i++) {
        const last = i === OPENS - 1;
        const opened = await open(
          browser,
          server,
          account,
          boardId,
          PROFILE && last ? path.join(PROFILE, `${size}-open.cpuprofile`) : undefined,
        );
        firstCard.push(opened.firstCardMs);
        phases.push(opened.phases);
        if (i < OPENS - 1) {
          await opened.close();
          continue;
        }
        await settle(opened.page);
        const zoom = await opened.page.evaluate(() => {
          const viewport = document.querySelector<HTMLElement>('.react-flow__viewport');
          return Number(/scale\(([\d.]+)\)/.exec(viewport?.style.transform ?? '')?.[1] ?? 1);
        });
        if (opened.cdp) await startProfile(opened.page, opened.cdp);
        const panned = await pan(opened.page);
        if (opened.cdp && PROFILE) await stopProfile(opened.cdp, path.join(PROFILE, `${size}-pan.cpuprofile`));
        // Every card in view again (Shift+1) before the drag.
        await opened.page.keyboard.press('Shift+Digit1');
        await settle(opened.page);
        if (opened.cdp) await startProfile(opened.page, opened.cdp);
        const dragged = await drag(opened.page);
        if (opened.cdp && PROFILE) await stopProfile(opened.cdp, path.join(PROFILE, `${size}-drag.cpuprofile`));
        await opened.close();
        rows.push({ size, firstCard, phases, pan: panned, drag: dragged, zoom });
        console.error(
          `${size} cards: first card ${fmt(median(firstCard))} ms, pan ${fmt(panned.fps, 1)} fps, drag ${fmt(dragged.fps, 1)} fps`,
        );
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const reference = rows.find((r) => r.size === Math.min(...SIZES))!;
  const share = (value: number, of: number) => `${fmt((value / of) * 100)}%`;
  console.log(
    `Machine: ${host.cpus} CPUs (${host.cpuModel}), ${host.memoryGiB} GiB, ${host.node}, load ${host.loadAverage.toFixed(2)} at start`,
  );
  console.log(`Chromium headless (software rendering), 1280 x 800; first card: median of ${OPENS} opens.\n`);
  console.log(
    table(
      [
        'cards',
        'opening zoom',
        'first card, median (ms)',
        'first card, each open (ms)',
        'pan p50 / p90 (ms)',
        'pan fps',
        'pan vs 6',
        'drag p50 / p90 (ms)',
        'drag fps',
        'drag vs 6',
      ],
      rows.map((r) => [
        r.size,
        fmt(r.zoom, 2),
        fmt(median(r.firstCard)),
        r.firstCard.map((t) => fmt(t)).join(', '),
        `${fmt(r.pan.p50, 1)} / ${fmt(r.pan.p90, 1)}`,
        fmt(r.pan.fps, 1),
        share(r.pan.fps, reference.pan.fps),
        `${fmt(r.drag.p50, 1)} / ${fmt(r.drag.p90, 1)}`,
        fmt(r.drag.fps, 1),
        share(r.drag.fps, reference.drag.fps),
      ]),
    ),
  );
  // Where the time before the first card goes: each step's median time from the navigation's start.
  const at = (r: (typeof rows)[number], name: (typeof PHASES)[number]) => {
    const seen = r.phases.map((p) => p[name]).filter((v): v is number => v !== undefined);
    return seen.length === 0 ? '–' : fmt(median(seen));
  };
  console.log(`\nBefore the first card, median ms from the navigation's start ('–': not before the first card):\n`);
  console.log(
    table(
      ['step', ...rows.map((r) => `${r.size} cards`)],
      PHASES.map((name) => [name, ...rows.map((r) => at(r, name))]),
    ),
  );
}

await main();
