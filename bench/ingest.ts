// `npm run bench:ingest`: bulk ingest of the SciFact corpus (5,183 abstracts, read in place) through
// the public API, against the job worker's own throughput measured in the same run (issue 26, item 12).
// Each abstract is a note (label = title, text = abstract) vectorized with its node_id (title, blank
// line, abstract), as bench/scifact-board.ts loads it. Three phases, each on a fresh server (a child
// process, bench/lib/server.ts) and a fresh database, default settings unless named:
//   (a) worker: the notes and their vectorize jobs queued by a server with JOB_CONCURRENCY=0 (no
//       worker; JOB_MAX_QUEUED_PER_USER raised so they all fit), then a server with the default
//       worker started on the same data: documents per second from when it listens until the last
//       job completed (the jobs' updated_at). The worker starts just before the server listens, so
//       this figure, if anything, flatters the worker.
// Each phase also measures CPU time per document: the server process (every thread) and, on
// PostgreSQL, the database's backends (/proc); for (a) the server's from its start, start-up
// included. The machine is shared, so rates measured minutes apart can differ by the load of the
// moment; CPU per document does not depend on it.
//   (b) API, one document per request: 8 clients, each creating a note (POST …/nodes) then asking
//       for its vectorizing (POST …/documents); a 429 is retried after its Retry-After.
//   (c) API, batch: 8 clients, each creating 100 notes (POST …/batch, create_node) then asking for
//       their vectorizing in one POST …/documents/batch; a 429 likewise.
//   (b) and (c): documents per second from the first request until the last job completed.
// Goal: (b) and (c) each at least 80% of (a).
// Settings (environment): BENCH_INGEST_LIMIT (the first N abstracts only, for a quick run),
// BENCH_DATABASE_URL (run on this PostgreSQL database, emptied before each phase), BENCH_SERVER=tsx
// (run the sources without building), SCIFACT_DIR.
import { ApiClient, benchApiKey, createBoard, runBounded } from './lib/api.js';
import { emptyDatabase, serverVersion } from './lib/postgres.js';
import { fmt, machine, table } from './lib/report.js';
import { buildServiceOnly, databaseCpuSeconds, ROOT, serverMode, type ServerChild, startServerChild } from './lib/server.js';
import { type Abstract, documentText, loadCorpus } from './search-quality-data.js';

const CLIENTS = 8;
const BATCH = 100;
const GOAL = 0.8;

interface Phase {
  name: string;
  documents: number;
  seconds: number;
  /** CPU seconds the phase took: the server process (every thread), and its PostgreSQL backends (0 on the embedded database). */
  cpu: { server: number; database: number };
  /** 429s met and the Retry-After values they carried (seconds → count). */
  refusals: number;
  retryAfter: Map<string, number>;
}

const limit = Number(process.env.BENCH_INGEST_LIMIT ?? 0);
const corpus = loadCorpus().slice(0, limit > 0 ? limit : undefined);
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const baseEnv: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client that honours 429's Retry-After: it waits that long and sends the request again. */
class IngestClient {
  constructor(
    private readonly api: ApiClient,
    private readonly token: string,
    private readonly phase: Phase,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: the bench reads bodies it knows the shape of
  async send(method: string, path: string, body: unknown, expected: number): Promise<any> {
    for (;;) {
      const res = await fetch(`${this.api.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 429) {
        const after = res.headers.get('retry-after') ?? '1';
        this.phase.refusals++;
        this.phase.retryAfter.set(after, (this.phase.retryAfter.get(after) ?? 0) + 1);
        await sleep(Number(after) * 1000);
        continue;
      }
      if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text);
    }
  }
}

const noteOf = (doc: Abstract, i: number) => ({ type: 'note', position: { x: i, y: 0 }, data: { label: doc.title, text: doc.text } });

async function newServer(env: Record<string, string> = {}, dataDir?: string): Promise<ServerChild> {
  return startServerChild({ env: { ...baseEnv, ...env }, dataDir });
}

/** Waits for every job and answers when the last one completed (its updated_at, epoch ms); a failed job is a bench error. */
async function lastCompletion(api: ApiClient, jobIds: string[]): Promise<number> {
  let last = 0;
  for (const id of jobIds) {
    for (;;) {
      const job = (await api.call('GET', `/v1/jobs/${id}`, undefined, 200)).data;
      if (job.status === 'completed') {
        last = Math.max(last, Date.parse(job.updated_at));
        break;
      }
      if (job.status === 'failed') throw new Error(`job ${id} failed: ${job.error}`);
      await sleep(200);
    }
  }
  return last;
}

function newPhase(name: string): Phase {
  return { name, documents: corpus.length, seconds: 0, cpu: { server: 0, database: 0 }, refusals: 0, retryAfter: new Map() };
}

const databaseName = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;

/**
 * Starts counting the CPU time of `server` (from its start with `fromStart`) and its database
 * backends; the returned function adds what was used since to `phase`.
 */
function cpuMeter(server: ServerChild, phase: Phase, fromStart = false): () => void {
  const server0 = fromStart ? 0 : server.cpuSeconds();
  const database0 = databaseName ? databaseCpuSeconds(databaseName) : 0;
  return () => {
    phase.cpu.server += server.cpuSeconds() - server0;
    phase.cpu.database += databaseName ? databaseCpuSeconds(databaseName) - database0 : 0;
  };
}

async function fresh(): Promise<void> {
  if (databaseUrl) await emptyDatabase(databaseUrl);
}

/** (a) The worker alone: everything queued first by a server without a worker, then drained. */
async function workerPhase(): Promise<Phase> {
  const phase = newPhase('(a) worker alone, jobs already queued');
  await fresh();
  const queueing = await newServer({ JOB_CONCURRENCY: '0', JOB_MAX_QUEUED_PER_USER: String(corpus.length + 1) });
  let jobIds: string[];
  let token: string;
  try {
    token = await benchApiKey(queueing.url, 'bench-ingest-worker');
    const client = new IngestClient(new ApiClient(queueing.url, token), token, phase);
    const boardId = await createBoard(new ApiClient(queueing.url, token), 'scifact');
    jobIds = (
      await runBounded(Math.ceil(corpus.length / BATCH), CLIENTS, async (b) => {
        const docs = corpus.slice(b * BATCH, (b + 1) * BATCH);
        return queueBatch(client, boardId, docs, b * BATCH);
      })
    ).flat();
  } finally {
    await queueing.stop({ keepData: true });
  }
  console.log(`(a) ${fmt(jobIds.length)} jobs queued; starting the worker`);
  const server = await newServer({}, queueing.dataDir);
  const started = Date.now();
  // From the server's start (its own start-up counted too: the worker starts just before it listens).
  const meter = cpuMeter(server, phase, true);
  try {
    const last = await lastCompletion(new ApiClient(server.url, token), jobIds);
    meter();
    phase.seconds = (last - started) / 1000;
  } finally {
    await server.stop();
  }
  return phase;
}

/** Creates the notes of `docs` in one board batch, then asks for their vectorizing in one documents batch; answers the job ids. */
async function queueBatch(client: IngestClient, boardId: string, docs: Abstract[], offset: number): Promise<string[]> {
  const created = await client.send(
    'POST',
    `/v1/boards/${boardId}/batch`,
    { operations: docs.map((doc, i) => ({ op: 'create_node', ...noteOf(doc, offset + i) })) },
    200,
  );
  const nodeIds: string[] = created.data.results.map((r: { id: string }) => r.id);
  const jobs = await client.send(
    'POST',
    `/v1/boards/${boardId}/documents/batch`,
    { documents: docs.map((doc, i) => ({ text: documentText(doc), node_id: nodeIds[i] })) },
    202,
  );
  return jobs.data.map((j: { id: string }) => j.id);
}

/** (b) and (c): the API under CLIENTS clients, timed from the first request to the last completion. */
async function apiPhase(batched: boolean): Promise<Phase> {
  const phase = newPhase(batched ? `(c) API, batches of ${BATCH}` : '(b) API, one document per request');
  await fresh();
  const server = await newServer();
  try {
    const token = await benchApiKey(server.url, 'bench-ingest-api');
    const api = new ApiClient(server.url, token);
    const client = new IngestClient(api, token, phase);
    const boardId = await createBoard(api, 'scifact');
    const started = Date.now();
    const meter = cpuMeter(server, phase);
    let jobIds: string[];
    if (batched) {
      jobIds = (
        await runBounded(Math.ceil(corpus.length / BATCH), CLIENTS, (b) =>
          queueBatch(client, boardId, corpus.slice(b * BATCH, (b + 1) * BATCH), b * BATCH),
        )
      ).flat();
    } else {
      jobIds = await runBounded(corpus.length, CLIENTS, async (i) => {
        const doc = corpus[i]!;
        const node = await client.send('POST', `/v1/boards/${boardId}/nodes`, noteOf(doc, i), 201);
        const job = await client.send('POST', `/v1/boards/${boardId}/documents`, { text: documentText(doc), node_id: node.data.id }, 202);
        return job.data.id as string;
      });
    }
    const queued = (Date.now() - started) / 1000;
    const last = await lastCompletion(api, jobIds);
    meter();
    phase.seconds = (last - started) / 1000;
    console.log(`${phase.name}: all queued after ${queued.toFixed(1)} s, done after ${phase.seconds.toFixed(1)} s`);
  } finally {
    await server.stop();
  }
  return phase;
}

const m = machine();
// Only the service: the benchmark serves no web app.
if (serverMode() === 'dist') buildServiceOnly(ROOT);
console.log(`SciFact: ${fmt(corpus.length)} abstracts; ${databaseUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded database'}`);
const runStarted = Date.now();
const worker = await workerPhase();
console.log(`${worker.name}: ${(worker.documents / worker.seconds).toFixed(1)} documents/s`);
const single = await apiPhase(false);
const batched = await apiPhase(true);
let version = '';
if (databaseUrl) version = ` (PostgreSQL ${await serverVersion(databaseUrl)})`;

const rate = (p: Phase) => p.documents / p.seconds;
const cpuMs = (p: Phase) => ((p.cpu.server + p.cpu.database) * 1000) / p.documents;
const cpuCell = (p: Phase) =>
  databaseUrl
    ? `${cpuMs(p).toFixed(1)} (${((p.cpu.server * 1000) / p.documents).toFixed(1)} + ${((p.cpu.database * 1000) / p.documents).toFixed(1)})`
    : cpuMs(p).toFixed(1);
const retryCell = (p: Phase) =>
  p.refusals === 0
    ? '0'
    : `${fmt(p.refusals)} (Retry-After ${[...p.retryAfter]
        .sort((a, b) => Number(a[0]) - Number(b[0]))
        .map(([s, n]) => `${s} s ×${fmt(n)}`)
        .join(', ')})`;
const rows = [worker, single, batched].map((p) => [
  p.name,
  p.seconds.toFixed(1),
  rate(p).toFixed(1),
  p === worker ? '–' : `${((rate(p) / rate(worker)) * 100).toFixed(0)}%`,
  p === worker ? '–' : rate(p) / rate(worker) >= GOAL ? 'met' : 'not met',
  cpuCell(p),
  p === worker ? '–' : `${((cpuMs(worker) / cpuMs(p)) * 100).toFixed(0)}%`,
  p === worker ? '–' : retryCell(p),
]);
console.log(
  `\n${table(
    [
      'phase',
      'seconds',
      'documents/s',
      'share of (a)',
      `goal ≥ ${GOAL * 100}%`,
      databaseUrl ? 'CPU ms per document (server + PostgreSQL)' : 'CPU ms per document',
      'documents per CPU second, share of (a)',
      '429s met',
    ],
    rows,
  )}\n\n` +
    `${fmt(corpus.length)} abstracts, ${databaseUrl ? `PostgreSQL${version}` : 'embedded database'}, ${CLIENTS} clients; ` +
    `machine: ${m.cpus} cores (${m.cpuModel}), load average ${m.loadAverage.toFixed(2)} at the start; node ${m.node}; ` +
    `${((Date.now() - runStarted) / 1000).toFixed(0)} s in all.`,
);
