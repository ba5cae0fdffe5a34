// `npm run bench:chat-grounding`: does a chat reply name the abstracts that bear on the question?
// SciFact on one board through the public API (bench/scifact-board.ts: one note per abstract, each
// vectorized), then each train claim asked as a question, sequentially, each in a fresh chat
// (POST /v1/boards/{id}/chats {}, then POST …/chats/{chatId}/messages {content: claim, stream: false})
// of the default answerer (LLM_PROVIDER=local: extractive, no network). The reply's
// `metadata.sources` (the chunk ids it drew on, in order) are mapped to their abstracts (every chunk
// listed through GET /v1/boards/{id}/documents), and judged by the BEIR protocol
// (bench/search-quality-data.ts: relevant = the claim's evidence abstracts, else the ones it cites):
//   hit@5  share of claims for which any of the first 5 sources' abstracts is relevant
//   hit@1  the same for the first source only
//   the mean number of sources, the share of replies with none, reply latency p50/p95;
//   citations: the share of `metadata.citations` whose quote stands in its chunk at its place (the
//   chunk's content holds it, at char_start - the chunk's char_start when both are recorded) and
//   that the reply's text quotes (white space normalised), and the share of markers `[n]` that
//   resolve to a citation.
// Settings (environment): CHAT_GROUNDING_CLAIMS (the first N train claims; all 809 by default),
// SCIFACT_DIR, BENCH_SERVER=tsx (run the sources without building).
import os from 'node:os';
import { ApiClient, benchApiKey } from './lib/api.js';
import { fmt, machine, quantile, table } from './lib/report.js';
import { buildServer, serverMode, startServerChild } from './lib/server.js';
import { abstractOfChunks, loadScifactBoard } from './scifact-board.js';
import { claimLimit, loadBeirClaims, loadCorpus } from './search-quality-data.js';

const TOP = 5;

interface Citation {
  n: number;
  chunk_id: string;
  quote: string;
  char_start?: number;
  char_end?: number;
}

interface Reply {
  model: string;
  content: string;
  metadata: { sources?: string[]; citations?: Citation[]; retrieval?: string } | null;
}

type StoredChunk = { id: string; content: string; metadata: { char_start?: number } };

/** Every chunk of the board with its content and metadata. */
async function chunkTexts(api: ApiClient, boardId: string): Promise<Map<string, StoredChunk>> {
  const out = new Map<string, StoredChunk>();
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: { data: StoredChunk[]; has_more: boolean; cursor: string | null } = await api.call(
      'GET',
      `/v1/boards/${boardId}/documents?limit=100${query}`,
      undefined,
      200,
    );
    for (const chunk of page.data) out.set(chunk.id, chunk);
    cursor = page.has_more ? page.cursor : null;
  } while (cursor !== null);
  return out;
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Whether the citation's quote stands in its chunk at its place. */
function quoteAtItsPlace(citation: Citation, chunk: StoredChunk | undefined): boolean {
  if (!chunk || !citation.quote || !chunk.content.includes(citation.quote)) return false;
  const base = chunk.metadata.char_start;
  if (typeof base !== 'number' || typeof citation.char_start !== 'number' || typeof citation.char_end !== 'number') return true;
  return chunk.content.slice(citation.char_start - base, citation.char_end - base) === citation.quote;
}

const started = Date.now();
const m = machine();
const corpus = loadCorpus();
const claims = loadBeirClaims().slice(0, claimLimit('CHAT_GROUNDING_CLAIMS'));
const PROTOCOL = `BEIR relevance, ${claims.length} SciFact train claims`;
console.log(`SciFact: ${corpus.length} abstracts; ${claims.length} train claims asked (${PROTOCOL})`);

if (serverMode() === 'dist') buildServer();
// The board's 5,183 vectorize jobs are queued at once: above the default per-user bound (200).
const server = await startServerChild({ env: { LLM_PROVIDER: 'local', JOB_MAX_QUEUED_PER_USER: '10000' } });
try {
  const api = new ApiClient(server.url, await benchApiKey(server.url, 'bench-chat-grounding'));
  const board = await loadScifactBoard(api, corpus);
  const abstractOf = await abstractOfChunks(api, board);
  const chunks = await chunkTexts(api, board.boardId);

  let hit1 = 0;
  let hit5 = 0;
  let sourceCount = 0;
  let none = 0;
  let retrievalFailed = 0;
  const answerers = new Set<string>();
  const latencies: number[] = [];
  let citationCount = 0;
  let placed = 0;
  let quoted = 0;
  let markerCount = 0;
  let resolved = 0;
  for (const claim of claims) {
    const chat = await api.call<{ data: { id: string } }>('POST', `/v1/boards/${board.boardId}/chats`, {}, 201);
    const t = performance.now();
    const reply = (
      await api.call<{ data: Reply }>(
        'POST',
        `/v1/boards/${board.boardId}/chats/${chat.data.id}/messages`,
        { content: claim.claim, stream: false },
        201,
      )
    ).data;
    latencies.push(performance.now() - t);
    answerers.add(reply.model);
    if (reply.metadata?.retrieval !== 'ok') retrievalFailed++;
    const citations = reply.metadata?.citations ?? [];
    const said = normalise(reply.content);
    for (const c of citations) {
      citationCount++;
      if (quoteAtItsPlace(c, chunks.get(c.chunk_id))) placed++;
      if (said.includes(normalise(c.quote))) quoted++;
    }
    for (const marker of reply.content.matchAll(/\[(\d+)\]/g)) {
      markerCount++;
      if (citations.some((c) => c.n === Number(marker[1]))) resolved++;
    }
    const sources = reply.metadata?.sources ?? [];
    sourceCount += sources.length;
    if (sources.length === 0) none++;
    const relevant = sources.slice(0, TOP).map((id) => {
      const doc = abstractOf.get(id);
      if (doc === undefined) throw new Error(`source ${id} is not a chunk of the board`);
      return claim.relevant.has(doc);
    });
    if (relevant[0]) hit1++;
    if (relevant.includes(true)) hit5++;
    const asked = latencies.length;
    // Progress, so a run cut short still says where it stood.
    if (asked % 50 === 0)
      console.log(
        `${asked} claims: hit@${TOP} ${(hit5 / asked).toFixed(4)}, hit@1 ${(hit1 / asked).toFixed(4)}; ` +
          `${citationCount} citations, at their place ${citationCount ? (placed / citationCount).toFixed(4) : 'n/a'}, quoted ${citationCount ? (quoted / citationCount).toFixed(4) : 'n/a'}`,
      );
  }

  const n = claims.length;
  const answerer = [...answerers].join(', ');
  const share = (k: number) => (k / n).toFixed(4);
  const ofCitations = (k: number) => (citationCount ? (k / citationCount).toFixed(4) : 'n/a');
  const citing = `${fmt(citationCount)} citations: quote at its place in its chunk ${ofCitations(placed)}, quoted by the reply ${ofCitations(quoted)}; markers resolved ${markerCount ? (resolved / markerCount).toFixed(4) : 'n/a'} of ${fmt(markerCount)}`;
  const replyLatency = `p50 ${fmt(quantile(latencies, 0.5), 1)} ms, p95 ${fmt(quantile(latencies, 0.95), 1)} ms`;
  console.log(
    `answerer ${answerer}: hit@${TOP} ${share(hit5)}, hit@1 ${share(hit1)} (${PROTOCOL}); ` +
      `mean sources per reply ${(sourceCount / n).toFixed(2)}, replies without sources ${share(none)}; reply latency ${replyLatency}` +
      (retrievalFailed ? `; retrieval unavailable in ${retrievalFailed} replies` : '') +
      `; ${citing}`,
  );
  const md = [
    `Command: \`npm run bench:chat-grounding\`${serverMode() === 'tsx' ? ' with BENCH_SERVER=tsx' : ''}; ${new Date().toISOString()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}; load average ${m.loadAverage.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end.`,
    `Board: SciFact, ${fmt(corpus.length)} abstracts as notes → ${fmt(board.chunks)} chunks (embedding model \`${board.model}\`), loaded through the API in ${board.loadSeconds.toFixed(0)} s. ` +
      `Each claim asked as a question in a fresh chat (non-streamed); a source is a chunk id of the reply's \`metadata.sources\`, judged by its abstract.`,
    '',
    table(
      ['measure (protocol)', `answerer \`${answerer}\``],
      [
        [`hit@${TOP}: any of the first ${TOP} sources' abstracts relevant (${PROTOCOL})`, share(hit5)],
        [`hit@1: the first source's abstract relevant (${PROTOCOL})`, share(hit1)],
        [`mean number of sources per reply (${claims.length} claims)`, (sourceCount / n).toFixed(2)],
        [`replies without sources (${claims.length} claims)`, share(none)],
        [`citations whose quote stands in its chunk at its place (${fmt(citationCount)} citations)`, ofCitations(placed)],
        [`citations whose quote the reply's text holds (${fmt(citationCount)} citations)`, ofCitations(quoted)],
        [`markers [n] that resolve to a citation (${fmt(markerCount)} markers)`, markerCount ? (resolved / markerCount).toFixed(4) : 'n/a'],
        ['reply latency (non-streamed, sequential)', replyLatency],
        ...(retrievalFailed ? [['replies whose retrieval was unavailable', String(retrievalFailed)]] : []),
      ],
    ),
  ].join('\n');
  console.log(`\n${md}\n`);
} finally {
  await server.stop();
}
