// Several test files in one test process (helpers/compiled.ts's runTests writes the entry that
// calls this). A test process costs CPU before its first test (Node loading the npm packages, the
// app's modules, PGlite's WebAssembly compiled, Chromium started), which one process pays once for
// all its files. Each file still runs as it would alone:
// - its tests in a suite of its own (named after the file), one file after the other;
// - its own database in the wire run on a real PostgreSQL (TEST_DATABASE_URL, set while the file
//   loads and again before its tests run);
// - what the helpers clean up when a file ends (afterEachFile) done at the end of each file.
// A file run from its sources (`node --import tsx --test test/x.test.ts`) needs none of this: the
// helpers' hooks then go to the file's own root.
import fs from 'node:fs';
import { after, before } from 'node:test';
import { createWireDatabase } from './wire-database.js';

type Hook = () => unknown;

const eachFile: Hook[] = [];
const processEnd: Hook[] = [];
let managed = false;

/**
 * Runs the hooks last registered first, as a stack unwinds: what a helper registered later may use
 * what an earlier one did (the shared web server's close resets the kept database, so it runs before
 * the database stops). Every hook runs although one fails; the first failure is thrown after them.
 */
async function runAll(hooks: Hook[]): Promise<void> {
  const failures: unknown[] = [];
  for (const hook of [...hooks].reverse()) {
    try {
      await hook();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** Runs `hook` when each test file ends (the processes a file started, the servers it left open). */
export function afterEachFile(hook: Hook): void {
  eachFile.push(hook);
  if (!managed && eachFile.length === 1) after(() => runAll(eachFile));
}

/** Runs `hook` when the test process's last file ends (what its files share: the Chromium). */
export function afterProcess(hook: Hook): void {
  processEnd.push(hook);
  if (!managed && processEnd.length === 1) after(() => runAll(processEnd));
}

interface FileSlot {
  name: string;
  databaseUrl?: string;
  cpu?: NodeJS.CpuUsage;
  children?: number;
  started?: number;
}

const slots: FileSlot[] = [];
let keepAlive: NodeJS.Timeout | undefined;

/** Called first by a group's entry, at its top level: a wire database for each file when the wire run goes to a real PostgreSQL. */
export async function startGroup(files: string[]): Promise<void> {
  managed = true;
  // Between one file's last hook and the next file's first, nothing may hold the event loop open
  // (the service's timers are unref'd: fair-slots' waits); node:test would then end the process with
  // the next file's tests "still pending". One handle holds it open until the group ends.
  keepAlive = setInterval(() => {}, 60_000);
  for (const name of files) slots.push({ name, databaseUrl: await createWireDatabase() });
}

/** Called last by a group's entry, at its top level: what ends the process, after every file's hooks. */
export function endGroup(): void {
  after(async () => {
    try {
      await runAll(processEnd);
    } finally {
      // Else a failed hook would leave the process running until the runner's timeout.
      clearInterval(keepAlive);
    }
  });
}

/** The CPU time of this process's children that have exited, in ms (/proc/self/stat's cutime + cstime). */
function childrenMs(): number {
  if (!fs.existsSync('/proc/self/stat')) return 0;
  const stat = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[13]) + Number(stat[14])) * 10;
}

function useDatabase(slot: FileSlot): void {
  if (slot.databaseUrl) process.env.TEST_DATABASE_URL = slot.databaseUrl;
}

/** Called in a file's suite before its module loads: its database, its hooks. */
export function fileStarts(index: number): void {
  const slot = slots[index]!;
  useDatabase(slot);
  before(() => {
    useDatabase(slot);
    slot.cpu = process.cpuUsage();
    slot.children = childrenMs();
    slot.started = performance.now();
  });
  after(() => runAll(eachFile));
}

/**
 * Called in a file's suite after its module loaded: with TEST_TIMINGS, the file's wall and CPU time
 * (from its first hook to its last, so the process's start-up is the group's) go beside the process's
 * (scripts/test-timings.ts).
 */
export function fileLoaded(index: number): void {
  const slot = slots[index]!;
  after(() => {
    const output = process.env.TEST_TIMINGS;
    if (!output || slot.cpu === undefined) return;
    const cpu = process.cpuUsage(slot.cpu);
    const line = {
      file: slot.name,
      inProcess: process.argv[1],
      wallMs: Math.round(performance.now() - slot.started!),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      childrenMs: childrenMs() - slot.children!,
    };
    fs.appendFileSync(`${output}.files`, `${JSON.stringify(line)}\n`);
  });
}
