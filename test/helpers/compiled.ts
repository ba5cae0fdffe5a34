// Code compiled to JavaScript for test processes. Loading TypeScript through tsx costs a process
// about 2 s of CPU before it does anything (its loader thread resolves and loads every module one
// message at a time), and on CI's two cores the suite is bound by CPU. So esbuild compiles, with the
// npm packages left as imports (as `node dist/…` runs them):
// - the service's entry points (src/server.ts, src/cli.ts), for tests that run them as processes of
//   their own (the CLI tests start dozens, several files start servers): once per version of src/,
//   into node_modules/.cache, shared by every test process;
// - the test files themselves, each with everything of the project it imports, when a run starts
//   (runTests, behind `npm run test:*`).
// `node --import tsx --test test/x.test.ts` still runs a file from its sources, and `npm run cli`
// itself is tested as is.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { isBuilt, processAlive, publishBuilt } from './built-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const TEST = path.join(ROOT, 'test');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'bwk-test-build');

/**
 * The settings every service the tests start gets, in process (harness.ts) or compiled (child
 * servers, CLI calls), before its own:
 * - the built web app, which src/config.ts finds relative to itself;
 * - password hashes at scrypt's N=2^10 rather than production's 2^15 (AUTH_SCRYPT_COST): the suite
 *   signs up and logs in hundreds of accounts, each hash about 0.3 s of CPU at 2^15. A hash carries
 *   its parameters, and test/accounts.test.ts checks production's cost on a server of its own.
 */
export const compiledEnv = { WEB_DIST_DIR: path.join(ROOT, 'web', 'dist'), AUTH_SCRYPT_COST: '10' };

/**
 * V8 flags for test processes. PGlite's PostgreSQL is WebAssembly that V8 first compiles quickly
 * (Liftoff) and then recompiles where it runs hot (TurboFan): worth it in a long-running server,
 * but a test process or a CLI call lives seconds, and the recompiling cost each about 2 s of CPU.
 * A budget 100 times V8's default leaves the hottest functions to be recompiled still.
 */
export const NODE_FLAGS = ['--wasm-tiering-budget=180000000'];

function sourceKey(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(full).update(fs.readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex').slice(0, 16);
}

/** With TEST_TIMINGS=file, every test's time goes there too, a JSON line each (docs/testing.md). */
const TIMING_REPORTER = path.join(TEST, 'helpers', 'timing-reporter.mjs');

const PROCESS_TIMER = path.join(TEST, 'helpers', 'process-timer.mjs');

const esbuildBase = { bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' } as const;
// Out of the project's package scope (node_modules), so say these are ES modules.
const PACKAGE_JSON = '{ "type": "module" }\n';

let compiled: Promise<string> | undefined;

async function compileEntries(): Promise<string> {
  const dir = path.join(CACHE, sourceKey(SRC));
  if (isBuilt(dir)) return dir;
  fs.mkdirSync(CACHE, { recursive: true });
  const building = fs.mkdtempSync(`${dir}-building-`);
  // Imported here: the harness imports this module for compiledEnv, and most processes build nothing.
  const { build } = await import('esbuild');
  await build({
    ...esbuildBase,
    // The embedded database's worker thread is loaded from beside the entry (src/db/embedded.ts).
    entryPoints: ['server.ts', 'cli.ts', 'db/embedded-worker.ts', 'db/embedded-initdb.ts'].map((f) => path.join(SRC, f)),
    entryNames: '[name]',
    outdir: building,
    // What an entry imports dynamically is a chunk of its own, loaded (with the npm packages it
    // imports) only when reached: the CLI's argument checks load no database (src/cli.ts).
    splitting: true,
    sourcemap: 'inline',
  });
  fs.writeFileSync(path.join(building, 'package.json'), PACKAGE_JSON);
  publishBuilt(building, dir);
  return dir;
}

/** The path of the compiled entry (`server` or `cli`), compiling src/ first if it changed. */
export async function compiledEntry(name: 'server' | 'cli'): Promise<string> {
  compiled ??= compileEntries();
  return path.join(await compiled, `${name}.js`);
}

/**
 * Outside src/ (the tests, their helpers, the scripts they import) a module's `import.meta` is its
 * source's, as under tsx: the helpers find the project from their own place, and a script's "am I
 * the main module" check stays false. The sources keep the bundle's own, so src/db/embedded.ts
 * loads the worker built beside the bundles, as the service's build does.
 */
const sourceLocations: Plugin = {
  name: 'source-locations',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!path.relative(SRC, args.path).startsWith('..')) return undefined;
      return {
        loader: 'ts',
        contents: (await fs.promises.readFile(args.path, 'utf8'))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      };
    });
  },
};

/**
 * The temporary directory of a run's test processes (TMPDIR: their DATA_DIRs, S3 folders, Chromium
 * profiles), in memory when the machine has a tmpfs at /dev/shm: each embedded server starts on a
 * 40 MB copy of the template database and removes it when closed, and on CI's disk, shared with
 * everything else, copying and removing those files cost more than starting PostgreSQL. Removed
 * when the run ends, with whatever a killed test left there. TEST_TMPDIR names another parent.
 */
function scratchDir(): string | undefined {
  const parent = process.env.TEST_TMPDIR ?? '/dev/shm';
  try {
    fs.accessSync(parent, fs.constants.W_OK);
  } catch {
    return undefined;
  }
  // A run interrupted (Ctrl-C, killed) never removed its folder, which in memory stays until a
  // reboot: each is named after its run's process, and one whose process is gone is removed here.
  for (const name of fs.readdirSync(parent)) {
    const pid = Number(/^bwk-tests-(\d+)-/.exec(name)?.[1]);
    if (pid && !processAlive(pid)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  return fs.mkdtempSync(path.join(parent, `bwk-tests-${process.pid}-`));
}

/**
 * Whether a test file must have a process of its own: a top-level await (a file sharing a process is
 * loaded synchronously inside its suite; an await in a module it imports is found when bundling),
 * read as an `await` on an unindented line with no `async` before it (`const f = async () => (await
 * …)` is none), or listeners on the process (a warning Node gives once a process, which an earlier
 * file could have taken).
 */
function needsOwnProcess(source: string): boolean {
  return /^[^\s/*](?:(?!\basync\b).)*\bawait\b/m.test(source) || /\bprocess\.(on|once)\(/.test(source);
}

/**
 * The test files in groups of about `perProcess` files and about equal size (their sources' length
 * stands for their time), each to one process, the largest first; files that need a process of
 * their own (and those in `ownProcess`) alone.
 */
export function groupFiles(files: string[], perProcess: number, ownProcess: ReadonlySet<string> = new Set()): string[][] {
  const alone: string[][] = [];
  const shared: { file: string; size: number }[] = [];
  for (const file of files) {
    const source = fs.readFileSync(path.resolve(ROOT, file), 'utf8');
    if (perProcess <= 1 || ownProcess.has(file) || needsOwnProcess(source)) alone.push([file]);
    else shared.push({ file, size: source.length });
  }
  const groups: { files: string[]; size: number }[] = Array.from({ length: Math.ceil(shared.length / perProcess) }, () => ({
    files: [],
    size: 0,
  }));
  // The largest first, each to the group with the least so far.
  for (const { file, size } of shared.sort((a, b) => b.size - a.size)) {
    const group = groups.reduce((least, g) => (g.size < least.size ? g : least));
    group.files.push(file);
    group.size += size;
  }
  // The largest processes first, so that the last to start are short and no core waits long on one.
  const weight = (group: string[]) => group.reduce((total, file) => total + fs.statSync(path.resolve(ROOT, file)).size, 0);
  return [...groups.map((g) => g.files.sort()), ...alone].sort((x, y) => weight(y) - weight(x));
}

/**
 * The entry of a process that runs `files` (helpers/file-group.ts): each file loaded in a suite of
 * its own (required, so that esbuild loads it at that point, inside the suite), or, alone, imported.
 */
function groupEntry(files: string[]): string {
  const helper = JSON.stringify(path.join(TEST, 'helpers', 'file-group.ts'));
  const names = files.map((file) => path.relative(ROOT, path.resolve(ROOT, file)));
  const lines = [
    "import { describe } from 'node:test';",
    `import { startGroup, fileStarts, fileLoaded, endGroup } from ${helper};`,
    `await startGroup(${JSON.stringify(names)});`,
  ];
  if (files.length === 1) {
    lines.push('fileStarts(0);', `await import(${JSON.stringify(path.resolve(ROOT, files[0]!))});`, 'fileLoaded(0);');
  } else {
    files.forEach((file, i) => {
      lines.push(
        `describe(${JSON.stringify(names[i])}, () => {`,
        `  fileStarts(${i});`,
        `  require(${JSON.stringify(path.resolve(ROOT, file))});`,
        `  fileLoaded(${i});`,
        '});',
      );
    });
  }
  lines.push('endGroup();');
  return `${lines.join('\n')}\n`;
}

/**
 * Runs test files (paths under test/) with Node's test runner, with `env` added to the environment
 * and `concurrency` processes at a time, each running up to TEST_FILES_PER_PROCESS files (default 4;
 * 1 gives each file a process of its own); resolves with the runner's exit code. The files are
 * bundled first, with everything of the project they import (a few seconds), into a folder of this
 * run's.
 */
export async function runTests(files: string[], env: Record<string, string>, concurrency: number): Promise<number> {
  const perProcess = Number(process.env.TEST_FILES_PER_PROCESS ?? 4);
  // test/x.test.ts → x.test.js, test/e2e/x.test.ts → e2e-x.test.js; a group is named after its first file.
  const outName = (group: string[]) =>
    path
      .relative(TEST, path.resolve(ROOT, group[0]!))
      .replace(/\.test\.ts$/, '')
      .replaceAll(path.sep, '-') +
    (group.length > 1 ? `-and-${group.length - 1}` : '') +
    '.test';
  fs.mkdirSync(CACHE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(CACHE, 'tests-'));
  const entries = fs.mkdtempSync(path.join(CACHE, 'entries-'));
  const scratch = scratchDir();
  try {
    const { build } = await import('esbuild');
    const ownProcess = new Set<string>();
    let groups: string[][];
    for (;;) {
      groups = groupFiles(files, perProcess, ownProcess);
      const entryPoints = groups.map((group) => {
        const file = path.join(entries, `${outName(group)}.ts`);
        fs.writeFileSync(file, groupEntry(group));
        return { in: file, out: outName(group) };
      });
      try {
        await build({
          ...esbuildBase,
          entryPoints: [
            ...entryPoints,
            { in: path.join(SRC, 'db', 'embedded-worker.ts'), out: 'embedded-worker' },
            { in: path.join(SRC, 'db', 'embedded-initdb.ts'), out: 'embedded-initdb' },
          ],
          outdir: dir,
          // Code the files share is loaded once per process, from chunks beside them.
          splitting: true,
          sourcemap: 'linked',
          plugins: [sourceLocations],
          logLevel: 'silent',
        });
        break;
      } catch (error) {
        // A file that imports a module with a top-level await cannot be required: esbuild names its
        // require in the entry. It gets a process of its own, and the files are bundled again.
        const required = ((error as { errors?: { location?: { lineText?: string } | null }[] }).errors ?? []).map(
          (e) => /require\("([^"]+)"\)/.exec(e.location?.lineText ?? '')?.[1],
        );
        const found = files.filter((file) => !ownProcess.has(file) && required.includes(path.resolve(ROOT, file)));
        if (found.length === 0) throw error;
        for (const file of found) ownProcess.add(file);
        fs.rmSync(entries, { recursive: true, force: true });
        fs.mkdirSync(entries);
      }
    }
    fs.writeFileSync(path.join(dir, 'package.json'), PACKAGE_JSON);
    const child = spawn(
      process.execPath,
      [
        ...NODE_FLAGS,
        '--enable-source-maps',
        ...(process.env.TEST_TIMINGS ? [`--import=${pathToFileURL(PROCESS_TIMER).href}`] : []),
        '--test',
        `--test-concurrency=${concurrency}`,
        // Ten minutes a file: the runner's timeout is its process's as well as each test's.
        `--test-timeout=${600_000 * Math.max(...groups.map((group) => group.length))}`,
        ...(process.env.TEST_TIMINGS
          ? [
              '--test-reporter=spec',
              '--test-reporter-destination=stdout',
              `--test-reporter=${TIMING_REPORTER}`,
              `--test-reporter-destination=${process.env.TEST_TIMINGS}.tests`,
            ]
          : []),
        ...groups.map((group) => path.join(dir, `${outName(group)}.js`)),
      ],
      { stdio: 'inherit', env: { ...process.env, ...(scratch ? { TMPDIR: scratch } : {}), ...env } },
    );
    return await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(entries, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}
