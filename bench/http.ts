// Goal 1: HTTP throughput and latency of authenticated reads against the app's cheapest route.
// autocannon drives the server (a child process, see lib/server.ts) on loopback with 50 connections:
// GET /v1/ping (public, no database: the baseline), GET /healthz (public, one SELECT 1: what one
// database round trip costs), the single-node read and a 20-item node list, both with an API key.
import autocannon from 'autocannon';
import { ApiClient, benchApiKey, createBoard, seedNodes } from './lib/api.js';
import { fmt, type Goal, goalsTable, table } from './lib/report.js';
import { startServerChild, type ServerOptions } from './lib/server.js';

const CONNECTIONS = 50;
const NODES_ON_BOARD = 100;

export interface HttpRow {
  name: string;
  path: string;
  auth: boolean;
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface HttpResult {
  rows: HttpRow[];
  ratio: number;
  goals: Goal[];
  markdown: string;
}

interface Target {
  name: string;
  path: string;
  token?: string;
}

async function load(url: string, target: Target, seconds: number) {
  return autocannon({
    url: `${url}${target.path}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
  });
}

export async function runHttpBench(options: { seconds: number; warmupSeconds: number; server?: ServerOptions }): Promise<HttpResult> {
  const server = await startServerChild(options.server);
  try {
    const token = await benchApiKey(server.url, 'bench-http');
    const api = new ApiClient(server.url, token);
    const boardId = await createBoard(api, 'HTTP benchmark');
    const nodeIds = await seedNodes(api, boardId, NODES_ON_BOARD, 8);
    const targets: Target[] = [
      { name: 'ping (public, no database)', path: '/v1/ping' },
      { name: 'single node (API key)', path: `/v1/boards/${boardId}/nodes/${nodeIds[NODES_ON_BOARD >> 1]}`, token },
      { name: 'node list, 20 items (API key)', path: `/v1/boards/${boardId}/nodes?limit=20`, token },
      { name: 'healthz (public, SELECT 1)', path: '/healthz' },
    ];

    // Each target answers what it should before any load is measured.
    const list = await new ApiClient(server.url, token).call<{ data: unknown[] }>('GET', targets[2]!.path, undefined, 200);
    if (list.data.length !== 20) throw new Error(`the node list gave ${list.data.length} items, not 20`);
    for (const t of targets) await new ApiClient(server.url, t.token ?? '').call('GET', t.path, undefined, 200);

    console.log(`warming up: ${options.warmupSeconds} s per route`);
    for (const t of targets) await load(server.url, t, options.warmupSeconds);

    const rows: HttpRow[] = [];
    for (const t of targets) {
      const r = await load(server.url, t, options.seconds);
      const row: HttpRow = {
        name: t.name,
        path: t.path.replace(boardId, '{boardId}').replace(nodeIds[NODES_ON_BOARD >> 1]!, '{id}'),
        auth: t.token !== undefined,
        reqPerSec: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors,
      };
      rows.push(row);
      console.log(
        `  ${row.name}: ${fmt(row.reqPerSec)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms${row.non2xx || row.errors ? ` (${row.non2xx} non-2xx, ${row.errors} errors!)` : ''}`,
      );
    }
    const [ping, node] = rows as [HttpRow, HttpRow, HttpRow, HttpRow];
    const ratio = node.reqPerSec / ping.reqPerSec;
    const clean = rows.every((r) => r.non2xx === 0 && r.errors === 0);
    const goals: Goal[] = [
      {
        name: 'single-node read throughput vs ping',
        target: '>= 40%',
        measured: `${(ratio * 100).toFixed(1)}%`,
        met: clean && ratio >= 0.4,
      },
      { name: 'single-node read p99', target: '< 25 ms', measured: `${node.p99} ms`, met: clean && node.p99 < 25 },
    ];
    const markdown = [
      table(
        ['route', 'auth', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx / errors'],
        rows.map((r) => [
          `${r.name}: \`GET ${r.path}\``,
          r.auth ? 'API key' : 'none',
          fmt(r.reqPerSec),
          r.p50,
          r.p99,
          fmt(r.requests),
          `${r.non2xx} / ${r.errors}`,
        ]),
      ),
      '',
      goalsTable(goals),
    ].join('\n');
    return { rows, ratio, goals, markdown };
  } finally {
    await server.stop();
  }
}
