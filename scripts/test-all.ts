// `npm test`: the checks, the builds and the three test runs, side by side where that fills CI's
// two cores. The suite is bound by CPU, but the browser tests wait on the page about half their
// time, and so do many of the others (killed services, retries, leases): run one after the other,
// those waits left a core idle for minutes. So two lines of work run at once:
// - in front, at normal priority: the client and the web app built (Vite alone: the web app's type
//   check is the typecheck step's), then the browser tests, three files at a time. Their waits and
//   timeouts are the ones that suffer when the cores are busy, so nothing else is ahead of them.
// - behind, at a lower priority (nice 10: it gets what the browser tests leave): the lint and the
//   type check side by side, and, once the web app is built, the embedded run, then the run on
//   PostgreSQL. Their tests measure no time the cores' load could stretch past a limit.
// The two test runs' output is printed as it goes, every other step's when it ends. Every step runs
// to its end; the run exits with the first failure's code. Last comes a summary: each step's exit
// code and every failed test with its error, so that the tail of the log (all a CI page may keep)
// says what failed.
import { spawn } from 'node:child_process';

interface Step {
  name: string;
  command: string;
}

/** Priority of the work behind the browser tests (`nice`: 0 normal, 19 lowest). */
const BEHIND = 10;

function run(step: Step, options: { quiet: boolean; nice?: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const command = options.nice ? `nice -n ${options.nice} ${step.command}` : step.command;
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      if (!options.quiet) to.write(chunk);
    };
    child.stdout.on('data', take(process.stdout));
    child.stderr.on('data', take(process.stderr));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const started = Date.now();
const ended: { name: string; code: number; output: string }[] = [];
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);

/** Runs a step with its output held until it ends; resolves with its exit code. */
async function quietly(step: Step, nice?: number): Promise<number> {
  const { code, output } = await run(step, { quiet: true, nice });
  ended.push({ name: step.name, code, output });
  process.stdout.write(`\n> ${step.name} (ended at ${seconds()} s, exit ${code})\n${output}`);
  return code;
}

/** Runs a step with its output as it comes; resolves with its exit code. */
async function aloud(step: Step, nice?: number): Promise<number> {
  process.stdout.write(`\n> ${step.name} (from ${seconds()} s)\n`);
  const { code, output } = await run(step, { quiet: false, nice });
  ended.push({ name: step.name, code, output });
  process.stdout.write(`\n> ${step.name}: ended at ${seconds()} s, exit ${code}\n`);
  return code;
}

const build = quietly({ name: 'build: the client and the web app', command: 'npm run build -w client && npm exec -w web -- vite build' });

const front = (async () => {
  const built = await build;
  if (built !== 0) return [built];
  // Three at a time, as `npm run test:e2e`: a browser test waits on the page about half its time.
  return [await quietly({ name: 'test:e2e', command: 'tsx scripts/run-tests.ts --concurrency 3 test/e2e/*.test.ts' })];
})();

const checks = Promise.all(
  [
    { name: 'lint', command: 'npm run lint' },
    // TypeScript 7 (tsgo), native: about a third of TypeScript 5's CPU (docs/testing.md).
    { name: 'typecheck: the service and the web app', command: 'npm run typecheck' },
  ].map((step) => quietly(step, BEHIND)),
);

const behind = (async () => {
  // The embedded run's servers serve web/dist: not while Vite is writing it.
  if ((await build) !== 0) return [];
  // One after the other: side by side (tried in session 19, docs/testing.md) was not shown faster.
  const codes = [await aloud({ name: 'test:embedded', command: 'npm run test:embedded' }, BEHIND)];
  codes.push(await aloud({ name: 'test:wire', command: 'npm run test:wire' }, BEHIND));
  return codes;
})();

/**
 * The failures in a step's TAP output: each `not ok` line of a test (not of the suites and files
 * around it, which fail with it) with the lines of its report up to its end (`...`), at most 40.
 */
function failures(output: string): string[] {
  const lines = output.split('\n');
  const found: string[] = [];
  lines.forEach((line, at) => {
    const failed = /^(\s*)not ok \d+ - /.exec(line);
    if (!failed) return;
    const report = [line];
    for (const next of lines.slice(at + 1, at + 40)) {
      report.push(next);
      if (next === `${failed[1]}  ...`) break;
    }
    // A suite's report says how many of its tests failed; the tests' own reports say which and why.
    if (!report.some((l) => /^\s*type: 'suite'/.test(l))) found.push(report.join('\n'));
  });
  return found;
}

const codes = [...(await checks), ...(await front), ...(await behind)];
process.stdout.write('\n> summary\n');
for (const step of ended) {
  process.stdout.write(`${step.code === 0 ? 'ok' : 'FAILED'}  ${step.name} (exit ${step.code})\n`);
  if (step.code === 0) continue;
  // A check (lint, a type check, a build) has no TAP: its last lines say what failed.
  const found = failures(step.output);
  process.stdout.write(`${(found.length > 0 ? found : step.output.trimEnd().split('\n').slice(-30)).join('\n')}\n`);
}
process.stdout.write(`\nnpm test: ${seconds()} s\n`);
process.exit(codes.find((code) => code !== 0) ?? 0);
