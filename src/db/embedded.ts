// Starts the embedded PostgreSQL (PGlite in a worker thread, see embedded-worker.ts) under DATA_DIR
// and guards the directory with a lock file so two processes never open the same database.
import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { EmbeddedDatabasePlace } from './embedded-worker.js';

export interface EmbeddedPostgres {
  /** node-postgres connection settings for the Unix socket. */
  connection: { host: string; port: number; user: string; database: string };
  stop(): Promise<void>;
}

const SOCKET_PORT = 5432;

// In the build this module is .js. Under tsx (tests, dev) it is .ts, and Node 20 does not pass
// tsx's loader on to worker threads, so the worker loads its TypeScript through tsx's API.
// The thread's JavaScript is PGlite's glue and the wire bridge: short-lived buffers, for which V8's
// default young generation (tens of MiB per thread, resident once used) is more than it needs.
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

function spawnWorker(workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./embedded-worker.js', import.meta.url), { workerData, resourceLimits: WORKER_LIMITS });
  const entry = new URL('./embedded-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(boot, { eval: true, workerData, resourceLimits: WORKER_LIMITS });
}

/**
 * Creates the database directory in a process of its own (embedded-initdb.ts), which gives its
 * memory back when it exits; under tsx the script is run through tsx's loader.
 */
async function createDataDirectory(pgDir: string): Promise<void> {
  const ts = import.meta.url.endsWith('.ts');
  const script = fileURLToPath(new URL(ts ? './embedded-initdb.ts' : './embedded-initdb.js', import.meta.url));
  const args = ts ? ['--import', 'tsx', script, pgDir] : [script, pgDir];
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 300_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`Embedded database could not be created: ${stderr.trim() || error.message}`)) : resolve(),
    );
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acquireLock(lockPath: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(`The embedded database in ${path.dirname(lockPath)} is in use by process ${holder}`);
      }
      fs.rmSync(lockPath, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

let pgliteModule: Promise<WebAssembly.Module> | undefined;

/**
 * PGlite's PostgreSQL, compiled once per process and handed to every database thread it starts: a
 * thread compiling it again cost each start more CPU than everything else it does (the test suite
 * starts over a hundred embedded databases in a few processes).
 */
function compiledPglite(): Promise<WebAssembly.Module> {
  // V8 recompiles PGlite's hot functions with its optimising compiler as the database runs, by
  // default on as many background threads at once as the machine has, each in memory of its own
  // that the C allocator keeps once freed: 20 to 30 MiB of the service's memory at rest (measured,
  // BENCHMARKS.md "Embedded service memory"). One at a time, the same functions are optimised a
  // little later and that memory is one thread's. A process-wide V8 setting; this process compiles
  // no other WebAssembly.
  v8.setFlagsFromString('--wasm-num-compilation-tasks=1');
  pgliteModule ??= fs.promises
    // Beside PGlite's entry module, where PGlite itself looks for it.
    .readFile(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite')))
    .then((bytes) => WebAssembly.compile(bytes));
  return pgliteModule;
}

/**
 * Database threads whose database stopped, kept (unref'd: they hold no process open) for the next
 * database this process opens. A new thread loads and compiles PGlite's modules again: about a fifth
 * of a database's start in CPU (measured: 10 starts and stops 10.1 s of CPU in new threads, 7.8–8.8 s
 * in kept ones). A process that opens several databases one after another (a test process) takes a
 * kept one; the service opens one. At most two are kept.
 */
const idleWorkers: Worker[] = [];
const KEEP_IDLE = 2;

/** Drops our listeners (not all: the Worker's own 'newListener' hook starts its message port). */
function forget(worker: Worker): void {
  for (const event of ['message', 'error', 'exit']) worker.removeAllListeners(event);
}

function keepIdle(worker: Worker): boolean {
  if (idleWorkers.length >= KEEP_IDLE) return false;
  forget(worker);
  const drop = () => {
    const at = idleWorkers.indexOf(worker);
    if (at >= 0) idleWorkers.splice(at, 1);
  };
  worker.on('error', drop);
  worker.on('exit', drop);
  worker.unref();
  idleWorkers.push(worker);
  return true;
}

/** A database thread started on `place`: a kept one if there is one, else a new one. */
function workerFor(place: EmbeddedDatabasePlace, wasmModule: WebAssembly.Module): Worker {
  const kept = idleWorkers.pop();
  if (!kept) return spawnWorker({ ...place, wasmModule });
  forget(kept);
  kept.ref();
  kept.postMessage({ type: 'start', ...place });
  return kept;
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const wasmModule = await compiledPglite();
  const pgDir = path.resolve(dataDir, 'pg');
  fs.mkdirSync(pgDir, { recursive: true });
  const release = acquireLock(path.resolve(dataDir, 'pg.lock'));
  try {
    // A new directory (or one whose creation was cut short, which has no PG_VERSION yet).
    if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) await createDataDirectory(pgDir);
  } catch (error) {
    release();
    throw error;
  }
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-pg-'));
  const worker = workerFor({ dataDir: pgDir, socketPath: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`) }, wasmModule);
  const cleanup = () => {
    release();
    fs.rmSync(socketDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (m: { type: string; message?: string }) =>
        m.type === 'ready' ? resolve() : reject(new Error(`Embedded database failed to start: ${m.message}`)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`Embedded database worker exited with code ${code}`)));
    });
  } catch (error) {
    await worker.terminate();
    cleanup();
    throw error;
  }
  worker.removeAllListeners('exit');
  worker.removeAllListeners('error');
  worker.on('error', (error) => {
    // A crashed database thread leaves nothing to serve: exit so a supervisor restarts the
    // service, rather than answering 503 forever. Committed data is on disk.
    console.error('embedded database worker failed', error);
    process.exit(1);
  });

  let stopped: Promise<void> | undefined;
  return {
    connection: { host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 10_000);
        worker.once('message', (m: { type: string }) => {
          clearTimeout(timer);
          // A thread whose database stopped cleanly serves the next one; any other is ended.
          if (m.type === 'stopped' && keepIdle(worker)) resolve();
          else void worker.terminate().then(() => resolve());
        });
        worker.postMessage('stop');
      }).finally(cleanup);
      return stopped;
    },
  };
}
