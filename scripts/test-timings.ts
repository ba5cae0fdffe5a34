// Summarises what a run with TEST_TIMINGS=<file> recorded (helpers/compiled.ts): per test process
// its wall time, its CPU time and its child processes' CPU time, slowest first, with the totals and
// the count of tests; then the same per test file where files shared a process. `tsx scripts/test-timings.ts <file> [top N]`.
import fs from 'node:fs';
import path from 'node:path';

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx scripts/test-timings.ts <TEST_TIMINGS file> [top N]');
  process.exit(2);
}
const lines = (name: string) =>
  fs.existsSync(name)
    ? fs
        .readFileSync(name, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
const processes: { file: string; wallMs: number; cpuMs: number; childrenMs: number }[] = lines(file);
const tests: { nesting: number; passed: boolean; skip: boolean; name: string }[] = lines(`${file}.tests`);

const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
console.log(`${'file'.padEnd(36)}   wall s    cpu s  children s`);
for (const p of [...processes].sort((a, b) => b.cpuMs + b.childrenMs - (a.cpuMs + a.childrenMs)).slice(0, Number(top))) {
  console.log(`${path.basename(p.file, '.js').padEnd(36)}${seconds(p.wallMs)}  ${seconds(p.cpuMs)}  ${seconds(p.childrenMs)}`);
}
const sum = (key: 'wallMs' | 'cpuMs' | 'childrenMs') => processes.reduce((total, p) => total + p[key], 0);
console.log(
  `${`${processes.length} processes`.padEnd(36)}${seconds(sum('wallMs'))}  ${seconds(sum('cpuMs'))}  ${seconds(sum('childrenMs'))}`,
);
// With several files to a process (helpers/file-group.ts), each file's own time, the processes' start-ups left out.
const files: { file: string; wallMs: number; cpuMs: number; childrenMs: number }[] = lines(`${file}.files`);
if (files.length > 0) {
  console.log(`\n${'file, in its process'.padEnd(36)}   wall s    cpu s  children s`);
  for (const f of [...files].sort((a, b) => b.cpuMs + b.childrenMs - (a.cpuMs + a.childrenMs)).slice(0, Number(top))) {
    console.log(`${path.basename(f.file, '.ts').padEnd(36)}${seconds(f.wallMs)}  ${seconds(f.cpuMs)}  ${seconds(f.childrenMs)}`);
  }
}
// Tests are the leaves: a suite is reported after its tests, at a lower nesting.
const leaves = tests.filter((t, i) => !(i > 0 && tests[i - 1]!.nesting > t.nesting));
console.log(
  `tests: ${leaves.length} (passed ${leaves.filter((t) => t.passed && !t.skip).length}, skipped ${leaves.filter((t) => t.skip).length}, failed ${leaves.filter((t) => !t.passed).length})`,
);
