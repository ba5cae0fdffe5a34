// Summarises the page's CPU profiles written by `BENCH_CANVAS_PROFILE=<dir> npm run bench:canvas`:
// the self time by source file and by function of the web app's sources (through web/dist's source
// maps), so a minified bundle reads as its modules (React, React Flow, the board's own files).
//
//   npx tsx bench/canvas-profile-summary.ts <file.cpuprofile>... [--top 25]
import fs from 'node:fs';
import path from 'node:path';
import { SourceMapConsumer } from 'source-map-js';
import { ROOT } from './lib/server.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const maps = new Map<string, SourceMapConsumer | null>();

function consumer(url: string): SourceMapConsumer | null {
  const file = /\/assets\/([^/?#]+\.js)/.exec(url)?.[1];
  if (!file) return null;
  if (!maps.has(file)) {
    const mapPath = path.join(ROOT, 'web', 'dist', 'assets', `${file}.map`);
    maps.set(file, fs.existsSync(mapPath) ? new SourceMapConsumer(JSON.parse(fs.readFileSync(mapPath, 'utf8'))) : null);
  }
  return maps.get(file) ?? null;
}

/** The source file (node_modules package, or the app's own path) and function of a frame. */
function place(frame: ProfileNode['callFrame']): { file: string; fn: string } {
  if (!frame.url) return { file: frame.functionName.startsWith('(') ? frame.functionName : '(native)', fn: frame.functionName };
  const map = consumer(frame.url);
  if (!map) return { file: frame.url, fn: frame.functionName };
  const original = map.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber });
  const source = original.source ?? frame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(source);
  const file = pkg ? `${pkg[1]}/${path.basename(pkg[2]!)}` : source.replace(/^.*\/web\/src\//, 'web/src/');
  return { file, fn: `${original.name ?? frame.functionName ?? '?'} (${file}:${original.line ?? '?'})` };
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const files = args.filter((a, i) => !a.startsWith('--') && i !== topAt + 1);

for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFile = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node || node.callFrame.functionName === '(idle)') return;
    total += dt;
    const { file: f, fn } = place(node.callFrame);
    byFile.set(f, (byFile.get(f) ?? 0) + dt);
    byFn.set(fn, (byFn.get(fn) ?? 0) + dt);
  });
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `  ${v.toFixed(0).padStart(7)} ms ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  console.log(`${file}: ${total.toFixed(0)} ms busy\nby file:\n${list(byFile)}\nby function:\n${list(byFn)}\n`);
}
