// `npm run bench:fairness`: whether one user's heavy reads stall another user (issue 26, item 5).
//
// One server; a heavy user owns a board near its bounds (BENCH_FAIR_NODES notes of
// BENCH_FAIR_TEXT characters each: 9,900 × 5,000 by default, about 50 MB of node data), a light
// user owns a small board of 20 notes. The light user (a worker thread of its own: its timings are
// not delayed by this process parsing the heavy answers) makes one request at a time, paced at one
// every BENCH_FAIR_PACE_MS so it stays under its own rate limit, two reads in turn: one of its
// nodes (GET /v1/boards/{id}/nodes/{nodeId}) and a page of 20 (GET /v1/boards/{id}/nodes?limit=20);
// the p50 and p99 of each are measured:
//
//   idle      nobody else works
//   board     the heavy user runs 4 concurrent loops of the board's full read
//             (GET /v1/boards/{id} as its owner, with flow_state: every node and edge)
//   export    the same with the JSON Canvas export (GET /v1/boards/{id}/export?format=jsoncanvas)
//   mcp       the heavy user runs 16 concurrent loops of the MCP tool read_board (limit 500,
//             paging through the whole board), each loop at most one call a second so all 16
//             stay within the API key's default limit of 1,000 requests a minute
//
// A load phase lasts BENCH_FAIR_SECONDS and at least until every heavy loop has read the board
// whole once. Each is measured beside idle phases of the same run (before and after it, the ratio
// against their mean). Rate limits are the defaults (1,000 a minute per API key).
//
//   npm run bench:fairness                                   the embedded database
//   BENCH_DATABASE_URL=postgres://…/postgres npm run bench:fairness
//                                                            PostgreSQL: the bench makes a database
//                                                            bench_fair beside that url's and drops it
//
// Settings: BENCH_FAIR_PHASES [board,export,mcp], BENCH_FAIR_ROOT (a checkout whose service runs
// instead of this one's, built there: the baseline), BENCH_FAIR_SECONDS [20: per phase], BENCH_FAIR_NODES [9900], BENCH_FAIR_TEXT [5000],
// BENCH_FAIR_PACE_MS [70], BENCH_SERVER=tsx (the sources, no build), BENCH_NO_BUILD=1 (reuse dist/; otherwise the
// service alone is built first).
// Not a test: a missed goal is reported, the exit code stays 0 unless something failed.
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { ApiClient, benchApiKey, createBoard, runBounded, seedNodes } from './lib/api.js';
import { LIGHT_READS, type LightRead, type LightReadsJob } from './lib/light-reads.js';
import { dropDatabase, freshDatabase, serverVersion } from './lib/postgres.js';
import { type Goal, goalsTable, machine, quantile, table } from './lib/report.js';
import { buildServiceOnly, databaseCpuSeconds, ROOT, type ServerChild, serverMode, startServerChild } from './lib/server.js';
import { setting } from './lib/setting.js';

const SECONDS = setting('BENCH_FAIR_SECONDS', 20);
const NODES = setting('BENCH_FAIR_NODES', 9900);
const TEXT = setting('BENCH_FAIR_TEXT', 5000);
const PACE_MS = setting('BENCH_FAIR_PACE_MS', 70);
/** Which phases run (BENCH_FAIR_PHASES, comma-separated): board, export, mcp. */
const PHASES = (process.env.BENCH_FAIR_PHASES || 'board,export,mcp').split(',');
/** Run the service of this checkout (built there) instead of this one: a baseline (BENCH_FAIR_ROOT). */
const SERVICE_ROOT = process.env.BENCH_FAIR_ROOT || undefined;
const EXPORT_LOOPS = 4;
const MCP_LOOPS = 16;
const MCP_LIMIT = 500;
const BATCH = 150;

/** A note of about `TEXT` characters (varied, so nothing compresses it away). */
function bigNote(i: number) {
  const words = ['board', 'canvas', 'note', 'edge', 'chunk', 'search', 'vector', 'query', 'token', 'page'];
  let text = `Note ${i}:`;
  for (let k = 0; text.length < TEXT; k++) text += ` ${words[(i * 31 + k * 7) % words.length]}${k % 97}`;
  return {
    op: 'create_node',
    type: 'note',
    position: { x: (i % 100) * 320, y: Math.floor(i / 100) * 240 },
    data: { label: `Note ${i}`, text: text.slice(0, TEXT), width: 280, height: 180 },
  };
}

async function seedBigBoard(api: ApiClient, boardId: string): Promise<void> {
  const batches = Math.ceil(NODES / BATCH);
  await runBounded(batches, 2, async (b) => {
    const ops = [];
    for (let i = b * BATCH; i < Math.min(NODES, (b + 1) * BATCH); i++) ops.push(bigNote(i));
    await api.call('POST', `/v1/boards/${boardId}/batch`, { operations: ops }, 200);
  });
}

interface Latencies {
  p50: number;
  p99: number;
  count: number;
}

/** The worker's code: tsx's loader, then bench/lib/light-reads.ts (a worker does not inherit the loader). */
const LIGHT_READS_WORKER = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then(({ register }) => { register(); return import(${JSON.stringify(new URL('./lib/light-reads.ts', import.meta.url).href)}); });`;

/** The light user's loop until `until()` is true, in its own worker thread (bench/lib/light-reads.ts). */
async function lightLoop(
  server: ChildUrl,
  token: string,
  boardId: string,
  nodeIds: string[],
  until: () => boolean,
): Promise<Record<LightRead, Latencies>> {
  const job: LightReadsJob = { url: server.url, token, boardId, nodeIds, paceMs: PACE_MS };
  const worker = new Worker(LIGHT_READS_WORKER, { eval: true, workerData: job });
  const answer = once(worker, 'message') as Promise<[Record<LightRead, number[]>]>;
  const failed = once(worker, 'error').then(([error]) => Promise.reject(error));
  while (!until()) await Promise.race([sleep(50), failed]);
  worker.postMessage('stop');
  const [times] = await Promise.race([answer, failed]);
  await worker.terminate();
  const stats = (values: number[]) => ({ p50: quantile(values, 0.5), p99: quantile(values, 0.99), count: values.length });
  return { 'one node': stats(times['one node']), 'page of 20 nodes': stats(times['page of 20 nodes']) };
}

const forSeconds = (seconds: number) => {
  const end = performance.now() + seconds * 1000;
  return () => performance.now() >= end;
};

type ChildUrl = Pick<ServerChild, 'url'>;

interface HeavyStats {
  done: number;
  refused: number;
  bytes: number;
  /** Loops that have finished at least one whole read. */
  loopsDone: number;
}

/** The heavy user's loops until `stop` is set; counts answers (429s are waited out as Retry-After says). */
async function heavyLoops(
  loops: number,
  once: (stats: HeavyStats) => Promise<void>,
  stop: { now: boolean },
  stats: HeavyStats,
): Promise<HeavyStats> {
  await Promise.all(
    Array.from({ length: loops }, async () => {
      let first = true;
      while (!stop.now) {
        await once(stats);
        if (first) stats.loopsDone++;
        first = false;
      }
    }),
  );
  return stats;
}

async function exportOnce(server: ChildUrl, token: string, boardId: string, stats: HeavyStats): Promise<void> {
  const res = await fetch(`${server.url}/v1/boards/${boardId}/export?format=jsoncanvas`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await res.arrayBuffer();
  if (res.status === 429) {
    stats.refused++;
    await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
    return;
  }
  if (res.status !== 200) throw new Error(`the export answered ${res.status}: ${Buffer.from(body).toString().slice(0, 300)}`);
  stats.done++;
  stats.bytes += body.byteLength;
}

async function boardOnce(server: ChildUrl, token: string, boardId: string, stats: HeavyStats): Promise<void> {
  const res = await fetch(`${server.url}/v1/boards/${boardId}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.arrayBuffer();
  if (res.status === 429) {
    stats.refused++;
    await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
    return;
  }
  if (res.status !== 200) throw new Error(`the board read answered ${res.status}: ${Buffer.from(body).toString().slice(0, 300)}`);
  stats.done++;
  stats.bytes += body.byteLength;
}

async function mcpReadBoard(server: ChildUrl, token: string, boardId: string, stats: HeavyStats): Promise<void> {
  let cursor: string | undefined;
  do {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read_board', arguments: { board_id: boardId, limit: MCP_LIMIT, ...(cursor ? { cursor } : {}) } },
      }),
    });
    const text = await res.text();
    if (res.status === 429) {
      stats.refused++;
      await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      continue;
    }
    if (res.status !== 200) throw new Error(`read_board answered ${res.status}: ${text.slice(0, 300)}`);
    // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC answer
    const answer = JSON.parse(text) as any;
    if (answer.result?.isError) {
      const message = String(answer.result.content?.[0]?.text ?? '');
      stats.refused++;
      if (!/rate|busy|too many|try again/i.test(message)) throw new Error(`read_board failed: ${message}`);
      await sleep(1000);
      continue;
    }
    stats.done++;
    stats.bytes += text.length;
    cursor = answer.result.structuredContent.next_cursor ?? undefined;
    // Within the rate limit: each loop at most one call a second.
    const spent = performance.now() - started;
    if (spent < 1000) await sleep(1000 - spent);
  } while (cursor);
}

interface PhaseRow {
  phase: string;
  read: LightRead;
  idle: Latencies;
  loaded: Latencies;
  heavy: HeavyStats;
  seconds: number;
  /** CPU seconds the service (all its threads: the embedded database's too) and PostgreSQL's backends spent in the loaded part. */
  cpu: { service: number; database: number };
}

async function runOn(label: string, databaseUrl: string | undefined, database?: string): Promise<{ rows: PhaseRow[]; setup: string }> {
  const server = await startServerChild({
    root: SERVICE_ROOT,
    env: {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // The defaults: the heavy user works within its limits.
      RATE_LIMIT_API_KEY_PER_MINUTE: '1000',
      RATE_LIMIT_JWT_PER_MINUTE: '200',
      RATE_LIMIT_USER_PER_MINUTE: '3000',
    },
  });
  try {
    const heavyToken = await benchApiKey(server.url, 'fair-heavy');
    const lightToken = await benchApiKey(server.url, 'fair-light');
    const heavy = new ApiClient(server.url, heavyToken);
    const light = new ApiClient(server.url, lightToken);
    const seedStarted = performance.now();
    const bigBoard = await createBoard(heavy, 'fair-heavy');
    await seedBigBoard(heavy, bigBoard);
    const lightBoard = await createBoard(light, 'fair-light');
    const lightNodes = await seedNodes(light, lightBoard, 20, 4);
    const full = await heavy.timed('GET', `/v1/boards/${bigBoard}`, 200);
    const exported = await heavy.timed('GET', `/v1/boards/${bigBoard}/export?format=jsoncanvas`, 200);
    const setup = `${label}${SERVICE_ROOT ? ` (the service of ${SERVICE_ROOT})` : ''}: a board of ${NODES} notes of ${TEXT} characters seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s; its full read (GET /v1/boards/{id}) is ${(full.text.length / 1e6).toFixed(1)} MB, ${full.ms.toFixed(0)} ms alone; its export ${(exported.text.length / 1e6).toFixed(1)} MB, ${exported.ms.toFixed(0)} ms alone`;
    console.log(setup);
    // Warm-up.
    await lightLoop(server, lightToken, lightBoard, lightNodes, forSeconds(2));

    const rows: PhaseRow[] = [];
    const phases: [string, number, (stats: HeavyStats) => Promise<void>][] = (
      [
        [
          'board',
          `${EXPORT_LOOPS} concurrent full reads (GET board)`,
          EXPORT_LOOPS,
          (stats: HeavyStats) => boardOnce(server, heavyToken, bigBoard, stats),
        ],
        [
          'export',
          `${EXPORT_LOOPS} concurrent exports`,
          EXPORT_LOOPS,
          (stats: HeavyStats) => exportOnce(server, heavyToken, bigBoard, stats),
        ],
        [
          'mcp',
          `${MCP_LOOPS} concurrent MCP read_board loops`,
          MCP_LOOPS,
          (stats: HeavyStats) => mcpReadBoard(server, heavyToken, bigBoard, stats),
        ],
      ] as const
    )
      .filter(([name]) => PHASES.includes(name))
      .map(([, ...phase]) => phase);
    for (const [phase, loops, once] of phases) {
      const before = await lightLoop(server, lightToken, lightBoard, lightNodes, forSeconds(SECONDS / 2));
      const stop = { now: false };
      const stats: HeavyStats = { done: 0, refused: 0, bytes: 0, loopsDone: 0 };
      const running = heavyLoops(loops, once, stop, stats);
      await sleep(1000); // the heavy work under way
      // At least SECONDS, and until every heavy loop has read the board whole once (at most 5 minutes).
      const started = performance.now();
      const cpuStart = { service: server.cpuSeconds(), database: database ? databaseCpuSeconds(database) : 0 };
      const enough = forSeconds(SECONDS);
      const loaded = await lightLoop(
        server,
        lightToken,
        lightBoard,
        lightNodes,
        () => (enough() && stats.loopsDone >= loops) || performance.now() - started > 300_000,
      );
      const seconds = (performance.now() - started) / 1000;
      const cpu = {
        service: server.cpuSeconds() - cpuStart.service,
        database: database ? databaseCpuSeconds(database) - cpuStart.database : 0,
      };
      stop.now = true;
      await running;
      const after = await lightLoop(server, lightToken, lightBoard, lightNodes, forSeconds(SECONDS / 2));
      for (const read of LIGHT_READS) {
        const idle = {
          p50: (before[read].p50 + after[read].p50) / 2,
          p99: (before[read].p99 + after[read].p99) / 2,
          count: before[read].count + after[read].count,
        };
        const row = { phase, read, idle, loaded: loaded[read], heavy: stats, seconds, cpu };
        console.log(
          `${label} ${phase}, ${read}: idle p50 ${idle.p50.toFixed(1)} p99 ${idle.p99.toFixed(1)} ms; loaded p50 ${row.loaded.p50.toFixed(1)} p99 ${row.loaded.p99.toFixed(1)} ms (${row.loaded.count} reads in ${seconds.toFixed(0)} s); heavy ${stats.done} done, ${stats.refused} refused`,
        );
        rows.push(row);
      }
    }
    return { rows, setup };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const m = machine();
  const mode = serverMode();
  if (mode === 'dist' && !process.env.BENCH_NO_BUILD) buildServiceOnly(SERVICE_ROOT ?? ROOT);
  const adminUrl = process.env.BENCH_DATABASE_URL || undefined;
  let databaseUrl: string | undefined;
  let database = 'embedded database';
  if (adminUrl) {
    databaseUrl = await freshDatabase(adminUrl, 'bench_fair');
    database = `PostgreSQL ${await serverVersion(adminUrl)} (database bench_fair)`;
  }
  const started = Date.now();
  try {
    const { rows, setup } = await runOn(adminUrl ? 'postgres' : 'embedded', databaseUrl, adminUrl ? 'bench_fair' : undefined);
    const goals: Goal[] = rows.flatMap((r) => [
      {
        name: `${r.phase}, ${r.read}: p50`,
        target: '≤ 3× idle',
        measured: `${(r.loaded.p50 / r.idle.p50).toFixed(1)}×`,
        met: r.loaded.p50 <= 3 * r.idle.p50,
      },
      {
        name: `${r.phase}, ${r.read}: p99`,
        target: '≤ 5× idle',
        measured: `${(r.loaded.p99 / r.idle.p99).toFixed(1)}×`,
        met: r.loaded.p99 <= 5 * r.idle.p99,
      },
    ]);
    const md = [
      `Command: \`${adminUrl ? 'BENCH_DATABASE_URL=… ' : ''}npm run bench:fairness\`${mode === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s.`,
      `Machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}; load average ${m.loadAverage.toFixed(2)} at the start. Database: ${database}.`,
      setup,
      '',
      table(
        [
          'heavy user',
          'light read',
          'idle p50 / p99 (ms)',
          'under load p50 / p99 (ms)',
          'p50 ratio',
          'p99 ratio',
          'heavy reads done / refused',
          'CPU s under load: service / PostgreSQL',
        ],
        rows.map((r) => [
          r.phase,
          r.read,
          `${r.idle.p50.toFixed(1)} / ${r.idle.p99.toFixed(1)}`,
          `${r.loaded.p50.toFixed(1)} / ${r.loaded.p99.toFixed(1)} (${r.loaded.count} reads, ${r.seconds.toFixed(0)} s)`,
          `${(r.loaded.p50 / r.idle.p50).toFixed(1)}×`,
          `${(r.loaded.p99 / r.idle.p99).toFixed(1)}×`,
          `${r.heavy.done} / ${r.heavy.refused}`,
          `${r.cpu.service.toFixed(1)} / ${databaseUrl ? r.cpu.database.toFixed(1) : '–'}`,
        ]),
      ),
      '',
      goalsTable(goals),
    ].join('\n');
    console.log(`\n${md}\n`);
  } finally {
    if (adminUrl) await dropDatabase(adminUrl, 'bench_fair');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('benchmark failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
