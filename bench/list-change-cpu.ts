// CPU per request of a 20-node list read while the board changes (issue 32), by fixed amounts of
// work rather than by rates under load: the same requests on the same data cost the server (and the
// PostgreSQL backends) so many µs each, whatever else the machine does meanwhile. Two checkouts run
// side by side (this one and, with BENCH_BASE_ROOT, another: the code before), each as its own
// server on a board of 100 notes like bench/http.ts.
//
//   npx tsx bench/list-change-cpu.ts                    embedded database
//   BENCH_DATABASE_URL=… npx tsx bench/list-change-cpu.ts   PostgreSQL (a database of its own per checkout: …_a, …_b)
//   BENCH_BASE_ROOT=/path/to/other/checkout             also measure that checkout's sources
//
// Phases, each a fixed amount of work: `hit` (LIST_READS reads of an unchanged board, 50 in flight),
// `write` (WRITES node edits on the page read, 4 writers), `mixed` (the same edits while 50
// connections make LIST_READS reads: each read's share of the writes is counted in its CPU), and
// `edges` (the same mixed phase on the edge list, its edges' data edited).
import autocannon from 'autocannon';
import { ApiClient, benchApiKey, createBoard, runBounded, seedNodes } from './lib/api.js';
import { databaseCpuSeconds, ROOT, startServerChild, type ServerChild } from './lib/server.js';
import { freshDatabase } from './lib/postgres.js';

const READS = Number(process.env.BENCH_LIST_READS ?? 6000);
const WRITES = Number(process.env.BENCH_WRITES ?? 300);
const WRITERS = 4;
const CONNECTIONS = 50;

interface Measured {
  server: number;
  database: number | undefined;
}

async function reads(server: ServerChild, path: string, token: string, amount: number): Promise<void> {
  const r = await autocannon({
    url: `${server.url}${path}`,
    connections: CONNECTIONS,
    pipelining: 1,
    amount,
    headers: { authorization: `Bearer ${token}` },
  });
  if (r.non2xx || r.errors) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
}

/** `count` edits, WRITERS at a time. */
async function writes(count: number, write: (n: number) => Promise<unknown>): Promise<void> {
  await runBounded(count, WRITERS, write);
}

async function cpu(server: ServerChild, database: string | undefined, work: () => Promise<unknown>): Promise<Measured> {
  const s0 = server.cpuSeconds();
  const d0 = database === undefined ? 0 : databaseCpuSeconds(database);
  await work();
  return {
    server: server.cpuSeconds() - s0,
    database: database === undefined ? undefined : databaseCpuSeconds(database) - d0,
  };
}

const per = (m: Measured, n: number) =>
  `${((m.server * 1e6) / n).toFixed(0)}${m.database === undefined ? '' : ` / ${((m.database * 1e6) / n).toFixed(0)}`}`;

async function measureCheckout(root: string, label: string, databaseUrl: string | undefined): Promise<Record<string, string>> {
  const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
  const database = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : undefined;
  const server = await startServerChild({ root, env });
  try {
    const token = await benchApiKey(server.url, `cpu-${label}`);
    const api = new ApiClient(server.url, token);
    const boardId = await createBoard(api, `cpu-${label}`);
    const nodeIds = await seedNodes(api, boardId, 100, 8);
    const edgeIds = await runBounded(40, 8, async (k) => {
      const body = { source_node_id: nodeIds[k]!, target_node_id: nodeIds[99 - k]!, type: 'default', data: { label: `edge ${k}` } };
      return (await api.call<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/edges`, body, 201)).data.id;
    });
    const nodes = `/v1/boards/${boardId}/nodes?limit=20`;
    const edges = `/v1/boards/${boardId}/edges?limit=20`;
    const onPage = nodeIds.slice(-5);
    const edgesOnPage = edgeIds.slice(-5);
    const editNode = (n: number) =>
      api.call('PATCH', `/v1/boards/${boardId}/nodes/${onPage[n % onPage.length]}`, { data: { text: `change ${n}` } }, 200);
    const editEdge = (n: number) =>
      api.call('PATCH', `/v1/boards/${boardId}/edges/${edgesOnPage[n % edgesOnPage.length]}`, { data: { label: `change ${n}` } }, 200);

    // Warm-up: the JIT, the pools, the prepared statements.
    await reads(server, nodes, token, 2000);
    await reads(server, edges, token, 1000);
    await writes(100, editNode);

    const hit = await cpu(server, database, () => reads(server, nodes, token, READS));
    const write = await cpu(server, database, () => writes(WRITES, editNode));
    const mixed = await cpu(server, database, () => Promise.all([reads(server, nodes, token, READS), writes(WRITES, editNode)]));
    const edgeWrite = await cpu(server, database, () => writes(WRITES, editEdge));
    const edgeMixed = await cpu(server, database, () => Promise.all([reads(server, edges, token, READS), writes(WRITES, editEdge)]));
    return {
      'node list, board unchanged: per read': per(hit, READS),
      'node edit alone: per edit': per(write, WRITES),
      [`node list while ${WRITES} edits: per read (edits included)`]: per(mixed, READS),
      'the same less the edits alone: per read': per(
        { server: mixed.server - write.server, database: mixed.database && mixed.database - write.database! },
        READS,
      ),
      'edge edit alone: per edit': per(edgeWrite, WRITES),
      [`edge list while ${WRITES} edits: per read (edits included)`]: per(edgeMixed, READS),
      'the same less the edits alone: per read ': per(
        { server: edgeMixed.server - edgeWrite.server, database: edgeMixed.database && edgeMixed.database - edgeWrite.database! },
        READS,
      ),
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const base = process.env.BENCH_BASE_ROOT;
  const pg = process.env.BENCH_DATABASE_URL || undefined;
  const checkouts: [string, string][] = [['this', ROOT], ...(base ? [['base', base] as [string, string]] : [])];
  const results: Record<string, Record<string, string>> = {};
  for (const [label, root] of checkouts) {
    const url = pg ? await freshDatabase(pg, `${new URL(pg).pathname.slice(1)}_${label}`) : undefined;
    console.log(`measuring ${label} (${root})…`);
    results[label] = await measureCheckout(root, label, url);
  }
  const rows = Object.keys(results.this!);
  console.log(
    `\nCPU µs per request, server${pg ? ' / PostgreSQL' : ''} (${READS} reads, ${WRITES} edits by ${WRITERS} writers, ${CONNECTIONS} readers in flight)`,
  );
  console.log(`| measure | ${checkouts.map(([l]) => l).join(' | ')} |`);
  console.log(`| --- | ${checkouts.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.trim()} | ${checkouts.map(([l]) => results[l]![row]).join(' | ')} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
