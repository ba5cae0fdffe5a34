// Throughput of the local model's chunk vectors in MB of text per second, on the SciFact abstracts
// (7.8 MB of real text, /work/shared/data/scifact or SCIFACT_DIR): keywords, term ids and the sparse
// embedding of each abstract as one chunk (chunkVectors, what a vectorize job computes before
// writing), on the service's thread. Three rounds; the median is reported (the first round also
// fills the stem cache).
// Run: npm run bench:embed
import os from 'node:os';
import { chunkVectors } from '../src/documents/chunk-store.js';
import { localEmbedder } from '../src/providers/embeddings/embedder.js';
import { machine, median, table } from './lib/report.js';
import { loadCorpus } from './search-quality-data.js';

const chunks = loadCorpus().map((d) => ({ content: `${d.title}\n\n${d.text}`, source: d.title }));
const megabytes = chunks.reduce((n, c) => n + Buffer.byteLength(c.content), 0) / 1e6;
const m = machine();
console.log(
  `machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}`,
);
console.log(`${chunks.length} abstracts, ${megabytes.toFixed(1)} MB of UTF-8 text`);

const rounds: number[] = [];
for (let round = 0; round < 3; round++) {
  const started = performance.now();
  for (let i = 0; i < chunks.length; i += 64) await chunkVectors(localEmbedder, chunks.slice(i, i + 64));
  rounds.push(megabytes / ((performance.now() - started) / 1000));
}
console.log(`rounds: ${rounds.map((v) => v.toFixed(2)).join(', ')} MB/s`);
console.log(
  `\n${table(['model', 'chunkVectors, batches of 64 (service thread)'], [[localEmbedder.model, `${median(rounds).toFixed(2)} MB/s`]])}`,
);
process.exit(0);
