// `npm run bench:chat-grounding`: does a chat reply name the abstracts that bear on the question?
// SciFact on one board through the public API (bench/scifact-board.ts: one note per abstract, each
// vectorized), then each train claim asked as a question, sequentially, each in a fresh chat
// (POST /v1/boards/{id}/chats {}, then POST …/chats/{chatId}/messages {content: claim, stream: false})
// of the default answerer (LLM_PROVIDER=local: extractive, no network). The reply's
// `metadata.sources` (the chunk ids it drew on, in order) are mapped to their abstracts (every chunk
// listed through GET /v1/boards/{id}/documents), and judged by the BEIR protocol
// (bench/search-quality-data.ts: relevant = the claim's evidence abstracts, else the ones it cites):
//   hit@5  share of claims for which any of the first 5 sources' abstracts is relevant
//   hit@1  the same for the first source only
//   the mean number of sources, the share of replies with none, reply latency p50/p95;
//   citations: the share of `metadata.citations` whose quote stands in its chunk at its place (the
//   chunk's content holds it, at char_start - the chunk's char_start when both are recorded) and
//   that the reply's text quotes (white space normalised), and the share of markers `[n]` that
//   resolve to a citation.
//
// Before and after in one run: with BENCH_GROUNDING_BASE_ROOT (a checkout of an older commit, its
// node_modules beside it), that checkout's service answers every claim too, on a copy of the same
// data directory, claim by claim with this one (both answer a claim at once, each its claims one
// after the other), so both see the same board and the same load (their latencies include each
// other's: upper bounds). The older service's migrations are fewer: in its copy
// the rows of `kysely_migration` it does not know are deleted (its tables stay; it never reads the
// newer ones), and the bench says which.
//
// Loading the board takes the most time (about 1,600 s under load): with BENCH_GROUNDING_DATA_DIR the
// loaded data directory is kept there (`data/`, with `board.json`: the board and its notes'
// abstracts) and reused by later runs; each service runs on its own copy of it.
//
// Per-claim results (claim id, relevant abstracts, the sources' abstracts, hit@1, hit@5) of each
// service: bench/results/chat-grounding-<label>.jsonl, so two runs can be diffed.
//
// Settings (environment): CHAT_GROUNDING_CLAIMS (the first N train claims; all 809 by default),
// CHAT_GROUNDING_FROM (skip the first N train claims: the rest of a run cut short; 0 by default),
// CHAT_GROUNDING_CLAIM_IDS (only these claim ids, comma-separated), BENCH_GROUNDING_DATA_DIR,
// BENCH_GROUNDING_BASE_ROOT, SCIFACT_DIR, BENCH_SERVER=tsx (run the sources without building),
// BENCH_CPU_PROF=<dir> (V8 CPU profiles of this code's service; bench/profile-summary.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { ApiClient, benchApiKey } from './lib/api.js';
import { fmt, machine, quantile, table } from './lib/report.js';
import { buildServer, buildServiceOnly, ROOT, type ServerChild, serverMode, startServerChild } from './lib/server.js';
import { abstractOfChunks, loadScifactBoard, type ScifactBoard } from './scifact-board.js';
import { type Claim, claimLimit, loadBeirClaims, loadCorpus } from './search-quality-data.js';

const TOP = 5;
const SUBJECT = 'bench-chat-grounding';
/** The loaded board's data directory is kept here and reused (BENCH_GROUNDING_DATA_DIR). */
const SAVED = process.env.BENCH_GROUNDING_DATA_DIR ? path.resolve(process.env.BENCH_GROUNDING_DATA_DIR) : undefined;
/** A checkout of the code before, answering beside this one (BENCH_GROUNDING_BASE_ROOT). */
const BASE_ROOT = process.env.BENCH_GROUNDING_BASE_ROOT ? path.resolve(process.env.BENCH_GROUNDING_BASE_ROOT) : undefined;
const RESULTS = path.join(ROOT, 'bench/results');

interface Citation {
  n: number;
  chunk_id: string;
  quote: string;
  char_start?: number;
  char_end?: number;
}

interface Reply {
  model: string;
  content: string;
  metadata: { sources?: string[]; citations?: Citation[]; retrieval?: string } | null;
}

type StoredChunk = { id: string; content: string; metadata: { char_start?: number } };

/** What board.json keeps of a loaded board. */
interface SavedBoard extends Omit<ScifactBoard, 'docOfNode'> {
  docOfNode: [string, string][];
}

/** Every chunk of the board with its content and metadata. */
async function chunkTexts(api: ApiClient, boardId: string): Promise<Map<string, StoredChunk>> {
  const out = new Map<string, StoredChunk>();
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: { data: StoredChunk[]; has_more: boolean; cursor: string | null } = await api.call(
      'GET',
      `/v1/boards/${boardId}/documents?limit=100${query}`,
      undefined,
      200,
    );
    for (const chunk of page.data) out.set(chunk.id, chunk);
    cursor = page.has_more ? page.cursor : null;
  } while (cursor !== null);
  return out;
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Whether the citation's quote stands in its chunk at its place. */
function quoteAtItsPlace(citation: Citation, chunk: StoredChunk | undefined): boolean {
  if (!chunk || !citation.quote || !chunk.content.includes(citation.quote)) return false;
  const base = chunk.metadata.char_start;
  if (typeof base !== 'number' || typeof citation.char_start !== 'number' || typeof citation.char_end !== 'number') return true;
  return chunk.content.slice(citation.char_start - base, citation.char_end - base) === citation.quote;
}

/** The short commit of a checkout, with "+" when its tracked files differ from it. */
function commitOf(root: string): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+' : ''}`;
}

/** The migrations a checkout knows (src/db/migrations' file names). */
function migrationsOf(root: string): string[] {
  return fs
    .readdirSync(path.join(root, 'src/db/migrations'))
    .filter((f) => /^\d{4}-.*\.ts$/.test(f))
    .map((f) => f.slice(0, -3));
}

/** A copy of a data directory for one service (removed with the service). */
function copyOf(dataDir: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-bench-'));
  fs.cpSync(dataDir, copy, { recursive: true });
  fs.rmSync(path.join(copy, 'pg.lock'), { force: true });
  return copy;
}

/** Makes a data directory of this code openable by an older service: forgets the migrations it does not know. */
async function forgetNewerMigrations(dataDir: string, known: string[]): Promise<string[]> {
  const db = await PGlite.create(path.join(dataDir, 'pg'), { extensions: { vector } });
  try {
    const { rows } = await db.query<{ name: string }>('DELETE FROM kysely_migration WHERE NOT (name = ANY($1)) RETURNING name', [known]);
    return rows.map((r) => r.name).sort();
  } finally {
    await db.close();
  }
}

// The default bound on queued jobs (200): the loader's 429s wait and retry, and a short queue is
// claimed from faster than 5,183 jobs queued at once (BENCHMARKS.md, "Bulk ingest").
const SERVER_ENV = { LLM_PROVIDER: 'local' };

/**
 * The loaded board: from BENCH_GROUNDING_DATA_DIR when it holds one, else loaded through the API by
 * this code's service (and kept there when the setting names a directory). Returns a data directory
 * to copy from (never run on directly) and the board.
 */
async function loadedBoard(corpus: ReturnType<typeof loadCorpus>): Promise<{ dataDir: string; board: ScifactBoard; reused: boolean }> {
  if (SAVED && fs.existsSync(path.join(SAVED, 'board.json'))) {
    const saved = JSON.parse(fs.readFileSync(path.join(SAVED, 'board.json'), 'utf8')) as SavedBoard;
    console.log(`reusing the board loaded in ${saved.loadSeconds.toFixed(0)} s, kept in ${SAVED}`);
    return { dataDir: path.join(SAVED, 'data'), board: { ...saved, docOfNode: new Map(saved.docOfNode) }, reused: true };
  }
  const loader = await startServerChild({ env: SERVER_ENV });
  const api = new ApiClient(loader.url, await benchApiKey(loader.url, SUBJECT));
  const board = await loadScifactBoard(api, corpus);
  await loader.stop({ keepData: true });
  if (!SAVED) return { dataDir: loader.dataDir, board, reused: false };
  fs.mkdirSync(SAVED, { recursive: true });
  fs.cpSync(loader.dataDir, path.join(SAVED, 'data'), { recursive: true });
  const saved: SavedBoard = { ...board, docOfNode: [...board.docOfNode] };
  fs.writeFileSync(path.join(SAVED, 'board.json'), JSON.stringify(saved));
  console.log(`kept the loaded data directory in ${SAVED}`);
  return { dataDir: path.join(SAVED, 'data'), board, reused: false };
}

/** One service answering the claims, and what it scored. */
class Answerer {
  hit1 = 0;
  hit5 = 0;
  sourceCount = 0;
  none = 0;
  retrievalFailed = 0;
  readonly models = new Set<string>();
  readonly latencies: number[] = [];
  citationCount = 0;
  placed = 0;
  quoted = 0;
  markerCount = 0;
  resolved = 0;
  /** Per claim: hit@5. */
  readonly hits = new Map<string, boolean>();
  private api!: ApiClient;

  constructor(
    readonly label: string,
    readonly server: ServerChild,
    readonly resultsFile: string,
  ) {}

  async start(): Promise<void> {
    this.api = new ApiClient(this.server.url, await benchApiKey(this.server.url, SUBJECT));
    fs.mkdirSync(path.dirname(this.resultsFile), { recursive: true });
    fs.writeFileSync(this.resultsFile, '');
  }

  async ask(claim: Claim, boardId: string, abstractOf: Map<string, string>, chunks: Map<string, StoredChunk>): Promise<void> {
    const api = this.api;
    const chat = await api.call<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/chats`, {}, 201);
    const t = performance.now();
    const reply = (
      await api.call<{ data: Reply }>(
        'POST',
        `/v1/boards/${boardId}/chats/${chat.data.id}/messages`,
        { content: claim.claim, stream: false },
        201,
      )
    ).data;
    this.latencies.push(performance.now() - t);
    this.models.add(reply.model);
    if (reply.metadata?.retrieval !== 'ok') this.retrievalFailed++;
    const citations = reply.metadata?.citations ?? [];
    const said = normalise(reply.content);
    let misplaced = 0;
    for (const c of citations) {
      this.citationCount++;
      if (quoteAtItsPlace(c, chunks.get(c.chunk_id))) this.placed++;
      else misplaced++;
      if (said.includes(normalise(c.quote))) this.quoted++;
    }
    for (const marker of reply.content.matchAll(/\[(\d+)\]/g)) {
      this.markerCount++;
      if (citations.some((c) => c.n === Number(marker[1]))) this.resolved++;
    }
    const sources = reply.metadata?.sources ?? [];
    this.sourceCount += sources.length;
    if (sources.length === 0) this.none++;
    const docs = sources.map((id) => {
      const doc = abstractOf.get(id);
      if (doc === undefined) throw new Error(`source ${id} is not a chunk of the board`);
      return doc;
    });
    const relevant = docs.slice(0, TOP).map((doc) => claim.relevant.has(doc));
    const hit1 = relevant[0] === true;
    const hit5 = relevant.includes(true);
    if (hit1) this.hit1++;
    if (hit5) this.hit5++;
    this.hits.set(claim.id, hit5);
    const row = {
      claim: claim.id,
      relevant: [...claim.relevant],
      sources: docs,
      hit1,
      hit5,
      citations: citations.length,
      misplaced,
      chunks: sources,
      reply: reply.content,
    };
    fs.appendFileSync(this.resultsFile, `${JSON.stringify(row)}\n`);
  }

  progress(): string {
    const asked = this.latencies.length;
    const c = this.citationCount;
    return (
      `${this.label}: hit@${TOP} ${(this.hit5 / asked).toFixed(4)} (${this.hit5}), hit@1 ${(this.hit1 / asked).toFixed(4)}; ` +
      `${c} citations, at their place ${c ? (this.placed / c).toFixed(4) : 'n/a'}, quoted ${c ? (this.quoted / c).toFixed(4) : 'n/a'}`
    );
  }
}

const started = Date.now();
const m = machine();
const corpus = loadCorpus();
const onlyIds = process.env.CHAT_GROUNDING_CLAIM_IDS
  ? new Set(process.env.CHAT_GROUNDING_CLAIM_IDS.split(',').map((s) => s.trim()))
  : undefined;
const skipped = process.env.CHAT_GROUNDING_FROM ? claimLimit('CHAT_GROUNDING_FROM') : 0;
const claims = loadBeirClaims()
  .filter((c) => !onlyIds || onlyIds.has(c.id))
  .slice(skipped, skipped + claimLimit('CHAT_GROUNDING_CLAIMS'));
const PROTOCOL = `BEIR relevance, ${claims.length} SciFact train claims${skipped ? ` from the ${skipped + 1}th` : ''}`;
console.log(`SciFact: ${corpus.length} abstracts; ${claims.length} train claims asked (${PROTOCOL})`);

if (serverMode() === 'dist') {
  buildServer();
  if (BASE_ROOT) buildServiceOnly(BASE_ROOT);
}
const { dataDir, board, reused } = await loadedBoard(corpus);
const answerers: Answerer[] = [];
try {
  const thisCommit = commitOf(ROOT);
  const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  const server = await startServerChild({ env: SERVER_ENV, dataDir: copyOf(dataDir), cpuProfDir });
  answerers.push(new Answerer(`this code (${thisCommit})`, server, path.join(RESULTS, `chat-grounding-${thisCommit}.jsonl`)));
  let forgotten: string[] = [];
  if (BASE_ROOT) {
    const baseCommit = commitOf(BASE_ROOT);
    const copy = copyOf(dataDir);
    forgotten = await forgetNewerMigrations(copy, migrationsOf(BASE_ROOT));
    if (forgotten.length) console.log(`the baseline's copy forgets ${forgotten.length} newer migrations: ${forgotten.join(', ')}`);
    const base = await startServerChild({ env: SERVER_ENV, dataDir: copy, root: BASE_ROOT });
    answerers.push(new Answerer(`baseline (${baseCommit})`, base, path.join(RESULTS, `chat-grounding-${baseCommit}-base.jsonl`)));
  }
  for (const a of answerers) await a.start();
  const api = new ApiClient(server.url, await benchApiKey(server.url, SUBJECT));
  const abstractOf = await abstractOfChunks(api, board);
  const chunks = await chunkTexts(api, board.boardId);

  for (const [i, claim] of claims.entries()) {
    // Both services answer the claim at once (each its claims one after the other): the same
    // minutes for both, and half the wall time on a machine with a core for each.
    await Promise.all(answerers.map((a) => a.ask(claim, board.boardId, abstractOf, chunks)));
    // Progress, so a run cut short still says where it stood.
    if ((i + 1) % 50 === 0) console.log(`${i + 1} claims: ${answerers.map((a) => a.progress()).join('; ')}`);
  }

  const n = claims.length;
  const share = (k: number) => (k / n).toFixed(4);
  const columns = answerers.map((a) => {
    const ofCitations = (k: number) => (a.citationCount ? (k / a.citationCount).toFixed(4) : 'n/a');
    return {
      header: `${a.label}, answerer \`${[...a.models].join(', ')}\``,
      cells: [
        `${share(a.hit5)} (${a.hit5} claims)`,
        share(a.hit1),
        (a.sourceCount / n).toFixed(2),
        share(a.none),
        `${ofCitations(a.placed)} of ${fmt(a.citationCount)}`,
        `${ofCitations(a.quoted)} of ${fmt(a.citationCount)}`,
        a.markerCount ? `${(a.resolved / a.markerCount).toFixed(4)} of ${fmt(a.markerCount)}` : 'n/a',
        `p50 ${fmt(quantile(a.latencies, 0.5), 1)} ms, p95 ${fmt(quantile(a.latencies, 0.95), 1)} ms`,
        String(a.retrievalFailed),
      ],
    };
  });
  const measures = [
    `hit@${TOP}: any of the first ${TOP} sources' abstracts relevant`,
    "hit@1: the first source's abstract relevant",
    'mean number of sources per reply',
    'replies without sources',
    'citations whose quote stands in its chunk at its place',
    "citations whose quote the reply's text holds",
    'markers [n] that resolve to a citation',
    'reply latency (non-streamed, sequential)',
    'replies whose retrieval was unavailable',
  ];
  const differing = answerers.length === 2 ? claims.filter((c) => answerers[0]!.hits.get(c.id) !== answerers[1]!.hits.get(c.id)) : [];
  const md = [
    `Command: \`npm run bench:chat-grounding\`${serverMode() === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}${BASE_ROOT ? `, BENCH_GROUNDING_BASE_ROOT=${BASE_ROOT}` : ''}; ${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end.`,
    `Board: SciFact, ${fmt(corpus.length)} abstracts as notes → ${fmt(board.chunks)} chunks (embedding model \`${board.model}\`), loaded through the API in ${board.loadSeconds.toFixed(0)} s${reused ? ` (an earlier run; kept in ${SAVED})` : ''}. ` +
      `Each claim asked as a question in a fresh chat (non-streamed); a source is a chunk id of the reply's \`metadata.sources\`, judged by its abstract.` +
      (forgotten.length ? ` The baseline's copy of the data forgot the migrations it does not know: ${forgotten.join(', ')}.` : ''),
    '',
    table(
      [`measure (${PROTOCOL})`, ...columns.map((c) => c.header)],
      measures.map((measure, i) => [measure, ...columns.map((c) => c.cells[i]!)]),
    ),
    '',
    ...(answerers.length === 2
      ? [
          `Claims whose hit@${TOP} differs (${differing.length}): ${
            differing.map((c) => `${c.id} (${answerers[0]!.hits.get(c.id) ? 'this code' : 'baseline'} hits)`).join(', ') || 'none'
          }.`,
        ]
      : []),
    `Per-claim results: ${answerers.map((a) => path.relative(ROOT, a.resultsFile)).join(', ')}.`,
  ].join('\n');
  console.log(`\n${md}\n`);
} finally {
  for (const a of answerers) await a.server.stop();
}
