// Search and background-job benchmark through the public HTTP API of the built server running as
// a child process:
//   1. for each size (default 10,000 and 100,000 chunks) a board is filled through the API, in one
//      of two shapes (BENCH_SEARCH_SHAPE):
//      - `notes` (the default): one note per document, as people load a corpus: every SciFact
//        abstract and then this machine's manual pages (bench/real-text.ts), each a note (label its
//        title) created 100 at a time (POST …/batch) and vectorized 100 at a time (POST
//        …/documents/batch, a 429 sent again a second later): about 10,000 notes and chunk sets
//        at 100,000 chunks;
//      - `large`: a few notes of up to 5,000,000 characters each (the API's limit; about 6,700
//        chunks per note), the same documents joined.
//      The text is `real` by default; `topical` and `uniform` are synthetic (bench/search-text.ts);
//   2. while the document_process jobs run, an unrelated GET /v1/boards/{otherBoard} is timed in a
//      loop (p50, p99, max), and the jobs' duration is reported;
//   3. then (on PostgreSQL once autovacuum has done with the new rows) search latency (p50, p95)
//      for SciFact claims as queries, limit 10, over the whole board and with a one-node filter
//      (the note with the most chunks);
//   4. the server is restarted on the same DATA_DIR with SEARCH_EXACT_MAX_CHUNKS=0 (the index
//      forced) for the one-node searches, then with it above the board sizes, so the same queries are
//      answered by an exact scan of the same data: recall@10 of the searches against it.
// Run: npm run bench:search   (BENCH_SEARCH_SIZES=10000,100000; BENCH_SEARCH_QUERIES=200;
// BENCH_SEARCH_DEADLINE_MIN=120; BENCH_SEARCH_SHAPE=notes; BENCH_SEARCH_TEXT=real;
// BENCH_DATABASE_URL: a PostgreSQL database to run the server on instead of the embedded one,
// emptied first; BENCH_SEARCH_KEEP_DATA=DIR: copy the embedded data directory there at the end, for
// bench/search-profile.ts). Writes bench/results/search.md and .json.
// Loaded once, measured again in minutes: filling 100,000 chunks in the `notes` shape queues about
// 25,000 document jobs (most of an hour). Two settings keep the loaded board and skip steps 1–2 when
// it is there (a board named `search N` of the bench's user, or `profile N` of search-profile.ts's
// PROFILE_LOAD, holding at least N chunks), so that only the searches, the restarts and the exact
// scans run:
//   - BENCH_SEARCH_DATA=DIR: the embedded database in DIR, used in place and never removed (a new
//     DIR is created and filled, then kept; a directory kept by BENCH_SEARCH_KEEP_DATA works too).
//     The run writes to it (migrations, an API key, the small second board): copy it first to keep
//     one untouched.
//   - BENCH_SEARCH_REUSE=1 with BENCH_DATABASE_URL: the database is not emptied; a board that is
//     not there yet is filled and stays for the next run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkPages } from '../src/documents/chunker.js';
import { ApiClient, benchApiKey, createBoard, runBounded } from './lib/api.js';
import { fmt, machine, table } from './lib/report.js';
import { buildServer, ROOT, serverMode, startServerChild } from './lib/server.js';
import { autovacuumSettled, emptyDatabase, serverVersion } from './lib/postgres.js';
import { loadClaims, recallAt10 } from './search-quality-data.js';
import { RealText, realDocuments, type RealDocument } from './real-text.js';
import { TextGenerator, type TextKind } from './search-text.js';

const setting = (name: string, fallback: string) =>
  process.env[name] === undefined || process.env[name] === '' ? fallback : process.env[name]!;
const SIZES = setting('BENCH_SEARCH_SIZES', '10000,100000').split(',').map(Number);
const QUERIES = Number(setting('BENCH_SEARCH_QUERIES', '200'));
const DEADLINE_MIN = Number(setting('BENCH_SEARCH_DEADLINE_MIN', '120'));
const TEXT = setting('BENCH_SEARCH_TEXT', 'real') as TextKind | 'real';
if (TEXT !== 'real' && TEXT !== 'topical' && TEXT !== 'uniform') throw new Error('BENCH_SEARCH_TEXT must be real, topical or uniform');
const SHAPE = setting('BENCH_SEARCH_SHAPE', 'notes');
if (SHAPE !== 'notes' && SHAPE !== 'large') throw new Error('BENCH_SEARCH_SHAPE must be notes or large');
const DATABASE_URL = setting('BENCH_DATABASE_URL', '');
const KEEP_DATA = setting('BENCH_SEARCH_KEEP_DATA', '');
const DATA = setting('BENCH_SEARCH_DATA', '');
const REUSE = DATA !== '' || setting('BENCH_SEARCH_REUSE', '') === '1';
if (DATA && DATABASE_URL)
  throw new Error('BENCH_SEARCH_DATA is an embedded data directory: with BENCH_DATABASE_URL use BENCH_SEARCH_REUSE=1');
if (REUSE && !DATA && !DATABASE_URL)
  throw new Error('BENCH_SEARCH_REUSE=1 reuses the database of BENCH_DATABASE_URL (embedded: BENCH_SEARCH_DATA=DIR)');
/** The bench's user, and search-profile.ts's (PROFILE_LOAD), whose loaded boards a reusing run searches too. */
const OWNERS = [
  { subject: 'bench-search', board: (target: number) => `search ${target}` },
  { subject: 'bench-search-profile', board: (target: number) => `profile ${target}` },
];
/** The server's defaults, which the bench uses to know how many chunks a text makes. */
const CHUNKING = { size: 1000, overlap: 150 };
const MAX_TEXT = 5_000_000;
/** Notes and documents per batch request (the API's most), and the text one documents batch carries at most (its body limit is 10 MiB). */
const BATCH = 100;
const BATCH_CHARS = 4_000_000;
/**
 * The `notes` shape's one setting off the defaults: 100,000 chunks of abstracts and manual pages
 * take more notes than a board's default bound (BOARD_MAX_NODES, 10,000).
 */
const NOTES_ENV: Record<string, string> = SHAPE === 'notes' ? { BOARD_MAX_NODES: '50000' } : {};
/** What a note shows of its document (the whole text is what is vectorized). */
const EXCERPT = 280;

const deadline = setTimeout(() => {
  console.error(`the benchmark ran over ${DEADLINE_MIN} minutes; stopping`);
  process.exit(1);
}, DEADLINE_MIN * 60_000);
deadline.unref();

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};
const ms = (v: number) => fmt(v, 1);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

interface Searched {
  latencies: number[];
  ids: string[][];
}

/** Searches made before each measured series, with claims that are not measured. */
const WARM_UP = 50;
let warmUp: string[] = [];

async function searchAll(api: ApiClient, board: string, queries: string[], nodeIds?: string[]): Promise<Searched> {
  const body = (query: string) => ({ query, limit: 10, ...(nodeIds ? { node_ids: nodeIds } : {}) });
  // Warm-up on other claims than the measured ones: a server in its steady state, not one whose
  // caches hold the very answers.
  for (const query of warmUp) await api.call('POST', `/v1/boards/${board}/documents/search`, body(query), 200);
  const out: Searched = { latencies: [], ids: [] };
  for (const query of queries) {
    const started = performance.now();
    const res = await api.call<{ data: { id: string }[] }>('POST', `/v1/boards/${board}/documents/search`, body(query), 200);
    out.latencies.push(performance.now() - started);
    out.ids.push(res.data.map((h) => h.id));
  }
  return out;
}

interface SizeResult {
  target: number;
  board: string;
  chunks: number;
  nodes: { id: string; chunks: number }[];
  filterNode: { id: string; chunks: number };
  /** How the board was filled; absent for a board a previous run loaded (BENCH_SEARCH_DATA, BENCH_SEARCH_REUSE). */
  ingest?: {
    submitSeconds: number;
    jobSeconds: number;
    get: { count: number; p50: number; p99: number; max: number };
    loadDuringJobs: string;
  };
  /** The API key of the board's owner. */
  token: string;
  /** The 1-minute load average at the start and the end of the two measured series. */
  searchLoad: string;
  indexed: Searched;
  indexedFiltered: Searched;
  forcedFiltered?: Searched;
  exact?: Searched;
  exactFiltered?: Searched;
}

type Filled = { nodes: { id: string; chunks: number }[]; jobs: string[]; planned: number };

/** Sends a request, sent again a second after a 429 (the per-user bound on queued jobs) until it is taken. */
// biome-ignore lint/suspicious/noExplicitAny: the bench reads bodies it knows the shape of
async function send<T = any>(api: ApiClient, method: string, route: string, body: unknown, expected: number): Promise<T> {
  for (;;) {
    try {
      return await api.call<T>(method, route, body, expected);
    } catch (error) {
      const refused = error instanceof Error && / got 429: /.test(error.message);
      if (!refused) throw error;
      retried++;
      await sleep(1000);
    }
  }
}
let retried = 0;

/** `large`: a few notes of up to MAX_TEXT characters, each vectorized by one request. */
async function fillLarge(api: ApiClient, board: string, target: number, generator: RealText | TextGenerator): Promise<Filled> {
  const nodes: { id: string; chunks: number }[] = [];
  const jobs: string[] = [];
  let planned = 0;
  while (planned < target) {
    // About 750 characters of new text per chunk (1,000 minus the overlap): aim at the target.
    const text = generator.text(Math.min(MAX_TEXT, (target - planned) * 750 + 2000));
    if (text === '') throw new Error(`the ${TEXT} text ran out at ${planned} chunks`);
    const chunks = chunkPages([{ page: 1, text }], CHUNKING).length;
    const node = await api.call<{ data: { id: string } }>(
      'POST',
      `/v1/boards/${board}/nodes`,
      { type: 'note', position: { x: nodes.length, y: 0 }, data: { label: `Document ${nodes.length}`, text: 'long document' } },
      201,
    );
    const job = await send<{ data: { id: string } }>(api, 'POST', `/v1/boards/${board}/documents`, { text, node_id: node.data.id }, 202);
    nodes.push({ id: node.data.id, chunks });
    jobs.push(job.data.id);
    planned += chunks;
  }
  return { nodes, jobs, planned };
}

/**
 * `notes`: one note per document (label its title, text its beginning), created BATCH at a time,
 * then the batch's documents vectorized in one request, until the documents' chunks reach `target`.
 */
async function fillNotes(api: ApiClient, board: string, target: number, documents: Iterator<RealDocument>): Promise<Filled> {
  const out: Filled = { nodes: [], jobs: [], planned: 0 };
  while (out.planned < target) {
    const batch: (RealDocument & { chunks: number })[] = [];
    let chars = 0;
    while (batch.length < BATCH && out.planned < target) {
      const next = documents.next();
      if (next.done) {
        if (batch.length === 0) throw new Error(`the ${TEXT} text ran out at ${out.planned} chunks`);
        break;
      }
      const text = next.value.text.slice(0, MAX_TEXT);
      if (batch.length > 0 && chars + text.length > BATCH_CHARS) {
        pendingDocument = next.value;
        break;
      }
      const chunks = chunkPages([{ page: 1, text }], CHUNKING).length;
      batch.push({ title: next.value.title, text, chunks });
      chars += text.length;
      out.planned += chunks;
    }
    if (batch.length === 0) break;
    const first = out.nodes.length;
    const created = await send<{ data: { results: { id: string }[] } }>(
      api,
      'POST',
      `/v1/boards/${board}/batch`,
      {
        operations: batch.map((doc, i) => ({
          op: 'create_node',
          type: 'note',
          position: { x: ((first + i) % 100) * 320, y: Math.floor((first + i) / 100) * 240 },
          data: { label: doc.title.slice(0, 200), text: doc.text.slice(0, EXCERPT) },
        })),
      },
      200,
    );
    const ids = created.data.results.map((r) => r.id);
    const queued = await send<{ data: { id: string }[] }>(
      api,
      'POST',
      `/v1/boards/${board}/documents/batch`,
      { documents: batch.map((doc, i) => ({ text: doc.text, node_id: ids[i] })) },
      202,
    );
    batch.forEach((doc, i) => out.nodes.push({ id: ids[i]!, chunks: doc.chunks }));
    out.jobs.push(...queued.data.map((j) => j.id));
  }
  return out;
}

/** A document put back by fillNotes (it did not fit its batch), served first by the next call. */
let pendingDocument: RealDocument | undefined;

/** The documents of the `notes` shape: the real ones, or synthetic texts of about ten chunks. */
function* noteDocuments(generator: RealText | TextGenerator): Generator<RealDocument> {
  const source = TEXT === 'real' ? realDocuments() : undefined;
  for (let i = 0; ; i++) {
    if (pendingDocument) {
      const held = pendingDocument;
      pendingDocument = undefined;
      yield held;
      continue;
    }
    if (source) {
      const next = source.next();
      if (next.done) return;
      yield next.value;
    } else {
      const text = generator.text(7500);
      if (text === '') return;
      yield { title: `Document ${i}`, text };
    }
  }
}

/** The id of the caller's board of that name, if any (the newest). */
async function findBoard(api: ApiClient, name: string): Promise<string | undefined> {
  const boards = await api.call<{ data: { id: string; name: string }[] }>('GET', '/v1/boards?limit=100', undefined, 200);
  return boards.data.find((b) => b.name === name)?.id;
}

/**
 * A board of `target` chunks a previous run loaded (BENCH_SEARCH_DATA, BENCH_SEARCH_REUSE): its
 * owner's API key, and its nodes' chunk counts (the documents' node index). Throws on a board that
 * holds fewer (a fill that was stopped: remove it, or the data, and load again).
 */
async function loadedBoard(
  url: string,
  target: number,
): Promise<{ token: string; board: string; nodes: { id: string; chunks: number }[] } | undefined> {
  for (const owner of OWNERS) {
    const token = await benchApiKey(url, owner.subject);
    const api = new ApiClient(url, token);
    const board = await findBoard(api, owner.board(target));
    if (!board) continue;
    const index = await api.call<{ data: { node_id: string; chunks: number }[] }>(
      'GET',
      `/v1/boards/${board}/documents/nodes`,
      undefined,
      200,
    );
    const nodes = index.data.map((n) => ({ id: n.node_id, chunks: n.chunks }));
    const chunks = nodes.reduce((sum, n) => sum + n.chunks, 0);
    if (chunks < target)
      throw new Error(
        `board ${board} (${owner.board(target)}) holds ${fmt(chunks)} chunks, fewer than ${fmt(target)}: a fill that did not finish`,
      );
    return { token, board, nodes };
  }
  return undefined;
}

async function main(): Promise<void> {
  const m = machine();
  const startedAt = Date.now();
  console.log(`machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}; load average ${load()}`);
  if (serverMode() === 'dist') buildServer();
  const claims = loadClaims().map((c) => c.claim);
  const queries = claims.slice(0, QUERIES);
  warmUp = claims.slice(QUERIES, QUERIES + WARM_UP);
  const generator = TEXT === 'real' ? new RealText() : new TextGenerator(42, TEXT);
  const documents = noteDocuments(generator);
  if (DATABASE_URL && !REUSE) await emptyDatabase(DATABASE_URL);
  const env: Record<string, string> = { ...(DATABASE_URL ? { DATABASE_URL } : {}), ...NOTES_ENV };
  // A reused data directory is never removed, whatever way the bench ends.
  const serve = (extra: Record<string, string> = {}, dataDir: string | undefined = DATA || undefined) =>
    startServerChild({ env: { ...env, ...extra }, ...(dataDir ? { dataDir, keepDataDir: DATA !== '' } : {}) });

  let server = await serve();
  const dataDir = server.dataDir;
  const token = await benchApiKey(server.url, OWNERS[0]!.subject);
  const api = new ApiClient(server.url, token);
  const otherName = 'unrelated board';
  let other = REUSE ? await findBoard(api, otherName) : undefined;
  if (!other) {
    other = await createBoard(api, otherName);
    for (let i = 0; i < 20; i++)
      await api.call('POST', `/v1/boards/${other}/nodes`, { type: 'note', position: { x: i, y: 0 }, data: { text: `note ${i}` } }, 201);
  }

  // The same GET with nothing else running, for comparison.
  const idle: number[] = [];
  for (let i = 0; i < 200; i++) {
    idle.push((await api.timed('GET', `/v1/boards/${other}`, 200)).ms);
    await sleep(10);
  }
  const idleGet = { p50: pct(idle, 0.5), p99: pct(idle, 0.99), max: Math.max(...idle) };
  console.log(`GET other board, idle server: p50 ${ms(idleGet.p50)} ms, p99 ${ms(idleGet.p99)} ms, max ${ms(idleGet.max)} ms`);

  /** Step 3: the searches over the whole board and over its note with the most chunks (the first note, in the `large` shape). */
  const measure = async (owner: ApiClient, board: string, nodes: { id: string; chunks: number }[]) => {
    const filterNode = nodes.reduce((a, b) => (b.chunks > a.chunks ? b : a));
    const before = os.loadavg()[0]!;
    const indexed = await searchAll(owner, board, queries);
    const indexedFiltered = await searchAll(owner, board, queries, [filterNode.id]);
    const searchLoad = `${before.toFixed(2)}–${os.loadavg()[0]!.toFixed(2)}`;
    console.log(
      `search: p50 ${ms(pct(indexed.latencies, 0.5))} ms, p95 ${ms(pct(indexed.latencies, 0.95))} ms; one node (${fmt(filterNode.chunks)} chunks): p50 ${ms(pct(indexedFiltered.latencies, 0.5))} ms, p95 ${ms(pct(indexedFiltered.latencies, 0.95))} ms; load ${load()}`,
    );
    return { filterNode, indexed, indexedFiltered, searchLoad };
  };

  const results: SizeResult[] = [];
  for (const target of SIZES) {
    console.log(`\n== ${fmt(target)} chunks ==`);
    const loaded = REUSE ? await loadedBoard(server.url, target) : undefined;
    if (loaded) {
      const chunks = loaded.nodes.reduce((sum, n) => sum + n.chunks, 0);
      console.log(`reusing board ${loaded.board}: ${fmt(loaded.nodes.length)} vectorized notes, ${fmt(chunks)} chunks; load ${load()}`);
      if (DATABASE_URL) console.log(`autovacuum done after ${await autovacuumSettled(DATABASE_URL)} s; load ${load()}`);
      const boardApi = new ApiClient(server.url, loaded.token);
      results.push({
        target,
        board: loaded.board,
        chunks,
        nodes: loaded.nodes,
        token: loaded.token,
        ...(await measure(boardApi, loaded.board, loaded.nodes)),
      });
      continue;
    }
    const board = await createBoard(api, OWNERS[0]!.board(target));
    // An unrelated read, timed in a loop while the jobs are queued and run.
    const getLatencies: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        getLatencies.push((await api.timed('GET', `/v1/boards/${other}`, 200)).ms);
        await sleep(50);
      }
    })();
    const loadSamples: number[] = [];
    const loadSampler = setInterval(() => loadSamples.push(os.loadavg()[0]!), 1000);
    const submitStarted = performance.now();
    retried = 0;
    const { nodes, jobs, planned } =
      SHAPE === 'notes' ? await fillNotes(api, board, target, documents) : await fillLarge(api, board, target, generator);
    const submitSeconds = (performance.now() - submitStarted) / 1000;
    console.log(
      `submitted ${fmt(nodes.length)} vectorize jobs (${fmt(planned)} chunks) in ${submitSeconds.toFixed(1)} s (${fmt(retried)} requests waited out a 429); load ${load()}`,
    );
    const jobsStarted = performance.now();
    // Every job's state, oldest first: most are done by the time they are asked about.
    await runBounded(jobs.length, 4, async (i) => {
      for (;;) {
        const job = (await api.call<{ data: { status: string; error: string | null } }>('GET', `/v1/jobs/${jobs[i]}`, undefined, 200)).data;
        if (job.status === 'failed') throw new Error(`job ${jobs[i]} failed: ${job.error}`);
        if (job.status === 'completed') return;
        await sleep(1000);
      }
    });
    clearInterval(loadSampler);
    const jobSeconds = (performance.now() - jobsStarted) / 1000 + submitSeconds;
    sampling = false;
    await sampler;
    const get = { count: getLatencies.length, p50: pct(getLatencies, 0.5), p99: pct(getLatencies, 0.99), max: Math.max(...getLatencies) };
    const loadDuringJobs = loadSamples.length ? `${Math.min(...loadSamples).toFixed(2)}–${Math.max(...loadSamples).toFixed(2)}` : 'n/a';
    console.log(
      `jobs done in ${jobSeconds.toFixed(0)} s; GET other board: ${get.count} requests, p50 ${ms(get.p50)} ms, p99 ${ms(get.p99)} ms, max ${ms(get.max)} ms; load ${loadDuringJobs}`,
    );

    if (DATABASE_URL) console.log(`autovacuum done after ${await autovacuumSettled(DATABASE_URL)} s; load ${load()}`);

    results.push({
      target,
      board,
      chunks: planned,
      nodes,
      token,
      ingest: { submitSeconds, jobSeconds, get, loadDuringJobs },
      ...(await measure(api, board, nodes)),
    });
  }

  // The one-node searches again with the index forced (SEARCH_EXACT_MAX_CHUNKS=0): by default a
  // node that is a small share of the index is scanned exactly, which hides the iterative scan.
  await server.stop({ keepData: true });
  server = await serve({ SEARCH_EXACT_MAX_CHUNKS: '0' }, dataDir);
  for (const r of results) r.forcedFiltered = await searchAll(new ApiClient(server.url, r.token), r.board, queries, [r.filterNode.id]);

  // The same data, answered by exact scans.
  await server.stop({ keepData: true });
  server = await serve({ SEARCH_EXACT_MAX_CHUNKS: '10000000' }, dataDir);
  for (const r of results) {
    const owner = new ApiClient(server.url, r.token);
    r.exact = await searchAll(owner, r.board, queries);
    r.exactFiltered = await searchAll(owner, r.board, queries, [r.filterNode.id]);
    console.log(
      `${fmt(r.chunks)} chunks: recall@10 ${recallAt10(r.indexed.ids, r.exact.ids).toFixed(3)}, one node ${recallAt10(r.indexedFiltered.ids, r.exactFiltered.ids).toFixed(3)} (index forced: ${recallAt10(r.forcedFiltered!.ids, r.exactFiltered.ids).toFixed(3)}); exact scan p50 ${ms(pct(r.exact.latencies, 0.5))} ms`,
    );
  }
  if (DATA) {
    await server.stop({ keepData: true });
    console.log(`data directory ${DATA} kept`);
  } else if (KEEP_DATA && !DATABASE_URL) {
    await server.stop({ keepData: true });
    fs.rmSync(KEEP_DATA, { recursive: true, force: true });
    fs.cpSync(dataDir, KEEP_DATA, { recursive: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    console.log(`data directory kept in ${KEEP_DATA}`);
  } else await server.stop();

  const minutes = (Date.now() - startedAt) / 60_000;
  const md = [
    `Command: \`npm run bench:search\`${process.env.BENCH_SEARCH_SIZES ? ` with BENCH_SEARCH_SIZES=${process.env.BENCH_SEARCH_SIZES}` : ''}${DATA ? ` BENCH_SEARCH_DATA=${DATA}` : ''}${REUSE && !DATA ? ' BENCH_SEARCH_REUSE=1' : ''}${process.env.BENCH_SEARCH_SHAPE ? ` BENCH_SEARCH_SHAPE=${SHAPE}` : ''}${process.env.BENCH_SEARCH_TEXT ? ` BENCH_SEARCH_TEXT=${TEXT}` : ''}; ${new Date().toISOString()}; ${minutes.toFixed(0)} min in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end (other work shared the machine).`,
    `Server: ${serverMode() === 'dist' ? 'node dist/server.js' : 'tsx src/server.ts'}, ${DATABASE_URL ? `PostgreSQL ${await serverVersion(DATABASE_URL)}` : 'embedded database'}, default settings${NOTES_ENV.BOARD_MAX_NODES ? ` but BOARD_MAX_NODES=${NOTES_ENV.BOARD_MAX_NODES}` : ''}; ${TEXT} text (${TEXT === 'real' ? 'bench/real-text.ts' : 'bench/search-text.ts'}) ${SHAPE === 'notes' ? 'as one note per document, vectorized in batches of 100' : 'as notes of up to 5 MB'}; ${queries.length} SciFact claims as queries, limit 10.`,
    '',
    table(
      [
        'chunks on the board',
        'load average during the searches',
        'search p50 / p95',
        'recall@10 vs exact',
        'one node (chunks): p50 / p95, recall@10',
        'same, index forced',
        'exact scan p50 / p95',
      ],
      results.map((r) => [
        fmt(r.chunks),
        r.searchLoad,
        `${ms(pct(r.indexed.latencies, 0.5))} / ${ms(pct(r.indexed.latencies, 0.95))} ms`,
        recallAt10(r.indexed.ids, r.exact!.ids).toFixed(3),
        `(${fmt(r.filterNode.chunks)}): ${ms(pct(r.indexedFiltered.latencies, 0.5))} / ${ms(pct(r.indexedFiltered.latencies, 0.95))} ms, ${recallAt10(r.indexedFiltered.ids, r.exactFiltered!.ids).toFixed(3)}`,
        `${ms(pct(r.forcedFiltered!.latencies, 0.5))} / ${ms(pct(r.forcedFiltered!.latencies, 0.95))} ms, ${recallAt10(r.forcedFiltered!.ids, r.exactFiltered!.ids).toFixed(3)}`,
        `${ms(pct(r.exact!.latencies, 0.5))} / ${ms(pct(r.exact!.latencies, 0.95))} ms`,
      ]),
    ),
    '',
    `GET /v1/boards/{otherBoard} (20 nodes) on the idle server: p50 ${ms(idleGet.p50)} ms, p99 ${ms(idleGet.p99)} ms, max ${ms(idleGet.max)} ms.`,
    '',
    table(
      ['vectorized', 'jobs', 'submit (POSTs)', 'jobs done after', 'GET other board: n, p50 / p99 / max', 'load average meanwhile'],
      results.map((r) => [
        `${fmt(r.chunks)} chunks`,
        `${r.nodes.length}`,
        ...(r.ingest
          ? [
              `${r.ingest.submitSeconds.toFixed(0)} s`,
              `${r.ingest.jobSeconds.toFixed(0)} s (${fmt(r.chunks / r.ingest.jobSeconds)} chunks/s)`,
              `${fmt(r.ingest.get.count)}, ${ms(r.ingest.get.p50)} / ${ms(r.ingest.get.p99)} / ${ms(r.ingest.get.max)} ms`,
              r.ingest.loadDuringJobs,
            ]
          : ['loaded by an earlier run', '–', '–', '–']),
      ]),
    ),
  ].join('\n');
  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'search.md'), `${md}\n`);
  fs.writeFileSync(
    path.join(dir, 'search.json'),
    `${JSON.stringify(
      {
        machine: m,
        idleGet,
        results: results.map(({ indexed, indexedFiltered, forcedFiltered, exact, exactFiltered, token: _token, ...r }) => ({
          ...r,
          search: { p50: pct(indexed.latencies, 0.5), p95: pct(indexed.latencies, 0.95) },
          filtered: { p50: pct(indexedFiltered.latencies, 0.5), p95: pct(indexedFiltered.latencies, 0.95) },
          exact: { p50: pct(exact!.latencies, 0.5), p95: pct(exact!.latencies, 0.95) },
          recall10: recallAt10(indexed.ids, exact!.ids),
          recall10Filtered: recallAt10(indexedFiltered.ids, exactFiltered!.ids),
          forcedIndexFiltered: {
            p50: pct(forcedFiltered!.latencies, 0.5),
            p95: pct(forcedFiltered!.latencies, 0.95),
            recall10: recallAt10(forcedFiltered!.ids, exactFiltered!.ids),
          },
        })),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\n${md}\n\nwritten to bench/results/search.md and search.json`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('benchmark failed:', error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
