// `npm test`: the checks and the builds side by side, then the three test runs one after the other.
// The checks are mostly one thread each (tsc, Redocly), so run one after the other they left one of
// CI's two cores idle; side by side they take about the time of the longest. The web app is built
// once, with Vite alone: its type check is the typecheck step's. Each step's output is printed
// when it ends; the first that fails stops the run with its exit code.
import { spawn } from 'node:child_process';

interface Step {
  name: string;
  command: string;
  cwd?: string;
}

function run(step: Step, quiet: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(step.command, { shell: true, cwd: step.cwd, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function together(steps: Step[]): Promise<void> {
  const failed = await Promise.all(
    steps.map(async (step) => {
      const started = Date.now();
      const { code, output } = await run(step, true);
      process.stdout.write(`\n> ${step.name} (${((Date.now() - started) / 1000).toFixed(0)} s, exit ${code})\n${output}`);
      return code;
    }),
  );
  const code = failed.find((c) => c !== 0);
  if (code !== undefined) process.exit(code);
}

async function inTurn(steps: Step[]): Promise<void> {
  for (const step of steps) {
    process.stdout.write(`\n> ${step.name}\n`);
    const { code } = await run(step, false);
    if (code !== 0) process.exit(code);
  }
}

await together([
  { name: 'lint', command: 'npm run lint' },
  { name: 'typecheck: the service', command: 'tsc --noEmit -p .' },
  { name: 'typecheck: the web app', command: 'tsc --noEmit -p web' },
  { name: 'build: the client and the web app', command: 'npm run build -w client && npm exec -w web -- vite build' },
]);
await inTurn([
  { name: 'test:embedded', command: 'npm run test:embedded' },
  { name: 'test:wire', command: 'npm run test:wire' },
  // Three at a time, as `npm run test:e2e`: a browser test waits on the page about half its time.
  { name: 'test:e2e (the web app built above)', command: 'tsx scripts/run-tests.ts --concurrency 3 test/e2e/*.test.ts' },
]);
