// Search quality on SciFact through the public API: one note node per abstract (5,183) on one
// board, each vectorized (a document_process job), then every train claim with evidence is searched
// (limit 100, threshold -1); chunks are folded to their abstract (best chunk wins). Reports nDCG@10
// and recall@100 for the configured embedder (local by default: no network, no model download).
// Run: npm run bench:search-quality   (SCIFACT_DIR overrides the data directory; SCIFACT_LIMIT_CLAIMS
// caps the claims searched)
import { ApiClient, benchApiKey, runBounded } from './lib/api.js';
import { buildServer, serverMode, startServerChild } from './lib/server.js';
import { loadClaims, loadCorpus, ndcg, recall } from './search-quality-data.js';

const corpus = loadCorpus();
const claims = loadClaims().slice(0, Number(process.env.SCIFACT_LIMIT_CLAIMS ?? Infinity));
console.log(`SciFact: ${corpus.length} abstracts, ${claims.length} train claims with evidence`);

if (serverMode() === 'dist') buildServer();
const server = await startServerChild();
try {
  const api = new ApiClient(server.url, await benchApiKey(server.url, 'bench-search-quality'));
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

  let ndcgSum = 0;
  let recallSum = 0;
  const latencies: number[] = [];
  for (const claim of claims) {
    const t = performance.now();
    const hits = (await api.call('POST', `/v1/boards/${board}/documents/search`, { query: claim.claim, limit: 100, threshold: -1 }, 200)).data as { node_id: string }[];
    latencies.push(performance.now() - t);
    const ranked = [...new Set(hits.map((h) => docOfNode.get(h.node_id)!))];
    ndcgSum += ndcg(ranked, claim.relevant, 10);
    recallSum += recall(ranked, claim.relevant, 100);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
  console.log(`nDCG@10     ${(ndcgSum / claims.length).toFixed(4)}`);
  console.log(`recall@100  ${(recallSum / claims.length).toFixed(4)}`);
  console.log(`search latency over ${chunks} chunks: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms`);
} finally {
  await server.stop();
}
