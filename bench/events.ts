// `npm run bench:events`: what the board change log (src/events/) costs, on PostgreSQL.
//
//   streams    1,000 open event streams on one instance: the server's RSS and CPU at rest, beside
//              the same server with no stream open (measured before opening them and after closing)
//   latency    from a committed change to its arrival at its subscribers: 100 streams on one board,
//              half on the instance that takes the writes (A), half on a second instance (B) on the
//              same database, while A takes a steady rate of node updates
//   recording  node create throughput of this service beside the same service without the change log
//              (BENCH_BASELINE_DIR: a checkout of this commit with bench/no-change-log.patch applied,
//              which keeps only the read of the board's totals that the bounds check needs), alternated
//              in one run, each on a fresh database of its own on the same PostgreSQL server
//
//   npm run bench:events                       all three
//   npm run bench:events -- latency recording  some of them
//
// Needs BENCH_DATABASE_URL: a PostgreSQL (15+, pgvector) url whose user may create databases; each
// part makes databases of its own there (bench_events_*) and drops them afterwards. Settings
// (environment, defaults in brackets): BENCH_STREAMS [1000], BENCH_REST_SECONDS [60: the streams'
// access recheck runs once a minute, so a shorter window may or may not hold it], BENCH_SUBSCRIBERS
// [100], BENCH_WRITES_PER_SECOND [20], BENCH_LATENCY_SECONDS [20], BENCH_SECONDS [10: per throughput
// measurement], BENCH_ROUNDS [6], BENCH_CONNECTIONS [16], BENCH_SERVER=tsx (sources, no build),
// BENCH_NO_BUILD=1 (reuse the trees' dist/), BENCH_OTHER_DIR and BENCH_OTHER_LABEL (a third version of
// the service in the recording comparison, such as an earlier form of the change log),
// BENCH_CPU_PROF=<dir> (V8 CPU profiles of the servers).
// Not a test: a missed goal is reported, the exit code stays 0 unless something failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { ApiClient, benchApiKey, createBoard, noteBody, runBounded, seedNodes } from './lib/api.js';
import { dropDatabase, freshDatabase, serverVersion } from './lib/postgres.js';
import { fmt, type Goal, goalsTable, machine, quantile, table, verdict } from './lib/report.js';
import {
  buildServiceOnly,
  databaseCpuSeconds,
  ROOT,
  type ServerChild,
  type ServerOptions,
  serverMode,
  startServerChild,
} from './lib/server.js';
import { openEventStream, type StreamHandle } from './lib/sse-client.js';
import { setting } from './lib/setting.js';

const DEADLINE_MS = 30 * 60 * 1000;
const PARTS = ['streams', 'latency', 'recording'] as const;
type Part = (typeof PARTS)[number];

const settings = {
  streams: setting('BENCH_STREAMS', 1000),
  restSeconds: setting('BENCH_REST_SECONDS', 60),
  subscribers: setting('BENCH_SUBSCRIBERS', 100),
  writesPerSecond: setting('BENCH_WRITES_PER_SECOND', 20),
  latencySeconds: setting('BENCH_LATENCY_SECONDS', 20),
  seconds: setting('BENCH_SECONDS', 10),
  rounds: setting('BENCH_ROUNDS', 6),
  connections: setting('BENCH_CONNECTIONS', 16),
};

/** Pause after a change of state (streams opened or closed) before measuring at rest. */
const SETTLE_MS = 5000;
const STREAM_BOARDS = 100;

const load = () => os.loadavg()[0]!.toFixed(2);

// ---------------------------------------------------------------------------------------------
// streams: RSS and CPU at rest with 1,000 open streams, beside none

interface RestWindow {
  label: string;
  streams: number;
  seconds: number;
  cpuMsPerSecond: number;
  rssMiB: number;
  load: string;
}

async function atRest(server: ServerChild, label: string, streams: number, seconds: number): Promise<RestWindow> {
  const cpu0 = server.cpuSeconds();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - t0) / 1000;
  const window: RestWindow = {
    label,
    streams,
    seconds: wall,
    cpuMsPerSecond: ((server.cpuSeconds() - cpu0) * 1000) / wall,
    rssMiB: server.memory().rssMiB,
    load: load(),
  };
  console.log(
    `  ${label}: ${streams} streams, CPU ${window.cpuMsPerSecond.toFixed(1)} ms/s over ${wall.toFixed(0)} s, RSS ${window.rssMiB.toFixed(1)} MiB (load ${window.load})`,
  );
  return window;
}

interface StreamsResult {
  windows: RestWindow[];
  openSeconds: number;
  markdown: string;
}

async function runStreams(adminUrl: string, server0: ServerOptions): Promise<StreamsResult> {
  const n = settings.streams;
  const url = await freshDatabase(adminUrl, 'bench_events_streams');
  const server = await startServerChild({ ...server0, env: { ...server0.env, DATABASE_URL: url, EVENT_STREAMS_PER_USER: String(n) } });
  const streams: StreamHandle[] = [];
  try {
    const token = await benchApiKey(server.url, 'bench-events-streams');
    const api = new ApiClient(server.url, token);
    const boards = await runBounded(STREAM_BOARDS, 4, (i) => createBoard(api, `Streams ${i}`));
    await sleep(SETTLE_MS);
    const windows = [await atRest(server, 'no stream open (before)', 0, settings.restSeconds)];

    const opening = performance.now();
    await runBounded(n, 50, async (i) => {
      streams[i] = await openEventStream(`${server.url}/v1/boards/${boards[i % STREAM_BOARDS]}/events`, token, () => {});
    });
    const openSeconds = (performance.now() - opening) / 1000;
    console.log(`  opened ${n} streams in ${openSeconds.toFixed(1)} s (each answered its ready event)`);
    await sleep(SETTLE_MS);
    windows.push(await atRest(server, `${fmt(n)} streams open`, n, settings.restSeconds));

    for (const stream of streams.splice(0)) stream.close();
    await sleep(SETTLE_MS);
    windows.push(await atRest(server, 'no stream open (after closing them)', 0, settings.restSeconds));

    const [before, open, after] = windows as [RestWindow, RestWindow, RestWindow];
    const markdown = [
      table(
        ['server state', 'open streams', 'CPU at rest (ms per s)', 'RSS (MiB)', 'window (s)', 'load average'],
        windows.map((w) => [w.label, fmt(w.streams), w.cpuMsPerSecond.toFixed(1), w.rssMiB.toFixed(1), w.seconds.toFixed(0), w.load]),
      ),
      '',
      `With ${fmt(n)} streams: RSS +${(open.rssMiB - before.rssMiB).toFixed(1)} MiB over before (${(((open.rssMiB - before.rssMiB) * 1024) / n).toFixed(1)} KiB per stream), CPU +${(open.cpuMsPerSecond - (before.cpuMsPerSecond + after.cpuMsPerSecond) / 2).toFixed(1)} ms per second over the mean of before and after.`,
    ].join('\n');
    return { windows, openSeconds, markdown };
  } finally {
    for (const stream of streams) stream?.close();
    await server.stop();
    await dropDatabase(adminUrl, 'bench_events_streams');
  }
}

// ---------------------------------------------------------------------------------------------
// latency: from a committed change to its subscribers, on the writing instance and on another

interface LatencyRow {
  subscribers: string;
  from: string;
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

interface LatencyResult {
  writes: number;
  measuredWrites: number;
  missing: number;
  writeP50: number;
  writeP99: number;
  rows: LatencyRow[];
  goals: Goal[];
  markdown: string;
}

async function runLatency(adminUrl: string, server0: ServerOptions): Promise<LatencyResult> {
  const url = await freshDatabase(adminUrl, 'bench_events_latency');
  const env = { ...server0.env, DATABASE_URL: url };
  const a = await startServerChild({ ...server0, env });
  const b = await startServerChild({ ...server0, env });
  const streams: StreamHandle[] = [];
  try {
    const token = await benchApiKey(a.url, 'bench-events-latency');
    const api = new ApiClient(a.url, token);
    const boardId = await createBoard(api, 'Latency');
    const nodeIds = await seedNodes(api, boardId, 20, 4);

    const total = Math.round(settings.writesPerSecond * settings.latencySeconds);
    const warmup = Math.round(settings.writesPerSecond * 2);
    const sent = new Array<number>(total);
    const answered = new Array<number>(total);
    // Per subscriber, the arrival time of each write's event.
    const arrivals: { instance: 'A' | 'B'; at: Float64Array }[] = [];
    for (let i = 0; i < settings.subscribers; i++) {
      const instance = i % 2 === 0 ? 'A' : 'B';
      const at = new Float64Array(total).fill(Number.NaN);
      arrivals.push({ instance, at });
      const server = instance === 'A' ? a : b;
      streams.push(
        await openEventStream(`${server.url}/v1/boards/${boardId}/events`, token, (event, arrivedAt) => {
          if (event.event !== 'node.updated') return;
          const k = (JSON.parse(event.data) as { data: { node_data: { k?: number } } }).data.node_data.k;
          if (k !== undefined) at[k] = arrivedAt;
        }),
      );
    }
    console.log(
      `  ${settings.subscribers} subscribers on one board (${Math.ceil(settings.subscribers / 2)} on A, ${Math.floor(settings.subscribers / 2)} on B); ${total} node updates through A at ${settings.writesPerSecond}/s`,
    );

    const interval = 1000 / settings.writesPerSecond;
    const start = performance.now() + 100;
    const writes: Promise<void>[] = [];
    for (let k = 0; k < total; k++) {
      const wait = start + k * interval - performance.now();
      if (wait > 0) await sleep(wait);
      sent[k] = performance.now();
      writes.push(
        fetch(`${a.url}/v1/boards/${boardId}/nodes/${nodeIds[k % nodeIds.length]}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ data: { k } }),
        }).then(async (res) => {
          const text = await res.text();
          answered[k] = performance.now();
          if (res.status !== 200) throw new Error(`PATCH ${k}: ${res.status} ${text.slice(0, 300)}`);
        }),
      );
    }
    await Promise.all(writes);
    // Let the last events arrive (or show up as missing).
    const until = performance.now() + 5000;
    while (performance.now() < until && arrivals.some((s) => Number.isNaN(s.at[total - 1]!))) await sleep(20);

    let missing = 0;
    const rows: LatencyRow[] = [];
    for (const instance of ['A', 'B'] as const) {
      for (const from of ['send', 'answer'] as const) {
        const values: number[] = [];
        for (const s of arrivals.filter((x) => x.instance === instance)) {
          for (let k = warmup; k < total; k++) {
            const at = s.at[k]!;
            if (Number.isNaN(at)) {
              if (from === 'send') missing++;
              continue;
            }
            values.push(at - (from === 'send' ? sent[k]! : answered[k]!));
          }
        }
        rows.push({
          subscribers: instance === 'A' ? 'same instance (A, which took the write)' : 'other instance (B)',
          from: from === 'send' ? 'the write was sent' : "the write's answer arrived",
          samples: values.length,
          p50: quantile(values, 0.5),
          p95: quantile(values, 0.95),
          p99: quantile(values, 0.99),
          max: Math.max(...values),
        });
      }
    }
    const writeTimes = answered.slice(warmup).map((t, i) => t - sent[i + warmup]!);
    const fromSend = rows.filter((r) => r.from === 'the write was sent');
    const goals: Goal[] = fromSend.map((r) => ({
      name: `change to subscriber p99, ${r.subscribers.startsWith('same') ? 'same instance' : 'other instance'} (from the write's send)`,
      target: '< 100 ms',
      measured: `${r.p99.toFixed(1)} ms`,
      met: missing === 0 && r.p99 < 100,
    }));
    const markdown = [
      table(
        ['subscribers', 'latency from the moment', 'samples', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        rows.map((r) => [r.subscribers, r.from, fmt(r.samples), r.p50.toFixed(1), r.p95.toFixed(1), r.p99.toFixed(1), r.max.toFixed(1)]),
      ),
      '',
      `${fmt(total - warmup)} writes measured (the first ${warmup} of ${total} were warm-up), ${missing} deliveries missing; the writes themselves (PATCH, send to answer): p50 ${quantile(writeTimes, 0.5).toFixed(1)} ms, p99 ${quantile(writeTimes, 0.99).toFixed(1)} ms.`,
      '',
      goalsTable(goals),
    ].join('\n');
    return {
      writes: total,
      measuredWrites: total - warmup,
      missing,
      writeP50: quantile(writeTimes, 0.5),
      writeP99: quantile(writeTimes, 0.99),
      rows,
      goals,
      markdown,
    };
  } finally {
    for (const stream of streams) stream.close();
    await Promise.all([a.stop(), b.stop()]);
    await dropDatabase(adminUrl, 'bench_events_latency');
  }
}

// ---------------------------------------------------------------------------------------------
// recording: node create throughput with and without the change log

type Protocol = 'one board' | 'a board per connection';
const PROTOCOLS: Protocol[] = ['one board', 'a board per connection'];

/** A version of the service in the comparison: this tree (with the change log), the baseline, and optionally another. */
interface Version {
  key: 'with' | 'without' | 'other';
  label: string;
  root: string;
  database: string;
}

interface Side extends Version {
  server: ServerChild;
  token: string;
  /** Per protocol, the board each connection creates on. */
  boards: Record<Protocol, string[]>;
}

interface Measure {
  round: number;
  protocol: Protocol;
  side: Version['key'];
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  /** CPU per create of the server process and of its database's PostgreSQL backends, in ms. */
  serverCpuMs: number;
  databaseCpuMs: number;
  load: string;
}

async function creates(side: Side, protocol: Protocol, seconds: number): Promise<autocannon.Result> {
  const boards = side.boards[protocol];
  let next = 0;
  return autocannon({
    url: side.server.url,
    connections: settings.connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${side.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(noteBody(7)),
        setupRequest: (request, context: { path?: string }) => {
          context.path ??= `/v1/boards/${boards[next++ % boards.length]}/nodes`;
          return { ...request, path: context.path };
        },
      },
    ],
  });
}

interface SummaryRow {
  protocol: Protocol;
  side: Version['key'];
  label: string;
  reqPerSec: number;
  /** Mean throughput against the baseline's mean: 0.05 is 5% slower, negative faster. */
  slower: number;
  /**
   * Each round's throughput against the baseline's in the same round (measured next to it), their
   * median and range: the machine's speed drifts by up to ±20% between rounds, which a pair
   * measured side by side shares and the mean of all rounds does not cancel.
   */
  paired: { median: number; min: number; max: number };
  serverCpuMs: number;
  databaseCpuMs: number;
}

interface RecordingResult {
  versions: Omit<Version, 'database'>[];
  measures: Measure[];
  summary: SummaryRow[];
  goals: Goal[];
  markdown: string;
}

const percent = (slower: number) => `${(Math.abs(slower) * 100).toFixed(1)}% ${slower >= 0 ? 'slower' : 'faster'}`;

async function runRecording(adminUrl: string, server0: ServerOptions, versions: Version[]): Promise<RecordingResult> {
  const sides: Side[] = [];
  try {
    for (const version of versions) {
      const url = await freshDatabase(adminUrl, version.database);
      const server = await startServerChild({
        ...server0,
        root: version.root,
        env: { ...server0.env, DATABASE_URL: url, BOARD_MAX_NODES: '1000000' },
      });
      const token = await benchApiKey(server.url, `bench-events-${version.key}`);
      const api = new ApiClient(server.url, token);
      const spread = await runBounded(settings.connections, 4, (i) => createBoard(api, `Creates ${i}`));
      sides.push({
        ...version,
        server,
        token,
        boards: { 'one board': [await createBoard(api, 'Creates')], 'a board per connection': spread },
      });
    }
    console.log('  warming up: 3 s per protocol and server');
    for (const side of sides) for (const protocol of PROTOCOLS) await creates(side, protocol, 3);

    const measures: Measure[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // ABBA: the order flips every round, so a drift of the machine's load weighs on all alike.
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const protocol of PROTOCOLS) {
        for (const side of order) {
          const cpu0 = side.server.cpuSeconds();
          const db0 = databaseCpuSeconds(side.database);
          const r = await creates(side, protocol, settings.seconds);
          const m: Measure = {
            round,
            protocol,
            side: side.key,
            reqPerSec: r.requests.average,
            p50: r.latency.p50,
            p99: r.latency.p99,
            requests: r.requests.total,
            bad: r.non2xx + r.errors,
            serverCpuMs: ((side.server.cpuSeconds() - cpu0) * 1000) / r.requests.total,
            databaseCpuMs: ((databaseCpuSeconds(side.database) - db0) * 1000) / r.requests.total,
            load: load(),
          };
          measures.push(m);
          console.log(
            `  round ${round}, ${protocol}, ${side.label}: ${fmt(m.reqPerSec)} creates/s, p50 ${m.p50} ms, p99 ${m.p99} ms, CPU per create: server ${m.serverCpuMs.toFixed(2)} ms, PostgreSQL ${m.databaseCpuMs.toFixed(2)} ms${m.bad ? ` (${m.bad} failed!)` : ''} (load ${m.load})`,
          );
        }
      }
    }

    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    const summary: SummaryRow[] = PROTOCOLS.flatMap((protocol) => {
      const of = (key: Version['key'], field: 'reqPerSec' | 'serverCpuMs' | 'databaseCpuMs') =>
        mean(measures.filter((m) => m.protocol === protocol && m.side === key).map((m) => m[field]));
      const baseline = of('without', 'reqPerSec');
      const paired = (key: Version['key']) => {
        const ratios = [];
        for (let round = 1; round <= settings.rounds; round++) {
          const at = (k: Version['key']) => measures.find((m) => m.protocol === protocol && m.side === k && m.round === round)!.reqPerSec;
          ratios.push(1 - at(key) / at('without'));
        }
        const sorted = ratios.sort((a, b) => a - b);
        const middle = sorted.length / 2;
        const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
        return { median, min: sorted[0]!, max: sorted.at(-1)! };
      };
      return versions.map((v) => ({
        protocol,
        side: v.key,
        label: v.label,
        reqPerSec: of(v.key, 'reqPerSec'),
        slower: 1 - of(v.key, 'reqPerSec') / baseline,
        paired: paired(v.key),
        serverCpuMs: of(v.key, 'serverCpuMs'),
        databaseCpuMs: of(v.key, 'databaseCpuMs'),
      }));
    });
    const clean = measures.every((m) => m.bad === 0);
    const goals: Goal[] = summary
      .filter((row) => row.side === 'with')
      .map((row) => ({
        name: `node create throughput with the change log, ${row.protocol}`,
        target: 'at most 15% slower',
        measured: `${percent(row.paired.median)} (median of the rounds' pairs; ${percent(row.slower)} by the means)`,
        met: clean && row.paired.median <= 0.15,
      }));
    const labelOf = (key: Version['key']) => versions.find((v) => v.key === key)!.label;
    const markdown = [
      table(
        [
          'round',
          'protocol',
          'server',
          'creates/s',
          'p50 ms',
          'p99 ms',
          'creates',
          'failed',
          'server CPU ms per create',
          'PostgreSQL CPU ms per create',
          'load average',
        ],
        measures.map((m) => [
          m.round,
          m.protocol,
          labelOf(m.side),
          fmt(m.reqPerSec),
          m.p50,
          m.p99,
          fmt(m.requests),
          m.bad,
          m.serverCpuMs.toFixed(2),
          m.databaseCpuMs.toFixed(2),
          m.load,
        ]),
      ),
      '',
      table(
        [
          'protocol',
          'server',
          'mean creates/s',
          'against the baseline (means)',
          'against the baseline, round by round: median (range)',
          'server CPU ms per create',
          'PostgreSQL CPU ms per create',
        ],
        summary.map((row) => [
          row.protocol,
          row.label,
          fmt(row.reqPerSec),
          row.side === 'without' ? '(the baseline)' : percent(row.slower),
          row.side === 'without' ? '' : `${percent(row.paired.median)} (${percent(row.paired.min)} to ${percent(row.paired.max)})`,
          row.serverCpuMs.toFixed(2),
          row.databaseCpuMs.toFixed(2),
        ]),
      ),
      '',
      goalsTable(goals),
    ].join('\n');
    return { versions: versions.map(({ database: _, ...v }) => v), measures, summary, goals, markdown };
  } finally {
    await Promise.all(sides.map((side) => side.server.stop()));
    for (const version of versions) await dropDatabase(adminUrl, version.database);
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = asked.filter((a) => !PARTS.includes(a as Part));
  if (unknown.length > 0) throw new Error(`unknown part ${unknown.join(', ')}: use ${PARTS.join(', ')}`);
  const run = (part: Part) => asked.length === 0 || asked.includes(part);
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    throw new Error(
      'BENCH_DATABASE_URL is needed: a PostgreSQL url whose user may create databases (eval "$(bash scripts/postgres-test-server.sh start)" makes one: TEST_POSTGRES_URL)',
    );
  }
  const baseline = process.env.BENCH_BASELINE_DIR ? path.resolve(process.env.BENCH_BASELINE_DIR) : undefined;
  if (run('recording') && (!baseline || !fs.existsSync(path.join(baseline, 'src/server.ts')))) {
    throw new Error(
      'the recording part needs BENCH_BASELINE_DIR: this commit without the change log, e.g. `git worktree add --detach /tmp/bench-nolog HEAD && git -C /tmp/bench-nolog apply "$PWD/bench/no-change-log.patch" && ln -s "$PWD/node_modules" /tmp/bench-nolog/node_modules`',
    );
  }

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
  // BENCH_NO_BUILD=1 reuses the dist/ already built in both trees (repeated runs while developing).
  const versions: Version[] = [
    { key: 'with', label: 'this tree (with the change log)', root: ROOT, database: 'bench_events_with' },
    {
      key: 'without',
      label: `${baseline ? path.basename(baseline) : 'baseline'} (without the change log)`,
      root: baseline ?? '',
      database: 'bench_events_without',
    },
  ];
  const other = process.env.BENCH_OTHER_DIR ? path.resolve(process.env.BENCH_OTHER_DIR) : undefined;
  if (other)
    versions.push({
      key: 'other',
      label: process.env.BENCH_OTHER_LABEL || path.basename(other),
      root: other,
      database: 'bench_events_other',
    });
  if (mode === 'dist' && process.env.BENCH_NO_BUILD !== '1') {
    buildServiceOnly(ROOT);
    if (run('recording')) for (const v of versions.slice(1)) buildServiceOnly(v.root);
  }
  const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (cpuProfDir) fs.mkdirSync(cpuProfDir, { recursive: true });
  const server0: ServerOptions = { cpuProfDir };
  const pg = await serverVersion(adminUrl).catch(() => 'unknown version');

  let streams: StreamsResult | undefined;
  let latency: LatencyResult | undefined;
  let recording: RecordingResult | undefined;
  if (run('streams')) {
    console.log(`\n== ${fmt(settings.streams)} open streams at rest ==`);
    streams = await runStreams(adminUrl, server0);
  }
  if (run('latency')) {
    console.log('\n== change to subscriber latency, two instances ==');
    latency = await runLatency(adminUrl, server0);
  }
  if (run('recording')) {
    console.log('\n== recording cost: node creates with and without the change log ==');
    recording = await runRecording(adminUrl, server0, versions);
  }
  const totalSeconds = (Date.now() - started) / 1000;

  const command = `npm run bench:events${asked.length ? ` -- ${asked.join(' ')}` : ''}`;
  const md = [
    `Command: \`${command}\`${mode === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${totalSeconds.toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}; load average ${m.loadAverage.toFixed(2)} at the start, ${load()} at the end.`,
    `Server: ${mode === 'dist' ? 'node dist/server.js (tsc build of the service)' : 'node --import tsx src/server.ts'}, PostgreSQL ${pg}, a fresh database per part.`,
    ...(streams
      ? [
          '',
          `### ${fmt(settings.streams)} open streams at rest (one instance)`,
          '',
          `Protocol: one server process; ${fmt(settings.streams)} streams (\`GET /v1/boards/{id}/events\`, Accept: text/event-stream, one API key, ${STREAM_BOARDS} boards) opened by a lean reader (http.get + eventsource-parser), each answered its \`ready\` event; nothing written. CPU is utime+stime of the server process from /proc/<pid>/stat over ${settings.restSeconds} s, RSS VmRSS from /proc/<pid>/status at the end of that window, ${SETTLE_MS / 1000} s after the last change of state. The reference is the same process with no stream open, before and after.`,
          '',
          streams.markdown,
        ]
      : []),
    ...(latency
      ? [
          '',
          '### From a committed change to its subscribers (two instances, one database)',
          '',
          `Protocol: two server processes A and B on one database; ${settings.subscribers} streams on one board, alternately on A and B, read by the lean reader; \`PATCH /v1/boards/{boardId}/nodes/{id}\` through A at ${settings.writesPerSecond} per second (open loop, 20 nodes in turn, each write's number in its data); latency is the time the event's bytes were read by the bench process minus the moment the write was sent, and minus the moment its answer arrived (negative: the event came first). The bench process, both servers and PostgreSQL share the 2 cores.`,
          '',
          latency.markdown,
        ]
      : []),
    ...(recording
      ? [
          '',
          '### The cost of recording: node creates with and without the change log',
          '',
          `Protocol: ${recording.versions.length} server processes (${recording.versions.map((v) => `${v.label}: \`${v.root}\``).join('; ')}), each on a fresh database of its own on the same PostgreSQL server; autocannon, ${settings.connections} connections, \`POST /v1/boards/{boardId}/nodes\` with the same note body, ${settings.seconds} s per measurement after 3 s of warm-up per server and protocol, the servers alternated (ABBA) over ${settings.rounds} rounds; the verdict is the median over the rounds of each round's throughput against the baseline's in the same round. Protocols: all connections on one board (the writes queue on the board's lock), or each connection on a board of its own.`,
          '',
          recording.markdown,
        ]
      : []),
  ].join('\n');

  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'events-latest.md'), `${md}\n`);
  fs.writeFileSync(
    path.join(dir, 'events-latest.json'),
    `${JSON.stringify({ command, machine: m, mode, settings, streams, latency, recording, totalSeconds }, null, 2)}\n`,
  );
  console.log(`\n${md}\n`);
  for (const g of [...(latency?.goals ?? []), ...(recording?.goals ?? [])])
    console.log(`${verdict(g.met).padEnd(7)} ${g.name}: ${g.measured} (target ${g.target})`);
  console.log('\nwritten to bench/results/events-latest.md and events-latest.json');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('benchmark failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
