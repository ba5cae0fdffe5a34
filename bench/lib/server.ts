// Runs the service as a child process for the benchmarks: its own event loop (so the load generator
// never competes with the server on one thread), a temporary DATA_DIR with the embedded database,
// loopback only, and raised rate limits. Children and data directories are removed on any exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Secret of the JWTs the bench signs to create its API key through the public API. */
export const BENCH_JWT_SECRET = 'bench-secret-that-is-at-least-32-bytes-long!';

export interface ServerChild {
  url: string;
  pid: number;
  dataDir: string;
  /** Resident and peak resident memory of the server process (every thread, PGlite's included), in MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** CPU time the server process has used so far (every thread, user + system), in seconds. */
  cpuSeconds(): number;
  /** SIGTERM and wait; the data directory is removed unless keepData (for a restart on it). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface ServerOptions {
  /** Write V8 CPU profiles of the server (main thread and database worker) into this directory. */
  cpuProfDir?: string;
  /** Extra environment of the server (for example the chat provider), applied last. */
  env?: Record<string, string>;
  /** Run on this data directory (a restart after stop({ keepData: true })) instead of a new one. */
  dataDir?: string;
  /** Leave the data directory in place when the bench process exits (it is still removed by stop() without keepData). */
  keepDataDir?: boolean;
  /** Run the service of this checkout (built there, or its sources with BENCH_SERVER=tsx) instead of this one. */
  root?: string;
}

const live = new Set<ChildProcess>();
const dataDirs = new Set<string>();

// Synchronous last resort: whatever way the bench ends, no server or data directory outlives it.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    process.exit(130);
  });
}

export type ServerMode = 'dist' | 'tsx';

/**
 * Which server to run. By default the built service (`node dist/server.js`, as in production, built
 * here first); BENCH_SERVER=tsx runs the sources through tsx instead (no build, but tsx's loader
 * thread adds memory, so the RSS figure is then pessimistic).
 */
export function serverMode(): ServerMode {
  return process.env.BENCH_SERVER === 'tsx' ? 'tsx' : 'dist';
}

/** Builds dist/ with the project's build script. Returns false when tsc reported errors (it still emits). */
export function buildServer(): boolean {
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    console.warn(`warning: the build reported errors (the emitted JavaScript is benchmarked anyway):\n${result.stdout}${result.stderr}`);
  } else {
    console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  if (!fs.existsSync(path.join(ROOT, 'dist/server.js'))) throw new Error('the build produced no dist/server.js');
  return result.status === 0;
}

/**
 * Builds only the service (tsc into dist/, no client or web app) of a checkout: for benchmarks that
 * run two versions of the service side by side. Throws when the build fails.
 */
export function buildServiceOnly(root: string): void {
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`building the service in ${root} failed:\n${result.stdout}${result.stderr}`);
  console.log(
    `built ${path.relative(process.cwd(), path.join(root, 'dist')) || 'dist'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

let clockTicks: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat's times (getconf CLK_TCK, 100 on Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
    clockTicks = out && Number(out) > 0 ? Number(out) : 100;
  }
  return clockTicks;
}

/** utime + stime of a process (all its threads) from /proc/<pid>/stat, in seconds. */
export function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start at field 3: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

/**
 * CPU time (seconds) of the PostgreSQL backends on this machine serving `database`: the processes
 * whose title is `postgres: <user> <database> …` (a pool's connections and a listening one).
 */
export function databaseCpuSeconds(database: string): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.split(' ')[2] === database) total += processCpuSeconds(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

function readStatusKiB(pid: number, field: string): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

export async function startServerChild(options: ServerOptions = {}): Promise<ServerChild> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-bench-'));
  if (!options.keepDataDir) dataDirs.add(dataDir);
  const mode = serverMode();
  const nodeArgs = [
    ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
    ...(mode === 'tsx' ? ['--import', 'tsx', 'src/server.ts'] : ['dist/server.js']),
  ];
  const child = spawn(process.execPath, nodeArgs, {
    cwd: options.root ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // Empty means unset: always the embedded database and in-memory rate-limit counters.
      DATABASE_URL: '',
      REDIS_URL: '',
      AUTH_JWKS_URL: '',
      AUTH_JWT_SECRET: BENCH_JWT_SECRET,
      // The highest the configuration allows: the benchmark measures serving, not the limiter's 429s.
      RATE_LIMIT_API_KEY_PER_MINUTE: '10000000',
      RATE_LIMIT_JWT_PER_MINUTE: '10000000',
      RATE_LIMIT_USER_PER_MINUTE: '10000000',
      ...options.env,
    },
  });
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );

  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 180 s:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with code ${code} before listening:\n${output}`));
    });
  });
  // Keep draining the pipes so a chatty server never blocks on a full pipe; show only problems.
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  child.stdout!.on('data', () => {});
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[server] ${chunk}`));

  const pid = child.pid!;
  return {
    url,
    pid,
    dataDir,
    memory: () => ({ rssMiB: readStatusKiB(pid, 'VmRSS') / 1024, peakMiB: readStatusKiB(pid, 'VmHWM') / 1024 }),
    cpuSeconds: () => processCpuSeconds(pid),
    async stop(stopOptions = {}) {
      if (live.has(child)) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      if (stopOptions.keepData) return;
      fs.rmSync(dataDir, { recursive: true, force: true });
      dataDirs.delete(dataDir);
    },
  };
}
