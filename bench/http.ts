// HTTP throughput and latency of authenticated reads against the app's cheapest route.
// autocannon drives the server (a child process, see lib/server.ts) on loopback with 50 connections:
// GET /v1/ping (public, no database: the baseline), GET /healthz (public, one SELECT 1: what one
// database round trip costs), the single-node read and a 20-item node list, both with an API key,
// the same list while 4 more connections change notes on that page as fast as they can, or at
// BENCH_CHANGES_PER_SECOND (a read
// that is the first to show a change finds the board changed since the page was kept, unless the
// page was brought forward by the change; the bench counts those reads), and
// the same list on a second server with the list cache off (BOARD_LIST_CACHE_MB=0): every read from
// the database.
//
// The machine's speed drifts between seconds (a virtual machine's neighbours), so every route is
// measured in each of several rounds, one after the other, and a route's share of ping is the
// median over the rounds of its rate divided by ping's rate in the same round.
import autocannon from 'autocannon';
import { ApiClient, benchApiKey, createBoard, seedNodes } from './lib/api.js';
import { fmt, type Goal, goalsTable, median, table } from './lib/report.js';
import { databaseCpuSeconds, type ServerChild, startServerChild, type ServerOptions } from './lib/server.js';

const CONNECTIONS = 50;
const NODES_ON_BOARD = 100;

/** One route's load in one round. */
interface Sample {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Changes made to the board per second meanwhile (Target.changing). */
  changesPerSec?: number;
  /** The share of the reads that were the first to show a change. */
  firstAfterChange?: number;
  /** CPU time per request, in µs: the server process, the PostgreSQL backends (undefined on the embedded database), the load generator. */
  cpu: { server: number; database?: number; client: number };
}

export interface HttpRow {
  name: string;
  path: string;
  auth: boolean;
  /** One per round, in order. */
  samples: Sample[];
  /** Median over the rounds of the rate divided by ping's rate of the same round. */
  shareOfPing: number;
}

export interface HttpResult {
  rounds: number;
  rows: HttpRow[];
  goals: Goal[];
  markdown: string;
}

interface Target {
  name: string;
  server: ServerChild;
  path: string;
  /** The path as the report shows it (ids replaced by their names). */
  shown: string;
  token?: string;
  /** PATCH these nodes one after the other, on one connection, for as long as the route is measured. */
  changing?: string[];
}

/** Connections that change the board meanwhile (Target.changing): the reads' user shares the service with them. */
const WRITERS = 4;
/**
 * BENCH_CHANGES_PER_SECOND: the writers' pace (0, the default: as fast as they can, so a faster
 * write path takes more of the service from the reads); e.g. 20 for a board several people edit.
 */
const CHANGES_PER_SECOND = Number(process.env.BENCH_CHANGES_PER_SECOND ?? 0);

/**
 * Changes `nodes` of the target's board in turn, on WRITERS connections, each one request at a time,
 * until stopped; answers how many changes were made. Change n writes the text `change n`.
 */
function changeMeanwhile(target: Target, nodes: string[]): { stop(): Promise<number> } {
  const api = new ApiClient(target.server.url, target.token ?? '');
  const board = target.path.split('/')[3];
  let stopped = false;
  let next = 0;
  let made = 0;
  const started = performance.now();
  const writer = async () => {
    while (!stopped) {
      const n = next++;
      if (CHANGES_PER_SECOND > 0) {
        // Paced: change n is due n / rate seconds after the start, whichever writer makes it.
        const wait = started + (n / CHANGES_PER_SECOND) * 1000 - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (stopped) break;
      }
      await api.call('PATCH', `/v1/boards/${board}/nodes/${nodes[n % nodes.length]}`, { data: { text: `change ${n}` } }, 200);
      made++;
    }
  };
  const loops = Promise.all(Array.from({ length: WRITERS }, writer));
  return {
    async stop() {
      stopped = true;
      await loops;
      return made;
    },
  };
}

/**
 * Counts the reads that were the first to show a state of the board: each change writes a new
 * number, so a body whose numbers no earlier read showed is the first read after a change.
 */
function firstReads() {
  const seen = new Set<string>();
  return {
    onResponse(_status: number, body: string) {
      seen.add([...body.matchAll(/change (\d+)/g)].map((m) => m[1]).join(','));
    },
    get count() {
      return seen.size;
    },
  };
}

async function load(target: Target, seconds: number, onResponse?: (status: number, body: string) => void) {
  return autocannon({
    url: `${target.server.url}${target.path}`,
    ...(onResponse ? { requests: [{ method: 'GET', path: target.path, onResponse }] } : {}),
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
  });
}

async function measure(target: Target, seconds: number, database: string | undefined): Promise<Sample> {
  const server0 = target.server.cpuSeconds();
  const database0 = database === undefined ? 0 : databaseCpuSeconds(database);
  const client0 = process.cpuUsage();
  const writer = target.changing && changeMeanwhile(target, target.changing);
  const firsts = target.changing && firstReads();
  const r = await load(target, seconds, firsts ? firsts.onResponse : undefined);
  const changes = await writer?.stop();
  const client = process.cpuUsage(client0);
  const perRequest = (s: number) => (s * 1e6) / r.requests.total;
  return {
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    ...(changes === undefined ? {} : { changesPerSec: changes / r.duration, firstAfterChange: (firsts?.count ?? 0) / r.requests.total }),
    cpu: {
      server: perRequest(target.server.cpuSeconds() - server0),
      database: database === undefined ? undefined : perRequest(databaseCpuSeconds(database) - database0),
      client: perRequest((client.user + client.system) / 1e6),
    },
  };
}

/** A server with a board of NODES_ON_BOARD notes and an API key that reads it. */
async function seededServer(options: ServerOptions | undefined, name: string) {
  const server = await startServerChild(options);
  const token = await benchApiKey(server.url, name);
  const api = new ApiClient(server.url, token);
  const boardId = await createBoard(api, name);
  const nodeIds = await seedNodes(api, boardId, NODES_ON_BOARD, 8);
  return { server, token, boardId, nodeIds };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** Median CPU µs per request over `samples`: server / database / load generator. */
const cpuCell = (samples: Sample[]) =>
  (['server', 'database', 'client'] as const)
    .map((part) => {
      const values = samples.flatMap((s) => (s.cpu[part] === undefined ? [] : [s.cpu[part]!]));
      return values.length === 0 ? '–' : median(values).toFixed(0);
    })
    .join(' / ');

export async function runHttpBench(options: {
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  server?: ServerOptions;
  /** The PostgreSQL database the server runs on, whose backends' CPU time is measured; undefined on the embedded database. */
  database?: string;
}): Promise<HttpResult> {
  const main = await seededServer(options.server, 'bench-http');
  const uncached = await seededServer(
    {
      ...options.server,
      // Its profiles apart from the main server's: the list read from the database.
      cpuProfDir: options.server?.cpuProfDir === undefined ? undefined : `${options.server.cpuProfDir}/uncached`,
      env: { ...options.server?.env, BOARD_LIST_CACHE_MB: '0' },
    },
    'bench-http-uncached',
  ).catch(async (error) => {
    await main.server.stop();
    throw error;
  });
  try {
    const list = (s: typeof main) => `/v1/boards/${s.boardId}/nodes?limit=20`;
    const targets: Target[] = [
      { name: 'ping (public, no database)', server: main.server, path: '/v1/ping', shown: '/v1/ping' },
      {
        name: 'single node (API key)',
        server: main.server,
        path: `/v1/boards/${main.boardId}/nodes/${main.nodeIds[NODES_ON_BOARD >> 1]}`,
        shown: '/v1/boards/{boardId}/nodes/{id}',
        token: main.token,
      },
      {
        name: 'node list, 20 items (API key)',
        server: main.server,
        path: list(main),
        shown: '/v1/boards/{boardId}/nodes?limit=20',
        token: main.token,
      },
      {
        // Every change lands on the page read (the newest notes): on a kept page that does not follow
        // the board's changes, the first read after each is read from the database.
        name: 'node list, 20 items, the board changing meanwhile (API key)',
        server: main.server,
        path: list(main),
        shown: '/v1/boards/{boardId}/nodes?limit=20',
        token: main.token,
        changing: main.nodeIds.slice(-5),
      },
      {
        name: 'node list, 20 items, list cache off (API key)',
        server: uncached.server,
        path: list(uncached),
        shown: '/v1/boards/{boardId}/nodes?limit=20',
        token: uncached.token,
      },
      { name: 'healthz (public, SELECT 1)', server: main.server, path: '/healthz', shown: '/healthz' },
    ];

    // Each target answers what it should before any load is measured.
    for (const t of targets) {
      const body = await new ApiClient(t.server.url, t.token ?? '').call<{ data?: unknown[] }>('GET', t.path, undefined, 200);
      if (t.path.includes('?limit=20') && body.data?.length !== 20) throw new Error(`${t.name} gave ${body.data?.length} items, not 20`);
    }

    console.log(`warming up: ${options.warmupSeconds} s per route`);
    for (const t of targets) await load(t, options.warmupSeconds);

    const samples: Sample[][] = targets.map(() => []);
    for (let round = 1; round <= options.rounds; round++) {
      console.log(`round ${round} of ${options.rounds}: ${options.seconds} s per route`);
      for (const [i, t] of targets.entries()) {
        const s = await measure(t, options.seconds, options.database);
        samples[i]!.push(s);
        console.log(
          `  ${t.name}: ${fmt(s.reqPerSec)} req/s,${s.changesPerSec === undefined ? '' : ` ${fmt(s.changesPerSec)} changes/s, ${pct(s.firstAfterChange ?? 0)} of reads the first after a change,`} p50 ${s.p50} ms, p99 ${s.p99} ms, CPU µs/request ${cpuCell([s])}${s.non2xx || s.errors ? ` (${s.non2xx} non-2xx, ${s.errors} errors!)` : ''}`,
        );
      }
    }

    const ping = samples[0]!;
    const rows: HttpRow[] = targets.map((t, i) => ({
      name: t.name,
      path: t.shown,
      auth: t.token !== undefined,
      samples: samples[i]!,
      shareOfPing: median(samples[i]!.map((s, round) => s.reqPerSec / ping[round]!.reqPerSec)),
    }));
    const [, node, cachedList, changingList] = rows as [HttpRow, HttpRow, HttpRow, HttpRow, HttpRow, HttpRow];
    const clean = rows.every((r) => r.samples.every((s) => s.non2xx === 0 && s.errors === 0));
    const nodeP99 = median(node.samples.map((s) => s.p99));
    const goals: Goal[] = [
      {
        name: 'single-node read throughput vs ping (median of the rounds)',
        target: '>= 40%',
        measured: pct(node.shareOfPing),
        met: clean && node.shareOfPing >= 0.4,
      },
      { name: 'single-node read p99 (median of the rounds)', target: '< 25 ms', measured: `${nodeP99} ms`, met: clean && nodeP99 < 25 },
      {
        name: 'node list (20 items) throughput vs ping (median of the rounds)',
        target: '>= 25%',
        measured: pct(cachedList.shareOfPing),
        met: clean && cachedList.shareOfPing >= 0.25,
      },
      {
        name: 'node list (20 items) while the board changes, throughput vs ping (median of the rounds)',
        target: '>= 25%',
        measured: `${pct(changingList.shareOfPing)} (${fmt(median(changingList.samples.map((s) => s.changesPerSec ?? 0)))} changes/s, ${pct(median(changingList.samples.map((s) => s.firstAfterChange ?? 0)))} of reads the first after one)`,
        met: clean && changingList.shareOfPing >= 0.25,
      },
    ];
    const range = (values: number[]) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
    const markdown = [
      table(
        [
          'route',
          'auth',
          'req/s, median (range)',
          'share of ping, median (range)',
          'p50 / p99 ms, median',
          'requests',
          'non-2xx / errors',
          'CPU µs/request, median: server / database / load generator',
        ],
        rows.map((r) => {
          const shares = r.samples.map((s, round) => s.reqPerSec / ping[round]!.reqPerSec);
          return [
            `${r.name}: \`GET ${r.path}\`${r.samples[0]?.changesPerSec === undefined ? '' : `, ${fmt(median(r.samples.map((s) => s.changesPerSec ?? 0)))} changes/s, ${pct(median(r.samples.map((s) => s.firstAfterChange ?? 0)))} of reads the first after one (medians)`}`,
            r.auth ? 'API key' : 'none',
            `${fmt(median(r.samples.map((s) => s.reqPerSec)))} (${range(r.samples.map((s) => s.reqPerSec))})`,
            r === rows[0] ? '–' : `${pct(r.shareOfPing)} (${pct(Math.min(...shares))}–${pct(Math.max(...shares))})`,
            `${median(r.samples.map((s) => s.p50))} / ${median(r.samples.map((s) => s.p99))}`,
            fmt(r.samples.reduce((n, s) => n + s.requests, 0)),
            `${r.samples.reduce((n, s) => n + s.non2xx, 0)} / ${r.samples.reduce((n, s) => n + s.errors, 0)}`,
            cpuCell(r.samples),
          ];
        }),
      ),
      '',
      goalsTable(goals),
    ].join('\n');
    return { rounds: options.rounds, rows, goals, markdown };
  } finally {
    await Promise.all([main.server.stop(), uncached.server.stop()]);
  }
}
