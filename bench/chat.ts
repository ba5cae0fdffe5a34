// `npm run bench:chat`: chat replies through the public API, the built server as a child process on
// loopback (bench/lib/server.ts), every stream parsed with eventsource-parser.
//   local:      a board of 1,000 distinct notes created through the API; after a warm-up, N questions
//               (each in a fresh chat, sequential) streamed from the local model: time to the first
//               `message.delta` and to `message.complete`, median and p95 (goal: first delta < 50 ms
//               median), and whether each answer quotes the note asked about.
//   concurrent: 200 chats, one streamed reply each, all posted at once; the openai provider talks to
//               a fake OpenAI-compatible server in this process that emits 200 deltas per reply, each
//               stream's text derived from its question. Every stream must complete with exactly its
//               own 200 deltas in order, equal to message.complete and to the stored message; time to
//               first delta p50/p99, total time, and the server's VmRSS/VmHWM from /proc.
// Settings (environment): CHAT_BENCH_QUESTIONS (30), CHAT_BENCH_STREAMS (200), CHAT_BENCH_DELTAS
// (200), CHAT_BENCH_DELTA_MS (5, the fake model's pause between deltas), BENCH_SERVER=tsx,
// BENCH_CPU_PROF=<dir> (V8 CPU profiles of the servers; summarise with bench/profile-summary.ts).
//   npm run bench:chat                 both parts;  npm run bench:chat -- local | concurrent
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { startFakeOpenAi, type Behaviour } from '../test/helpers/fake-openai.js';
import { ApiClient, benchApiKey, createBoard, runBounded } from './lib/api.js';
import { fmt, type Goal, goalsTable, machine, median, quantile, table, verdict } from './lib/report.js';
import { buildServer, ROOT, serverMode, startServerChild, type ServerChild } from './lib/server.js';

const DEADLINE_MS = 10 * 60 * 1000;
const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
if (cpuProfDir) fs.mkdirSync(cpuProfDir, { recursive: true });
const REQUEST_TIMEOUT_MS = 120_000;

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

const ms = (n: number) => `${fmt(n, 1)} ms`;

/** CPU time (user + system, every thread) the process has used so far, in ms: less load-sensitive than wall time. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface StreamResult {
  firstDeltaMs: number;
  completeMs: number;
  deltas: string[];
  complete: { message: { id: string; content: string }; usage: unknown } | undefined;
  error: unknown;
}

/** Posts a streamed message and reads its events with eventsource-parser, timing the first delta and the end. */
async function streamReply(baseUrl: string, token: string, boardId: string, chatId: string, content: string): Promise<StreamResult> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/boards/${boardId}/chats/${chatId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content, stream: true }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`streamed post: expected 200, got ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const result: StreamResult = { firstDeltaMs: NaN, completeMs: NaN, deltas: [], complete: undefined, error: undefined };
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data);
      if (event.event === 'message.delta') {
        if (result.deltas.length === 0) result.firstDeltaMs = performance.now() - started;
        result.deltas.push(data.content);
      } else if (event.event === 'message.complete') {
        result.completeMs = performance.now() - started;
        result.complete = data;
      } else if (event.event === 'error') {
        result.error = data;
      } else {
        result.error = { unexpected: event.event };
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Part 1: the local model over a board of 1,000 notes.

const TOPICS = [
  'orchard',
  'warehouse',
  'bakery',
  'library',
  'clinic',
  'studio',
  'garage',
  'harbour',
  'observatory',
  'greenhouse',
  'brewery',
  'foundry',
  'kitchen',
  'laboratory',
  'stable',
  'theatre',
  'vineyard',
  'workshop',
  'dairy',
  'quarry',
];
const ITEMS = [
  'ladders',
  'invoices',
  'sourdough',
  'manuscripts',
  'vaccines',
  'microphones',
  'tyres',
  'ferries',
  'telescopes',
  'seedlings',
  'barrels',
  'moulds',
  'knives',
  'microscopes',
  'saddles',
  'curtains',
  'grapes',
  'lathes',
  'churns',
  'chisels',
];
const PEOPLE = [
  'Amara',
  'Bruno',
  'Chen',
  'Dalia',
  'Emeka',
  'Freya',
  'Goran',
  'Hana',
  'Ilse',
  'Jonas',
  'Keiko',
  'Luca',
  'Mira',
  'Nadia',
  'Omar',
  'Petra',
  'Quinn',
  'Rosa',
  'Sami',
  'Tariq',
  'Uma',
  'Viktor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zora',
];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Note i of the board: distinct words per note, about 40 words, a label like people give. */
function note(i: number) {
  const topic = TOPICS[i % TOPICS.length]!;
  const item = ITEMS[(i * 7) % ITEMS.length]!;
  const person = PEOPLE[(i * 11) % PEOPLE.length]!;
  const day = DAYS[(i * 3) % DAYS.length]!;
  return {
    label: `${topic} team ${i}`,
    text:
      `The ${topic} team ${i} checks the ${item} every ${day}. ` +
      `${person} approves the ${topic} team ${i} purchases above ${100 + i * 7} euros. ` +
      `Stock of ${item} for unit ${i} is counted at ${(i % 12) + 7} o'clock, and spare ${ITEMS[(i * 13) % ITEMS.length]} go to the back room.`,
    person,
  };
}

const question = (i: number) => `Who approves the ${TOPICS[i % TOPICS.length]} team ${i} purchases?`;

export interface LocalResult {
  notes: number;
  seedSeconds: number;
  questions: number;
  firstDeltaMs: number[];
  completeMs: number[];
  serverCpuMsPerQuestion: number;
  answeredRight: number;
  memory: { afterSeed: { rssMiB: number; peakMiB: number }; after: { rssMiB: number; peakMiB: number } };
}

async function runLocal(questions: number, warmup: number): Promise<LocalResult> {
  const server = await startServerChild({ cpuProfDir, env: { LLM_PROVIDER: 'local' } });
  try {
    const token = await benchApiKey(server.url, 'bench-chat-local');
    const api = new ApiClient(server.url, token);
    const boardId = await createBoard(api, 'chat bench: 1,000 notes');
    const NOTES = 1000;
    const seedStarted = performance.now();
    await runBounded(NOTES, 16, async (i) => {
      const { label, text } = note(i);
      await api.call(
        'POST',
        `/v1/boards/${boardId}/nodes`,
        { type: 'note', position: { x: (i % 40) * 320, y: Math.floor(i / 40) * 240 }, data: { label, text } },
        201,
      );
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const afterSeed = server.memory();
    console.log(`seeded ${NOTES} notes in ${seedSeconds.toFixed(1)} s`);

    // Questions about notes spread over the board (deterministic), each in a fresh chat.
    const ask = async (i: number) => {
      const chat = await api.call('POST', `/v1/boards/${boardId}/chats`, { title: `q${i}` }, 201);
      const r = await streamReply(server.url, token, boardId, chat.data.id, question(i));
      if (r.error || !r.complete) throw new Error(`local reply failed: ${JSON.stringify(r.error)}`);
      if (r.deltas.join('') !== r.complete.message.content) throw new Error('local reply: deltas differ from message.complete');
      return r;
    };
    for (let w = 0; w < warmup; w++) await ask((w * 389 + 17) % NOTES);
    const first: number[] = [];
    const complete: number[] = [];
    let right = 0;
    const cpuBefore = cpuMs(server.pid);
    for (let q = 0; q < questions; q++) {
      const i = (q * 131 + 7) % NOTES;
      const r = await ask(i);
      first.push(r.firstDeltaMs);
      complete.push(r.completeMs);
      // Right: the answer quotes the note's own approver sentence.
      if (r.complete!.message.content.includes(`${note(i).person} approves the ${TOPICS[i % TOPICS.length]} team ${i} purchases`)) right++;
    }
    // Includes creating each question's chat (one small insert).
    const serverCpuMsPerQuestion = (cpuMs(server.pid) - cpuBefore) / questions;
    console.log(`local: server CPU ${serverCpuMsPerQuestion.toFixed(1)} ms per question (with its chat creation)`);
    console.log(
      `local: first delta median ${ms(median(first))}, p95 ${ms(quantile(first, 0.95))}; complete median ${ms(median(complete))}, p95 ${ms(quantile(complete, 0.95))}; ${right}/${questions} quote the note asked about`,
    );
    return {
      notes: NOTES,
      seedSeconds,
      questions,
      firstDeltaMs: first,
      completeMs: complete,
      serverCpuMsPerQuestion,
      answeredRight: right,
      memory: { afterSeed, after: server.memory() },
    };
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: 200 concurrent streamed replies from a fake OpenAI-compatible provider.

/** Delta j of stream k: unique across streams and positions, so any loss, duplicate or mix-up shows. */
const deltaText = (k: number, j: number) => `${j === 0 ? '' : ' '}s${k}.d${j}`;
const expectedDeltas = (k: number, n: number) => Array.from({ length: n }, (_, j) => deltaText(k, j));

export interface ConcurrentResult {
  streams: number;
  deltasPerStream: number;
  deltaPauseMs: number;
  firstDeltaMs: number[];
  completeMs: number[];
  totalMs: number;
  completed: number;
  intact: number;
  storedEqual: number;
  failures: string[];
  upstreamRequests: number;
  /** CPU time used during the burst by the server and by this process (clients and fake provider). */
  cpuMs: { server: number; bench: number };
  memory: { atStart: { rssMiB: number; peakMiB: number }; peakSampledMiB: number; after: { rssMiB: number; peakMiB: number } };
}

async function runConcurrent(streams: number, deltas: number, pauseMs: number): Promise<ConcurrentResult> {
  const fake = await startFakeOpenAi();
  fake.record = false;
  let upstream = 0;
  fake.behaviourFor = (body): Behaviour | undefined => {
    const last = body.messages?.at(-1)?.content as string | undefined;
    const match = /^stream (\d+):/.exec(last ?? '');
    if (!match) return undefined;
    upstream++;
    return {
      kind: 'answer',
      deltas: expectedDeltas(Number(match[1]), deltas),
      usage: { prompt_tokens: 50, completion_tokens: deltas },
      delayMs: pauseMs,
    };
  };
  let server: ServerChild | undefined;
  try {
    server = await startServerChild({
      cpuProfDir,
      env: {
        LLM_PROVIDER: 'openai',
        LLM_MODEL: 'fake-gpt',
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-bench',
        LLM_MAX_RETRIES: '0',
        LLM_TIMEOUT_MS: '60000',
      },
    });
    const token = await benchApiKey(server.url, 'bench-chat-concurrent');
    const api = new ApiClient(server.url, token);
    const boardId = await createBoard(api, 'chat bench: concurrent streams');
    await runBounded(5, 5, (i) =>
      api.call(
        'POST',
        `/v1/boards/${boardId}/nodes`,
        { type: 'note', position: { x: i, y: 0 }, data: { text: `Context note ${i} for the concurrent chat benchmark.` } },
        201,
      ),
    );
    // One chat per stream: a chat holds one generating reply at a time. Plus warm-up chats.
    const WARMUP = 10;
    const chatIds = await runBounded(
      streams + WARMUP,
      16,
      async (k) => (await api.call('POST', `/v1/boards/${boardId}/chats`, { title: `stream ${k}` }, 201)).data.id as string,
    );
    const question = (k: number) => `stream ${k}: tell me what the board says about context notes.`;
    await Promise.all(
      Array.from({ length: WARMUP }, (_, w) => streamReply(server!.url, token, boardId, chatIds[streams + w]!, question(streams + w))),
    );
    const atStart = server.memory();

    let peakSampled = atStart.rssMiB;
    const sampler = setInterval(() => {
      try {
        peakSampled = Math.max(peakSampled, server!.memory().rssMiB);
      } catch {
        // the server is gone: the run fails below
      }
    }, 50);
    const serverCpuBefore = cpuMs(server.pid);
    const benchCpuBefore = process.cpuUsage();
    const started = performance.now();
    const settled = await Promise.allSettled(
      Array.from({ length: streams }, (_, k) => streamReply(server!.url, token, boardId, chatIds[k]!, question(k))),
    );
    const totalMs = performance.now() - started;
    const serverCpu = cpuMs(server.pid) - serverCpuBefore;
    const benchUsage = process.cpuUsage(benchCpuBefore);
    const benchCpu = (benchUsage.user + benchUsage.system) / 1000;
    clearInterval(sampler);
    const after = server.memory();

    const failures: string[] = [];
    const first: number[] = [];
    const complete: number[] = [];
    let completed = 0;
    let intact = 0;
    let storedEqual = 0;
    await runBounded(streams, 16, async (k) => {
      const s = settled[k]!;
      if (s.status === 'rejected') return void failures.push(`stream ${k}: ${String(s.reason).slice(0, 200)}`);
      const r = s.value;
      if (r.error || !r.complete) return void failures.push(`stream ${k}: ${JSON.stringify(r.error ?? 'no message.complete')}`);
      completed++;
      first.push(r.firstDeltaMs);
      complete.push(r.completeMs);
      const want = expectedDeltas(k, deltas);
      // Intact: exactly its own deltas, in order, none lost, none from another stream.
      if (r.deltas.length === want.length && r.deltas.every((d, j) => d === want[j]) && r.complete.message.content === want.join(''))
        intact++;
      else failures.push(`stream ${k}: ${r.deltas.length} deltas, text differs from expected`);
      const stored = await api.call('GET', `/v1/boards/${boardId}/chats/${chatIds[k]}/messages?limit=10`, undefined, 200);
      const reply = stored.data.filter((m: { role: string }) => m.role === 'assistant');
      if (reply.length === 1 && reply[0].id === r.complete.message.id && reply[0].content === want.join('')) storedEqual++;
      else failures.push(`stream ${k}: stored messages differ (${reply.length} assistant messages)`);
    });
    const p = (values: number[], q: number) => (values.length ? quantile(values, q) : NaN);
    console.log(
      `concurrent: ${completed}/${streams} completed, ${intact} intact, ${storedEqual} stored equal; first delta p50 ${ms(p(first, 0.5))}, p99 ${ms(p(first, 0.99))}; ` +
        `total ${ms(totalMs)}; CPU: server ${ms(serverCpu)}, bench process (client + fake provider) ${ms(benchCpu)}; RSS ${fmt(after.rssMiB)} MiB, peak ${fmt(after.peakMiB)} MiB`,
    );
    for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
    return {
      streams,
      deltasPerStream: deltas,
      deltaPauseMs: pauseMs,
      firstDeltaMs: first,
      completeMs: complete,
      totalMs,
      completed,
      intact,
      storedEqual,
      failures,
      upstreamRequests: upstream - WARMUP,
      cpuMs: { server: serverCpu, bench: benchCpu },
      memory: { atStart, peakSampledMiB: peakSampled, after },
    };
  } finally {
    await server?.stop();
    await fake.close();
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const which = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = which.filter((a) => a !== 'local' && a !== 'concurrent');
  if (unknown.length) throw new Error(`unknown part ${unknown.join(', ')}: use local and/or concurrent`);
  const run = (name: string) => which.length === 0 || which.includes(name);
  const deadline = setTimeout(() => {
    console.error(`the chat benchmark ran over ${DEADLINE_MS / 60_000} minutes; stopping`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();

  const m = machine();
  const started = Date.now();
  console.log(
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const mode = serverMode();
  const cleanBuild = mode === 'dist' ? buildServer() : undefined;

  const goals: Goal[] = [];
  const sections: string[] = [];
  let local: LocalResult | undefined;
  let concurrent: ConcurrentResult | undefined;
  if (run('local')) {
    console.log('\n== Local model, board of 1,000 notes ==');
    local = await runLocal(setting('CHAT_BENCH_QUESTIONS', 30), 5);
    const f = local.firstDeltaMs;
    const c = local.completeMs;
    goals.push({ name: 'local model: first message.delta, median', target: '< 50 ms', measured: ms(median(f)), met: median(f) < 50 });
    sections.push(
      '### Local model over a board of 1,000 notes',
      '',
      table(
        ['measure', 'value'],
        [
          ['board', `${local.notes} distinct notes created through the API (16 in flight) in ${local.seedSeconds.toFixed(1)} s`],
          ['questions', `${local.questions} sequential streamed questions, each in a fresh chat, after 5 untimed`],
          [
            'first `message.delta`',
            `median ${ms(median(f))}, p95 ${ms(quantile(f, 0.95))}, min ${ms(Math.min(...f))}, max ${ms(Math.max(...f))}`,
          ],
          ['`message.complete`', `median ${ms(median(c))}, p95 ${ms(quantile(c, 0.95))}, max ${ms(Math.max(...c))}`],
          ['server CPU per question (user + system, all threads, incl. creating its chat)', ms(local.serverCpuMsPerQuestion)],
          ['answers quoting the note asked about', `${local.answeredRight}/${local.questions}`],
          [
            'server RSS (VmRSS / VmHWM)',
            `after seeding ${fmt(local.memory.afterSeed.rssMiB)} MiB, after the questions ${fmt(local.memory.after.rssMiB)} MiB; peak ${fmt(local.memory.after.peakMiB)} MiB`,
          ],
        ],
      ),
    );
  }
  if (run('concurrent')) {
    const streams = setting('CHAT_BENCH_STREAMS', 200);
    const deltas = setting('CHAT_BENCH_DELTAS', 200);
    const pause = setting('CHAT_BENCH_DELTA_MS', 5);
    console.log(
      `\n== ${streams} concurrent streamed replies, ${deltas} deltas each (fake OpenAI-compatible provider, ${pause} ms between deltas) ==`,
    );
    concurrent = await runConcurrent(streams, deltas, pause);
    const r = concurrent;
    const all = r.completed === r.streams && r.intact === r.streams && r.storedEqual === r.streams;
    goals.push({
      name: `${r.streams} concurrent streams: all complete, none lost or interleaved`,
      target: `${r.streams}/${r.streams}`,
      measured: `${r.completed} complete, ${r.intact} intact, ${r.storedEqual} stored equal`,
      met: all,
    });
    const f = r.firstDeltaMs;
    sections.push(
      ...(sections.length ? [''] : []),
      `### ${r.streams} concurrent streamed replies`,
      '',
      table(
        ['measure', 'value'],
        [
          [
            'load',
            `${r.streams} chats, one streamed reply each, all posted at once; the fake provider sends ${r.deltasPerStream} deltas per reply, ${r.deltaPauseMs} ms apart (so a reply takes at least ${fmt((r.deltasPerStream * r.deltaPauseMs) / 1000, 1)} s)`,
          ],
          [
            'completed / intact / stored equal',
            `${r.completed} / ${r.intact} / ${r.storedEqual} of ${r.streams}; ${r.upstreamRequests} upstream requests`,
          ],
          [
            'time to first `message.delta`',
            f.length ? `p50 ${ms(quantile(f, 0.5))}, p99 ${ms(quantile(f, 0.99))}, max ${ms(Math.max(...f))}` : 'none',
          ],
          [
            'time to `message.complete`',
            r.completeMs.length ? `p50 ${ms(quantile(r.completeMs, 0.5))}, p99 ${ms(quantile(r.completeMs, 0.99))}` : 'none',
          ],
          ['total (first post to last complete)', ms(r.totalMs)],
          ['deltas relayed', `${fmt(r.intact * r.deltasPerStream)} in ${fmt(r.totalMs / 1000, 1)} s`],
          [
            'CPU time during the burst',
            `server ${fmt(r.cpuMs.server / 1000, 1)} s, bench process (200 clients and the fake provider) ${fmt(r.cpuMs.bench / 1000, 1)} s, over ${fmt(r.totalMs / 1000, 1)} s of wall time on ${os.availableParallelism()} CPUs`,
          ],
          [
            'server RSS',
            `before the burst ${fmt(r.memory.atStart.rssMiB)} MiB, highest sampled (every 50 ms) ${fmt(r.memory.peakSampledMiB)} MiB, after ${fmt(r.memory.after.rssMiB)} MiB; VmHWM ${fmt(r.memory.after.peakMiB)} MiB`,
          ],
        ],
      ),
    );
    if (r.failures.length) sections.push('', `Failures (first 10): ${r.failures.slice(0, 10).join('; ')}`);
  }
  const totalSeconds = (Date.now() - started) / 1000;
  const command = `npm run bench:chat${which.length ? ` -- ${which.join(' ')}` : ''}`;
  const md = [
    `Command: \`${command}\`${mode === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${totalSeconds.toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end.`,
    `Server: ${mode === 'dist' ? `node dist/server.js (build ${cleanBuild ? 'clean' : 'with type errors'})` : 'node --import tsx src/server.ts'}, embedded database, one child process.`,
    '',
    ...sections,
    '',
    goalsTable(goals),
  ].join('\n');
  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chat-latest.md'), `${md}\n`);
  fs.writeFileSync(
    path.join(dir, 'chat-latest.json'),
    `${JSON.stringify({ command, machine: m, mode, cleanBuild, local, concurrent, totalSeconds }, null, 2)}\n`,
  );
  console.log(`\n${md}\n`);
  for (const g of goals) console.log(`${verdict(g.met).padEnd(7)} ${g.name}: ${g.measured} (target ${g.target})`);
  console.log('\nwritten to bench/results/chat-latest.md and chat-latest.json');
  if (concurrent?.failures.length) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error('chat benchmark failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
