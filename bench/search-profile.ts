// The board search in the service's own process, without HTTP: what a search costs in CPU and in
// statements, on a database a `npm run bench:search` run left behind (PostgreSQL: its
// BENCH_DATABASE_URL; embedded: the directory of BENCH_SEARCH_KEEP_DATA). For the largest board
// (most live chunks) it runs warm-up claims, then the measured SciFact claims one at a time through
// searchChunksPage, as the route does, and reports:
//   - wall time per search (p50, p95), statements per search and the slowest statement's share;
//   - CPU per search: this process (every thread: on the embedded database PGlite's too) and, on
//     PostgreSQL, the database's backends (/proc), over the whole series;
//   - EXPLAIN (ANALYZE, BUFFERS) of every statement of the slowest searches (PROFILE_EXPLAIN).
// Run: npx tsx bench/search-profile.ts   (DATABASE_URL=… or DATA_DIR=…; PROFILE_QUERIES=200;
// PROFILE_EXPLAIN=1; PROFILE_EXACT_MAX=3000, the service's SEARCH_EXACT_MAX_CHUNKS; PROFILE_MODE=vector;
// PROFILE_NODE=1: filter on the board's note with the most chunks; PROFILE_COUNTS=1: the work of every
// search in counts, which a shared machine's load does not change: chunks scored, in all and per
// statement, buffers, the searches that scored the most with their terms' document frequencies, and
// how often each statement shape was planned again).
// PROFILE_RECALL=FILE: recall@10 of the measured searches against scoring every chunk, in process;
// the exact top 10 of each claim is computed once (slow: every chunk scored) and kept in FILE for the
// next runs on the same board.
// PROFILE_HTTP=1 then sends the same claims through HTTP, beside the exact scan (recall@10).
// PROFILE_LOAD=100000 first fills a new board in bench:search's `notes` shape without the jobs: the
// notes through the API (a server child on the same database, batches of 100), then each
// document's chunks written as its document_process job writes them (chunkPages, chunkVectors,
// insertChunks, the set made live with its term counts), in this process: the same rows, minutes
// sooner than the job queue on a loaded machine. Not a substitute for bench:search's figures.
import { Kysely, PostgresDialect, sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { searchChunksPage } from '../src/documents/search-service.js';
import { queryTermIds } from '../src/documents/lexical.js';
import { LOCAL_MODEL, localEmbedder } from '../src/providers/embeddings/embedder.js';
import type { SearchMode } from '../src/contract/documents.js';
import { databaseCpuSeconds, startServerChild } from './lib/server.js';
import { ApiClient, benchApiKey, createBoard } from './lib/api.js';
import { chunkPages } from '../src/documents/chunker.js';
import { chunkVectors, insertChunks } from '../src/documents/chunk-store.js';
import { setTermCounts } from '../src/documents/term-stats.js';
import { newId } from '../src/lib/ids.js';
import { realDocuments, type RealDocument } from './real-text.js';
import { loadClaims, recallAt10 } from './search-quality-data.js';
import fs from 'node:fs';
import os from 'node:os';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const QUERIES = Number(env('PROFILE_QUERIES', '200'));
const WARM_UP = 50;
const EXPLAIN = Number(env('PROFILE_EXPLAIN', '1'));
const EXACT_MAX = Number(env('PROFILE_EXACT_MAX', '3000'));
const MODE = env('PROFILE_MODE', 'vector') as SearchMode;
const CHUNKING = { size: 1000, overlap: 150 };
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = process.env.DATA_DIR;
if (!databaseUrl && !dataDir) throw new Error('set DATABASE_URL or DATA_DIR');

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};

interface Statement {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}

if (process.env.PROFILE_LOAD) await load(Number(process.env.PROFILE_LOAD));

async function load(target: number): Promise<void> {
  const server = await startServerChild({
    env: { ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), BOARD_MAX_NODES: '50000' },
    ...(dataDir ? { dataDir, keepDataDir: true } : {}),
  });
  const docs: (RealDocument & { id?: string })[] = [];
  let boardId: string;
  try {
    const api = new ApiClient(server.url, await benchApiKey(server.url, 'bench-search-profile'));
    boardId = await createBoard(api, `profile ${target}`);
    let planned = 0;
    for (const doc of realDocuments()) {
      if (planned >= target) break;
      docs.push(doc);
      planned += chunkPages([{ page: 1, text: doc.text.slice(0, 5_000_000) }], CHUNKING).length;
    }
    for (let i = 0; i < docs.length; i += 100) {
      const batch = docs.slice(i, i + 100);
      // A kept-alive connection the server has just closed fails the request: sent again once.
      const send = (body: unknown) => api.call<{ data: { results: { id: string }[] } }>('POST', `/v1/boards/${boardId}/batch`, body, 200);
      const body = {
        operations: batch.map((doc, k) => ({
          op: 'create_node',
          type: 'note',
          position: { x: ((i + k) % 100) * 320, y: Math.floor((i + k) / 100) * 240 },
          data: { label: doc.title.slice(0, 200), text: doc.text.slice(0, 280) },
        })),
      };
      const created = await send(body).catch(() => send(body));
      created.data.results.forEach((r, k) => {
        batch[k]!.id = r.id;
      });
    }
    console.log(`${docs.length} notes created (${planned} chunks planned)`);
  } finally {
    await server.stop({ keepData: true });
  }
  const loader = await openDatabase({ databaseUrl, dataDir: dataDir ?? '', databasePoolMax: 2 });
  const started = performance.now();
  let written = 0;
  for (const doc of docs) {
    const text = doc.text.slice(0, 5_000_000);
    const chunks = chunkPages([{ page: 1, text }], CHUNKING);
    const source = doc.title.slice(0, 200);
    const vectors = await chunkVectors(
      localEmbedder,
      chunks.map((c) => ({ content: c.content, source })),
    );
    const setId = newId();
    await loader.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('chunk_sets')
        .values({ id: setId, board_id: boardId, node_id: doc.id!, model: LOCAL_MODEL, state: 'writing', chunks: 0, created_at: new Date() })
        .execute();
      await insertChunks(
        trx,
        { setId, boardId, nodeId: doc.id!, model: LOCAL_MODEL, createdAt: new Date() },
        chunks.map((c, k) => ({
          content: c.content,
          metadata: {
            source,
            page: c.page,
            chunkIndex: c.chunkIndex,
            totalChunks: c.totalChunks,
            sourceType: 'note',
            char_start: c.charStart,
            char_end: c.charEnd,
          },
          ...vectors[k]!,
        })),
      );
      await trx
        .updateTable('chunk_sets')
        .set({ state: 'live', chunks: chunks.length, ...setTermCounts(setId) })
        .where('id', '=', setId)
        .execute();
    });
    written += chunks.length;
    if (written % 10_000 < chunks.length) console.log(`${written} chunks written, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await loader.close();
  console.log(`${written} chunks in ${docs.length} sets written in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const handle = await openDatabase({ databaseUrl, dataDir: dataDir ?? '', databasePoolMax: 4 });
let log: Statement[] = [];
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: handle.fairPool }),
  log: (event) => {
    log.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
  },
});

const { rows: boards } = await sql<{ board_id: string; chunks: number; sets: number; nodes: number }>`
  SELECT t.board_id, t.df AS chunks,
    (SELECT count(*)::int FROM chunk_sets s WHERE s.board_id = t.board_id AND s.state = 'live') AS sets,
    (SELECT node_count FROM boards b WHERE b.id = t.board_id) AS nodes
  FROM board_terms t WHERE t.term = 0 ORDER BY t.df DESC LIMIT 1`.execute(db);
const board = boards[0];
if (!board) throw new Error('no board with chunks');
let nodeIds: string[] | undefined;
if (process.env.PROFILE_NODE) {
  const { rows } = await sql<{ node_id: string }>`
    SELECT node_id FROM chunk_sets WHERE board_id = ${board.board_id} AND state = 'live' ORDER BY chunks DESC LIMIT 1`.execute(db);
  nodeIds = [rows[0]!.node_id];
}
console.log(
  `${databaseUrl ? 'PostgreSQL' : 'embedded'}: board ${board.board_id}, ${board.chunks} chunks, ${board.sets} live sets, ${board.nodes} nodes; mode ${MODE}${nodeIds ? ', one node' : ''}`,
);

const claims = loadClaims().map((c) => c.claim);
const deps = { db, embedder: localEmbedder, exactMaxChunks: EXACT_MAX };
const search = (query: string) => searchChunksPage(deps, board.board_id, query, { mode: MODE, limit: 10, nodeIds });
for (const query of claims.slice(QUERIES, QUERIES + WARM_UP)) await search(query);

const databaseName = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;
const runs: { query: string; ms: number; statements: Statement[]; ids: string[] }[] = [];
const cpu0 = process.cpuUsage();
const db0 = databaseName ? databaseCpuSeconds(databaseName) : 0;
const started = performance.now();
for (const query of claims.slice(0, QUERIES)) {
  log = [];
  const t = performance.now();
  const page = await search(query);
  runs.push({ query, ms: performance.now() - t, statements: log, ids: page.data.map((h) => h.id) });
}
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
const dbCpu = databaseName ? databaseCpuSeconds(databaseName) - db0 : 0;
const n = runs.length;
const latencies = runs.map((r) => r.ms);
const statements = runs.map((r) => r.statements.length);
const processMs = (cpu.user + cpu.system) / 1000 / n;
console.log(
  `${n} searches: p50 ${pct(latencies, 0.5).toFixed(2)} ms, p95 ${pct(latencies, 0.95).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms; ` +
    `statements per search ${Math.min(...statements)}–${Math.max(...statements)} (mean ${(statements.reduce((a, b) => a + b, 0) / n).toFixed(2)})`,
);
console.log(
  `CPU per search: this process ${processMs.toFixed(2)} ms${databaseName ? `, PostgreSQL backends ${((dbCpu * 1000) / n).toFixed(2)} ms` : ' (PGlite included)'}; wall ${(wall / n).toFixed(2)} ms`,
);
// Each statement position's share of the time (statement 1 is the board's counts and statistics).
const positions = new Map<number, number[]>();
for (const r of runs) r.statements.forEach((s, i) => positions.set(i, [...(positions.get(i) ?? []), s.ms]));
for (const [i, times] of positions)
  console.log(
    `  statement ${i + 1}: ${times.length} searches, p50 ${pct(times, 0.5).toFixed(2)} ms, p95 ${pct(times, 0.95).toFixed(2)} ms`,
  );

// The measured searches' statements are kept; what runs after them is not logged into the last one's.
log = [];
if (process.env.PROFILE_RECALL) await recall(process.env.PROFILE_RECALL);
if (process.env.PROFILE_COUNTS) await workCounts();

/** PROFILE_RECALL=FILE: the measured searches' first 10 against scoring every chunk (kept in FILE once computed). */
async function recall(file: string): Promise<void> {
  type Kept = { board: string; mode: SearchMode; nodeIds: string[] | null; exact: Record<string, string[]> };
  let kept: Kept | undefined = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Kept) : undefined;
  if (kept && (kept.board !== board!.board_id || kept.mode !== MODE || JSON.stringify(kept.nodeIds) !== JSON.stringify(nodeIds ?? null)))
    throw new Error(`${file} holds another search's exact results`);
  kept ??= { board: board!.board_id, mode: MODE, nodeIds: nodeIds ?? null, exact: {} };
  const exactDeps = { ...deps, exactMaxChunks: 1_000_000_000 };
  let computed = 0;
  for (const run of runs) {
    if (kept.exact[run.query]) continue;
    const page = await searchChunksPage(exactDeps, board!.board_id, run.query, { mode: MODE, limit: 10, nodeIds });
    kept.exact[run.query] = page.data.map((h) => h.id);
    computed++;
  }
  if (computed > 0) fs.writeFileSync(file, JSON.stringify(kept));
  const misses = runs.filter((r) => kept.exact[r.query]!.some((id) => !r.ids.includes(id))).length;
  console.log(
    `recall@10 against scoring every chunk: ${recallAt10(
      runs.map((r) => r.ids),
      runs.map((r) => kept.exact[r.query]!),
    ).toFixed(4)} (${misses} of ${runs.length} searches miss a chunk; ${computed} exact rankings computed now, the rest read from ${file})`,
  );
}

/**
 * PROFILE_COUNTS=1: every measured search's statements explained again (EXPLAIN ANALYZE, a custom
 * plan): the chunks the term-index lookups scored (the rows of their bitmap heap scans) and the
 * buffers each search touched; then the service's named statements with their generic and custom
 * plan counts on the connection that answers (on PostgreSQL one of the pool's; a shape planned again
 * on every run shows custom plans only).
 */
async function workCounts(): Promise<void> {
  type PlanNode = { 'Node Type': string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] };
  type Explained = { Plan: PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } };
  const scoredIn = (n: PlanNode): number =>
    (n['Node Type'] === 'Bitmap Heap Scan' ? n['Actual Rows'] * n['Actual Loops'] : 0) +
    (n.Plans ?? []).reduce((sum, c) => sum + scoredIn(c), 0);
  const scored: number[] = [];
  const buffers: number[] = [];
  const byStatement = new Map<number, number[]>();
  const perRun: { query: string; rows: number; split: number[] }[] = [];
  for (const run of runs) {
    let rows = 0;
    let touched = 0;
    const split: number[] = [];
    for (const [i, s] of run.statements.entries()) {
      const { rows: out } = await handle.pool.query<{ 'QUERY PLAN': Explained[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.sql}`, [
        ...s.parameters,
      ]);
      const plan = out[0]!['QUERY PLAN'][0]!.Plan;
      byStatement.set(i, [...(byStatement.get(i) ?? []), scoredIn(plan)]);
      split.push(scoredIn(plan));
      rows += scoredIn(plan);
      touched += plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
    }
    scored.push(rows);
    buffers.push(touched);
    perRun.push({ query: run.query, rows, split });
  }
  // The searches that scored the most: their query terms' document frequencies.
  for (const r of [...perRun].sort((a, b) => b.rows - a.rows).slice(0, 12)) {
    const ids = queryTermIds(r.query);
    const { rows: st } = await sql<{
      term: number;
      df: number;
    }>`SELECT term, df FROM board_terms WHERE board_id = ${board!.board_id} AND term = ANY(${ids}::int4[]) ORDER BY df`.execute(db);
    console.log(`  ${r.rows} scored (${r.split.join(' + ')}): dfs ${st.map((t) => t.df).join(' ')}: ${r.query.slice(0, 90)}`);
  }
  const summary = (v: number[]) =>
    `mean ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(0)}, p50 ${pct(v, 0.5)}, p95 ${pct(v, 0.95)}, max ${Math.max(...v)}`;
  console.log(`chunks scored per search: ${summary(scored)}; buffers per search: ${summary(buffers)}`);
  for (const [i, v] of byStatement)
    console.log(`  statement ${i + 1}: chunks scored ${summary(v)} (over the ${v.length} searches that ran it)`);
  const { rows: kept } = await sql<{ generic: number; custom: number; statement: string }>`
    SELECT generic_plans::int AS generic, custom_plans::int AS custom, statement FROM pg_prepared_statements
    WHERE statement LIKE '%document_chunks%' ORDER BY generic_plans + custom_plans DESC LIMIT 10`.execute(db);
  for (const k of kept) console.log(`  plans: generic ${k.generic}, custom ${k.custom}: ${k.statement.replace(/\s+/g, ' ').slice(0, 120)}`);
}

const slowest = [...runs].sort((a, b) => b.ms - a.ms).slice(0, EXPLAIN);
for (const run of slowest) {
  console.log(`\n=== ${run.ms.toFixed(2)} ms: ${run.query}`);
  for (const s of run.statements) {
    const { rows } = await handle.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, [...s.parameters]);
    console.log(`--- statement (${s.ms.toFixed(2)} ms in the run)\n${s.sql.replace(/\s+/g, ' ').slice(0, 600)}`);
    for (const row of rows) console.log(row['QUERY PLAN']);
  }
}
await db.destroy().catch(() => {});
await handle.close().catch(() => {});
if (process.env.PROFILE_HTTP) await throughHttp();
process.exit(0);

/**
 * PROFILE_HTTP=1: the same claims through HTTP, as bench:search sends them (a server child on this
 * database, 50 warm-up claims, then the measured ones one at a time), then the server restarted
 * with SEARCH_EXACT_MAX_CHUNKS above the board's size: recall@10 against scoring every chunk, and
 * that scan's latency. Only boards of the profile's user (PROFILE_LOAD) can be searched.
 */
async function throughHttp(): Promise<void> {
  const serve = (extra: Record<string, string>) =>
    startServerChild({
      env: { ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), BOARD_MAX_NODES: '50000', ...extra },
      ...(dataDir ? { dataDir, keepDataDir: true } : {}),
    });
  const series = async (server: Awaited<ReturnType<typeof serve>>) => {
    const api = new ApiClient(server.url, await benchApiKey(server.url, 'bench-search-profile'));
    const body = (query: string) => ({ query, limit: 10, mode: MODE, ...(nodeIds ? { node_ids: nodeIds } : {}) });
    const route = `/v1/boards/${board!.board_id}/documents/search`;
    for (const query of claims.slice(QUERIES, QUERIES + WARM_UP)) await api.call('POST', route, body(query), 200);
    const out = { latencies: [] as number[], ids: [] as string[][] };
    for (const query of claims.slice(0, QUERIES)) {
      const t = performance.now();
      const res = await api.call<{ data: { id: string }[] }>('POST', route, body(query), 200);
      out.latencies.push(performance.now() - t);
      out.ids.push(res.data.map((h) => h.id));
    }
    await server.stop({ keepData: true });
    return out;
  };
  const load = () => os.loadavg()[0]!.toFixed(1);
  const loadBefore = load();
  const indexed = await series(await serve({}));
  const loadBetween = load();
  const exact = await series(await serve({ SEARCH_EXACT_MAX_CHUNKS: '10000000' }));
  const f = (v: number[]) => `p50 ${pct(v, 0.5).toFixed(1)} ms, p95 ${pct(v, 0.95).toFixed(1)} ms`;
  console.log(
    `HTTP (load ${loadBefore}, ${loadBetween}, ${load()}): search ${f(indexed.latencies)}; recall@10 ${recallAt10(indexed.ids, exact.ids).toFixed(3)} against scoring every chunk, ${f(exact.latencies)}`,
  );
}
