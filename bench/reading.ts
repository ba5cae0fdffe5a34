// `npm run bench:reading`: reading 100 local pages (issue 29). A page server on loopback in this
// process serves 100 articles made of SciFact abstracts (real text: title, og: tags, the abstract's
// sentences in paragraphs of three, a nav and a footer around them). One server (a child process,
// bench/lib/server.ts, OUTBOUND_ALLOWED_HOSTS=127.0.0.1) on a fresh embedded database, or with
// BENCH_DATABASE_URL on that PostgreSQL database (emptied first). Two phases, alternated for
// BENCH_READING_ROUNDS rounds (default 3) on the same server, each on a board of its own:
//   read: 100 url nodes, then one POST …/documents/batch naming each node with no text: each job
//         fetches its page, extracts it (Readability over linkedom), chunks, embeds and writes the
//         chunks, and merges the preview into the node.
//   reference: 100 notes holding the very texts the read extracted (each read node's chunks, as
//         read by the first round, joined), vectorized by one POST …/documents/batch with the text given.
// Pages (or documents) per second from the batch request until the last job completed (the jobs'
// updated_at); the figure is the median over the rounds, and its ratio to the reference's median.
// Settings: BENCH_READING_PAGES (default 100), BENCH_READING_ROUNDS, BENCH_DATABASE_URL,
// BENCH_SERVER=tsx (run the sources without building), SCIFACT_DIR.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, benchApiKey, createBoard } from './lib/api.js';
import { emptyDatabase } from './lib/postgres.js';
import { fmt, machine, median, table } from './lib/report.js';
import { buildServer, serverMode, startServerChild } from './lib/server.js';
import { loadCorpus } from './search-quality-data.js';

const PAGES = Number(process.env.BENCH_READING_PAGES ?? 100);
const ROUNDS = Number(process.env.BENCH_READING_ROUNDS ?? 3);
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function articleHtml(title: string, sentences: string[]): string {
  const paragraphs: string[] = [];
  for (let i = 0; i < sentences.length; i += 3) paragraphs.push(sentences.slice(i, i + 3).join(' '));
  return `<!doctype html><html><head><title>${escapeHtml(title)} | Bench Journal</title>
<meta property="og:title" content="${escapeHtml(title)}"><meta property="og:site_name" content="Bench Journal">
<meta name="description" content="${escapeHtml(sentences[0] ?? '')}"><meta property="og:image" content="/cover.png"></head>
<body><nav><a href="/">Home</a> <a href="/archive">Archive</a> <a href="/about">About</a></nav>
<main><article><h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}</article></main>
<footer>© Bench Journal. All rights reserved.</footer><script>window.analytics = true;</script></body></html>`;
}

interface Job {
  id: string;
  status: string;
  error: string | null;
  updated_at: string;
}

/** Waits for every job to end; answers the last one's completion time (ms since epoch). */
async function waitAll(api: ApiClient, ids: string[]): Promise<number> {
  let last = 0;
  for (const id of ids) {
    for (;;) {
      const { data } = await api.call<{ data: Job }>('GET', `/v1/jobs/${id}`, undefined, 200);
      if (data.status === 'completed') {
        last = Math.max(last, Date.parse(data.updated_at));
        break;
      }
      if (data.status === 'failed') throw new Error(`job ${id} failed: ${data.error}`);
      await sleep(50);
    }
  }
  return last;
}

async function batch(api: ApiClient, board: string, documents: Record<string, unknown>[]): Promise<number> {
  const started = Date.now();
  const { data } = await api.call<{ data: Job[] }>('POST', `/v1/boards/${board}/documents/batch`, { documents }, 202);
  const last = await waitAll(
    api,
    data.map((j) => j.id),
  );
  return PAGES / ((last - started) / 1000);
}

async function main() {
  const corpus = loadCorpus().slice(0, PAGES);
  const pages = corpus.map((a) => articleHtml(a.title, a.text.split(/(?<=[.!?])\s+/)));
  const server = http.createServer((req, res) => {
    const i = Number((req.url ?? '').slice('/article/'.length));
    if (!Number.isInteger(i) || !pages[i]) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[i]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pageBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  if (serverMode() === 'dist') buildServer();
  if (databaseUrl) await emptyDatabase(databaseUrl);
  const child = await startServerChild({
    env: { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
  });
  try {
    const api = new ApiClient(child.url, await benchApiKey(child.url, 'bench-reading'));
    const read: number[] = [];
    const reference: number[] = [];
    let texts: string[] | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      // Read: url nodes, read by the service.
      const board = await createBoard(api, `read ${round}`);
      const nodes = await api.call<{ data: { results: { id: string }[] } }>(
        'POST',
        `/v1/boards/${board}/batch`,
        {
          operations: pages.map((_, i) => ({
            op: 'create_node',
            type: 'url',
            position: { x: i * 10, y: 0 },
            data: { url: `${pageBase}/article/${i}` },
          })),
        },
        200,
      );
      const ids = nodes.data.results.map((r) => r.id);
      read.push(
        await batch(
          api,
          board,
          ids.map((id) => ({ node_id: id })),
        ),
      );
      texts ??= await Promise.all(
        ids.map(async (id) => {
          const chunks = await api.call<{ data: { content: string }[] }>(
            'GET',
            `/v1/boards/${board}/documents?node_id=${id}&order=asc&limit=100`,
            undefined,
            200,
          );
          return chunks.data.map((c) => c.content).join('\n\n');
        }),
      );
      // Reference: the same texts, given.
      const noteBoard = await createBoard(api, `reference ${round}`);
      reference.push(
        await batch(
          api,
          noteBoard,
          texts.map((text) => ({ text, source: 'reference' })),
        ),
      );
      console.log(`round ${round + 1}: read ${fmt(read.at(-1)!, 1)} pages/s, reference ${fmt(reference.at(-1)!, 1)} documents/s`);
    }
    const m = machine();
    console.log(
      `\n${PAGES} local pages, ${ROUNDS} rounds, ${databaseUrl ? 'PostgreSQL' : 'embedded'}, ${serverMode()} server; ${m.cpus} cores, load ${fmt(m.loadAverage, 2)}`,
    );
    console.log(
      table(
        ['phase', 'per second (median)', 'rounds'],
        [
          ['read (fetch + Readability + chunk + embed + write)', fmt(median(read), 1), read.map((r) => fmt(r, 1)).join(', ')],
          ['reference (the same texts given)', fmt(median(reference), 1), reference.map((r) => fmt(r, 1)).join(', ')],
        ],
      ),
    );
    console.log(`\nread / reference: ${fmt((median(read) / median(reference)) * 100, 1)}%`);
  } finally {
    await child.stop();
    server.close();
  }
}

await main();
