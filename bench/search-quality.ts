// Search quality on SciFact through the public API: one note node per abstract (5,183) on one
// board, each vectorized (a document_process job), then every train claim with evidence is searched
// (limit 100, threshold -1); chunks are folded to their abstract (best chunk wins). Reports nDCG@10
// and recall@100 for the configured embedder (local by default: no network, no model download).
// Then the server is restarted on the same data with SEARCH_EXACT_MAX_CHUNKS above the board's size
// and the claims are searched again by exact scan: the same measures, and recall@10 of the default
// (HNSW index) search's chunks against the exact scan's, on real text.
// Run: npm run bench:search-quality   (SCIFACT_DIR overrides the data directory; SCIFACT_LIMIT_CLAIMS
// caps the claims searched)
import { ApiClient, benchApiKey, runBounded } from './lib/api.js';
import { buildServer, serverMode, startServerChild } from './lib/server.js';
import { loadClaims, loadCorpus, ndcg, recall, recallAt10 } from './search-quality-data.js';

const corpus = loadCorpus();
const claims = loadClaims().slice(0, Number(process.env.SCIFACT_LIMIT_CLAIMS ?? Infinity));
console.log(`SciFact: ${corpus.length} abstracts, ${claims.length} train claims with evidence`);

if (serverMode() === 'dist') buildServer();
let server = await startServerChild();
try {
  const token = await benchApiKey(server.url, 'bench-search-quality');
  const api = new ApiClient(server.url, token);
  const board = (await api.call('POST', '/v1/boards', { name: 'scifact' }, 201)).data.id as string;
  const docOfNode = new Map<string, string>();
  const started = performance.now();
  const jobIds = await runBounded(corpus.length, 8, async (i) => {
    const doc = corpus[i]!;
    const node = await api.call('POST', `/v1/boards/${board}/nodes`, { type: 'note', position: { x: i, y: 0 }, data: { label: doc.title, text: doc.text } }, 201);
    docOfNode.set(node.data.id, doc.id);
    const job = await api.call('POST', `/v1/boards/${board}/documents`, { text: `${doc.title}\n\n${doc.text}`, node_id: node.data.id }, 202);
    return job.data.id as string;
  });
  let chunks = 0;
  for (const id of jobIds) {
    for (;;) {
      const job = (await api.call('GET', `/v1/jobs/${id}`, undefined, 200)).data;
      if (job.status === 'completed') {
        chunks += job.result.chunks;
        break;
      }
      if (job.status === 'failed') throw new Error(`job ${id} failed: ${job.error}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const loadSeconds = (performance.now() - started) / 1000;
  console.log(`loaded ${corpus.length} abstracts as ${chunks} chunks in ${loadSeconds.toFixed(1)} s`);

  const indexed = await searchClaims(api, board, docOfNode);
  report('index (default)', indexed, chunks);

  // The same data, answered by exact scans.
  await server.stop({ keepData: true });
  server = await startServerChild({ dataDir: server.dataDir, env: { SEARCH_EXACT_MAX_CHUNKS: '10000000' } });
  const exact = await searchClaims(new ApiClient(server.url, token), board, docOfNode);
  report('exact scan', exact, chunks);
  console.log(`recall@10 of the index search's chunks against the exact scan's: ${recallAt10(indexed.top10, exact.top10).toFixed(4)}`);
} finally {
  await server.stop();
}

interface Searched {
  ndcg: number;
  recall: number;
  latencies: number[];
  /** Per claim, the ids of the first 10 chunks. */
  top10: string[][];
}

async function searchClaims(api: ApiClient, board: string, docOfNode: Map<string, string>): Promise<Searched> {
  let ndcgSum = 0;
  let recallSum = 0;
  const latencies: number[] = [];
  const top10: string[][] = [];
  for (const claim of claims) {
    const t = performance.now();
    const hits = (await api.call('POST', `/v1/boards/${board}/documents/search`, { query: claim.claim, limit: 100, threshold: -1 }, 200)).data as { id: string; node_id: string }[];
    latencies.push(performance.now() - t);
    top10.push(hits.slice(0, 10).map((h) => h.id));
    const ranked = [...new Set(hits.map((h) => docOfNode.get(h.node_id)!))];
    ndcgSum += ndcg(ranked, claim.relevant, 10);
    recallSum += recall(ranked, claim.relevant, 100);
  }
  return { ndcg: ndcgSum / claims.length, recall: recallSum / claims.length, latencies: latencies.sort((a, b) => a - b), top10 };
}

function report(label: string, r: Searched, chunks: number): void {
  const pct = (p: number) => r.latencies[Math.min(r.latencies.length - 1, Math.floor(p * r.latencies.length))]!.toFixed(1);
  console.log(`${label}: nDCG@10 ${r.ndcg.toFixed(4)}, recall@100 ${r.recall.toFixed(4)}; search latency over ${chunks} chunks: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms`);
}
