// `npm run bench:search-quality`: search quality on SciFact's train claims through the public API,
// against a BM25 reference computed in the same run over the same abstracts.
// Protocols (bench/search-quality-data.ts):
//   BEIR:          every train claim (809); relevant = its evidence abstracts, or the abstracts it
//                  cites when it has no evidence. nDCG@10 and recall@100.
//   evidence-only: the 505 claims with evidence; relevant = their evidence abstracts. nDCG@10 (the
//                  figure earlier versions of this benchmark reported).
// 1. BM25 reference (bench/bm25.ts, in this process, nothing from src/): every claim against the
//    5,183 abstracts (title, blank line, abstract).
// 2. The service, a built server as a child process with default settings: one note per abstract,
//    each vectorized (bench/scifact-board.ts); every claim searched once per mode (`vector`,
//    `keyword`, `hybrid`, sent explicitly) with limit 100 and threshold -1, after 5 untimed searches;
//    chunks folded to their abstract (best chunk first). nDCG@10, recall@100, the ratio of nDCG@10 to
//    BM25's, search latency p50/p95.
// 3. The server restarted on the same data with SEARCH_EXACT_MAX_CHUNKS above the board's size: the
//    `vector` searches again by exact scan, and recall@10 of the index search's chunk ids against the
//    exact scan's, on real text.
// Ends with a Markdown table for BENCHMARKS.md.
//   npm run bench:search-quality            everything
//   npm run bench:search-quality -- bm25    only the BM25 reference (no server; seconds)
// Settings (environment): SCIFACT_DIR (the data directory), SCIFACT_LIMIT_CLAIMS (the first N train
// claims only), BENCH_SERVER=tsx (run the sources without building), BENCH_DATABASE_URL (run the
// server on this PostgreSQL database, emptied first, instead of the embedded one).
import os from 'node:os';
import { Bm25, B, K1 } from './bm25.js';
import { ApiClient, benchApiKey } from './lib/api.js';
import { fmt, machine, quantile, table } from './lib/report.js';
import { emptyDatabase, serverVersion } from './lib/postgres.js';
import { buildServer, serverMode, startServerChild } from './lib/server.js';
import { abstractOfNode, loadScifactBoard, type ScifactBoard } from './scifact-board.js';
import {
  type Claim,
  claimLimit,
  documentText,
  loadBeirClaims,
  loadClaims,
  loadCorpus,
  quality,
  type Quality,
  recallAt10,
} from './search-quality-data.js';

const MODES = ['vector', 'keyword', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
const LIMIT = 100;
const WARMUP = 5;

interface Measured {
  system: string;
  beir: Quality;
  evidence: Quality;
  /** Search latencies in ms (the service only). */
  latencies?: number[];
}

const parts = process.argv.slice(2).filter((a) => a !== '--');
if (parts.some((p) => p !== 'bm25')) throw new Error(`unknown part ${parts.join(' ')}: use bm25 (or nothing, for everything)`);
const bm25Only = parts.includes('bm25');

const started = Date.now();
const m = machine();
const corpus = loadCorpus();
const beirClaims = loadBeirClaims().slice(0, claimLimit('SCIFACT_LIMIT_CLAIMS'));
const searched = new Set(beirClaims.map((c) => c.id));
const evidenceClaims = loadClaims().filter((c) => searched.has(c.id));
const BEIR = `BEIR, ${beirClaims.length} claims`;
const EVIDENCE = `evidence-only, ${evidenceClaims.length} claims`;
console.log(
  `SciFact: ${corpus.length} abstracts; ${beirClaims.length} train claims (BEIR protocol), ${evidenceClaims.length} of them with evidence (evidence-only protocol)`,
);

const bm25 = bm25Reference();
let exactRecall10: number | undefined;
const service: Measured[] = [];
let board: ScifactBoard | undefined;
if (!bm25Only) {
  if (serverMode() === 'dist') buildServer();
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
  const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
  if (databaseUrl) await emptyDatabase(databaseUrl);
  let server = await startServerChild({ env });
  // After the server's migrations, which create the vector extension.
  if (databaseUrl) console.log(`database: PostgreSQL ${await serverVersion(databaseUrl)}`);
  try {
    const token = await benchApiKey(server.url, 'bench-search-quality');
    const api = new ApiClient(server.url, token);
    board = await loadScifactBoard(api, corpus);
    const top10: Partial<Record<Mode, string[][]>> = {};
    for (const mode of MODES) {
      const run = await searchClaims(api, board, mode);
      top10[mode] = run.top10;
      service.push(report(`mode ${mode}`, run.rankings, run.latencies));
    }
    // The same data, the vector searches answered by exact scans.
    await server.stop({ keepData: true });
    server = await startServerChild({ dataDir: server.dataDir, env: { ...env, SEARCH_EXACT_MAX_CHUNKS: '10000000' } });
    const exact = await searchClaims(new ApiClient(server.url, token), board, 'vector');
    service.push(report('mode vector, exact scan', exact.rankings, exact.latencies));
    exactRecall10 = recallAt10(top10.vector!, exact.top10);
    console.log(
      `recall@10 of the index search's chunks against the exact scan's (mode vector, ${beirClaims.length} claims): ${exactRecall10.toFixed(4)}`,
    );
  } finally {
    await server.stop();
  }
}
console.log(`\n${summary()}\n`);

/** BM25 over the same abstracts, the first 100 per claim. */
function bm25Reference(): Measured {
  const t = performance.now();
  const index = new Bm25(corpus.map((a) => ({ id: a.id, text: documentText(a) })));
  const rankings = new Map(beirClaims.map((c) => [c.id, index.search(c.claim, LIMIT)]));
  const measured = report(`BM25 reference (bench/bm25.ts, k1 ${K1}, b ${B})`, rankings);
  console.log(`  (index and ${beirClaims.length} searches in ${((performance.now() - t) / 1000).toFixed(1)} s, in this process)`);
  return measured;
}

/** Every claim searched in one mode (after untimed warm-up searches); rankings fold chunks to abstracts. */
async function searchClaims(api: ApiClient, board: ScifactBoard, mode: Mode) {
  const search = (claim: Claim) =>
    api.call<{ data: { id: string; node_id: string | null }[] }>(
      'POST',
      `/v1/boards/${board.boardId}/documents/search`,
      { query: claim.claim, mode, limit: LIMIT, threshold: -1 },
      200,
    );
  for (const claim of beirClaims.slice(0, WARMUP)) await search(claim);
  const rankings = new Map<string, string[]>();
  const latencies: number[] = [];
  /** Per claim, the ids of the first 10 chunks. */
  const top10: string[][] = [];
  for (const claim of beirClaims) {
    const t = performance.now();
    const hits = (await search(claim)).data;
    latencies.push(performance.now() - t);
    top10.push(hits.slice(0, 10).map((h) => h.id));
    rankings.set(claim.id, [...new Set(hits.map((h) => abstractOfNode(board, h.node_id)))]);
  }
  return { rankings, latencies, top10 };
}

function ratio(r: Measured): number {
  return r.beir.ndcg10 / bm25.beir.ndcg10;
}

function latency(r: Measured): string {
  return r.latencies ? `p50 ${fmt(quantile(r.latencies, 0.5), 1)} ms, p95 ${fmt(quantile(r.latencies, 0.95), 1)} ms` : 'n/a (in process)';
}

function report(system: string, rankings: Map<string, string[]>, latencies?: number[]): Measured {
  const r: Measured = { system, beir: quality(beirClaims, rankings), evidence: quality(evidenceClaims, rankings), latencies };
  const service = latencies
    ? `; ratio to BM25 ${ratio(r).toFixed(3)} (nDCG@10, BEIR); search latency (limit ${LIMIT}, ${board!.chunks} chunks) ${latency(r)}`
    : '';
  console.log(
    `${system}: nDCG@10 ${r.beir.ndcg10.toFixed(4)}, recall@100 ${r.beir.recall100.toFixed(4)} (${BEIR}); ` +
      `nDCG@10 ${r.evidence.ndcg10.toFixed(4)} (${EVIDENCE})${service}`,
  );
  return r;
}

/** The figures as Markdown, for BENCHMARKS.md: a row per measure (its protocol named), a column per system. */
function summary(): string {
  const systems = [bm25, ...service];
  const row = (measure: string, cell: (r: Measured) => string) => [measure, ...systems.map(cell)];
  const rows = [
    row(`nDCG@10 (${BEIR})`, (r) => r.beir.ndcg10.toFixed(4)),
    row(`recall@100 (${BEIR})`, (r) => r.beir.recall100.toFixed(4)),
    row(`nDCG@10 (${EVIDENCE})`, (r) => r.evidence.ndcg10.toFixed(4)),
    row(`recall@100 (${EVIDENCE})`, (r) => r.evidence.recall100.toFixed(4)),
  ];
  if (board) {
    rows.push(row(`nDCG@10 ratio to BM25 (${BEIR})`, (r) => (r === bm25 ? '1 (the reference)' : ratio(r).toFixed(3))));
    rows.push(row(`search latency (limit ${LIMIT}, ${fmt(board.chunks)} chunks)`, latency));
  }
  const command = `npm run bench:search-quality${bm25Only ? ' -- bm25' : ''}`;
  return [
    `Command: \`${command}\`${serverMode() === 'tsx' && !bm25Only ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end.`,
    `Data: SciFact, ${fmt(corpus.length)} abstracts (title, blank line, abstract)` +
      (board
        ? ` → ${fmt(board.chunks)} chunks (embedding model \`${board.model}\`), loaded through the API in ${board.loadSeconds.toFixed(0)} s`
        : '') +
      `; train claims. BEIR: every claim, relevant = its evidence abstracts, else the abstracts it cites. Evidence-only: the claims with evidence, relevant = their evidence abstracts.`,
    ...(board
      ? [
          `Service: ${process.env.BENCH_DATABASE_URL ? 'on PostgreSQL (BENCH_DATABASE_URL); ' : ''}each claim searched with \`mode\` as named, limit ${LIMIT}, threshold -1, chunks folded to their abstract (best chunk first); ${WARMUP} untimed searches before each pass.`,
        ]
      : []),
    '',
    table(['measure (protocol)', ...systems.map((r) => r.system)], rows),
    ...(exactRecall10 === undefined
      ? []
      : ['', `recall@10 of the index search's chunk ids against the exact scan's (mode vector, ${BEIR}): **${exactRecall10.toFixed(4)}**`]),
  ].join('\n');
}
