// Summarises V8 CPU profiles (.cpuprofile, as written by `node --cpu-prof`, e.g. with
// BENCH_CPU_PROF=<dir> npm run bench): where the self time goes, by package and by function.
//
//   npx tsx bench/profile-summary.ts <file.cpuprofile>... [--top 25]
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The package or area a frame belongs to: node_modules/<pkg>, the project's own dist/src, node internals, or V8. */
function area(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native / wasm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  if (url.startsWith('wasm://')) return '(wasm)';
  const own = /\/(dist|src)\/(.+)$/.exec(url);
  return own ? `project: ${own[2]}` : url;
}

function summarise(file: string, top: number): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const totalUs = profile.endTime - profile.startTime;

  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    const a = area(callFrame.url, callFrame.functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const fn = `${callFrame.functionName || '(anonymous)'} ${callFrame.url ? `${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : ''} [${a}]`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / totalUs) * 100).toFixed(1).padStart(5)}%`;
  console.log(`\n${path.basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled`);
  console.log('  self time by area:');
  for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`    ${pct(us)}  ${a}`);
  console.log('  self time by function:');
  for (const [f, us] of [...byFunction].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`    ${pct(us)}  ${f}`);
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
if (args.length === 0) {
  console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile>... [--top 25]');
  process.exit(2);
}
for (const file of args) summarise(file, top);
