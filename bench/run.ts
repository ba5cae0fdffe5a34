// `npm run bench`: builds the service, runs the HTTP benchmark (bench/http.ts) and the large-board
// benchmark (bench/board.ts) against server child processes on loopback, prints the figures and
// whether each goal was met, and writes them to bench/results/ (latest.md is what BENCHMARKS.md
// quotes). Not a test: a missed goal is reported, the exit code stays 0 unless something failed.
//
//   npm run bench                 both benchmarks
//   npm run bench -- http         only one of them (http or board)
// Settings (environment): BENCH_HTTP_ROUNDS (rounds of the HTTP routes, default 5), BENCH_SECONDS
// (per HTTP route and round, default 4), BENCH_WARMUP_SECONDS (per route, default 5),
// BENCH_SERVER=tsx (run the sources without building), BENCH_CPU_PROF=<dir> (write V8
// CPU profiles of the server there; summarise them with bench/profile-summary.ts),
// BENCH_DATABASE_URL (run the server on that PostgreSQL database, which the bench empties first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBoardBench, type BoardResult } from './board.js';
import { runHttpBench, type HttpResult } from './http.js';
import { machine, verdict } from './lib/report.js';
import { emptyDatabase, serverVersion } from './lib/postgres.js';
import { buildServer, ROOT, serverMode } from './lib/server.js';
import { setting } from './lib/setting.js';

const DEADLINE_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const which = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = which.filter((a) => a !== 'http' && a !== 'board');
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}: use http and/or board`);
  const run = (name: string) => which.length === 0 || which.includes(name);

  const deadline = setTimeout(() => {
    console.error(`the benchmark ran over ${DEADLINE_MS / 60_000} minutes; stopping`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();

  const m = machine();
  const started = Date.now();
  console.log(
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}, load average ${m.loadAverage.toFixed(2)}`,
  );
  const mode = serverMode();
  const cleanBuild = mode === 'dist' ? buildServer() : undefined;
  const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (cpuProfDir) fs.mkdirSync(cpuProfDir, { recursive: true });
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
  if (databaseUrl) await emptyDatabase(databaseUrl);
  const server = { cpuProfDir, env: databaseUrl ? { DATABASE_URL: databaseUrl } : undefined };

  let http: HttpResult | undefined;
  let board: BoardResult | undefined;
  if (run('http')) {
    console.log('\n== HTTP: 50 connections, loopback ==');
    http = await runHttpBench({
      seconds: setting('BENCH_SECONDS', 4),
      warmupSeconds: setting('BENCH_WARMUP_SECONDS', 5),
      rounds: Math.round(setting('BENCH_HTTP_ROUNDS', 5)),
      server,
      database: databaseUrl === undefined ? undefined : new URL(databaseUrl).pathname.slice(1),
    });
  }
  if (run('board')) {
    console.log('\n== Large board ==');
    board = await runBoardBench({ nodes: 10_000, edges: 20_000, reads: 15, duplicates: 3, concurrency: 16, server });
  }
  const totalSeconds = (Date.now() - started) / 1000;

  const command = `npm run bench${which.length ? ` -- ${which.join(' ')}` : ''}`;
  const md = [
    `Command: \`${command}\`${mode === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${totalSeconds.toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end.`,
    `Server: ${mode === 'dist' ? `node dist/server.js (build ${cleanBuild ? 'clean' : 'with type errors'})` : 'node --import tsx src/server.ts'}, ${databaseUrl ? `PostgreSQL ${await serverVersion(databaseUrl)} (BENCH_DATABASE_URL)` : 'embedded database'}, one child process (two for HTTP: the second with the list cache off).`,
    ...(http ? ['', `### HTTP (autocannon, 50 connections, ${http.rounds} rounds)`, '', http.markdown] : []),
    ...(board ? ['', '### Large board', '', board.markdown] : []),
  ].join('\n');

  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.md'), `${md}\n`);
  fs.writeFileSync(
    path.join(dir, 'latest.json'),
    `${JSON.stringify({ command, machine: m, mode, cleanBuild, http, board, totalSeconds }, null, 2)}\n`,
  );

  console.log(`\n${md}\n`);
  for (const g of [...(http?.goals ?? []), ...(board?.goals ?? [])])
    console.log(`${verdict(g.met).padEnd(7)} ${g.name}: ${g.measured} (target ${g.target})`);
  console.log(`\nwritten to bench/results/latest.md and latest.json`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('benchmark failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
