// Throughput of the local embedder in MB of text per second, on the SciFact abstracts (7.8 MB of
// real text, /work/shared/data/scifact or SCIFACT_DIR): one thread computing vectors (embedOne),
// and the path jobs use, embed() in batches of 64 texts, which runs in the embedder's worker thread.
// Three rounds each; the median is reported (the first round also fills the per-word cache).
// Run: npm run bench:embed
import os from 'node:os';
import { LocalEmbedder } from '../src/providers/embeddings/local.js';
import { machine, median, table } from './lib/report.js';
import { loadCorpus } from './search-quality-data.js';

const texts = loadCorpus().map((d) => `${d.title}\n\n${d.text}`);
const megabytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
const m = machine();
console.log(`machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
console.log(`${texts.length} abstracts, ${megabytes.toFixed(1)} MB of UTF-8 text`);

const rows: string[][] = [];
for (const dimensions of [512, 1024]) {
  const embedder = new LocalEmbedder(dimensions);
  const inline: number[] = [];
  const batched: number[] = [];
  for (let round = 0; round < 3; round++) {
    let started = performance.now();
    for (const text of texts) embedder.embedOne(text);
    inline.push(megabytes / ((performance.now() - started) / 1000));
    started = performance.now();
    for (let i = 0; i < texts.length; i += 64) await embedder.embed(texts.slice(i, i + 64));
    batched.push(megabytes / ((performance.now() - started) / 1000));
  }
  rows.push([`local-hash-v1-${dimensions}`, `${median(inline).toFixed(2)} MB/s`, `${median(batched).toFixed(2)} MB/s`]);
  console.log(`${dimensions} dimensions: ${inline.map((v) => v.toFixed(2)).join(', ')} MB/s inline; ${batched.map((v) => v.toFixed(2)).join(', ')} MB/s batched`);
}
console.log(`\n${table(['model', 'one thread (embedOne)', 'embed(), batches of 64 (worker thread)'], rows)}`);
console.log(`\nload average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
process.exit(0);
