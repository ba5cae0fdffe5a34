// Lexical search through the term index (src/documents/term-pruning.ts) finds what scoring every
// chunk finds (recall at least 0.95, each chunk with its own score, pages in order), in every mode,
// with thresholds, node filters and cursors. The board is made of seeded random text over a Zipf-distributed vocabulary
// (a few words in most chunks, most words in few), so queries mix common and rare terms and the
// pruning has something to prune. Also the candidate rule itself, as a property: no chunk whose
// terms' bounds reach θ is ever left out; and migration 0008's rescaling of older embeddings.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { prng } from '../bench/lib/prng.js';
import { unitEmbeddings } from '../src/db/migrations/0008-term-index.js';
import { termKeysLiteral } from '../src/documents/search-service.js';
import { candidateRule, seedTerms, type BoundedTerm, type CandidateRule } from '../src/documents/term-pruning.js';
import type { DuplicateBody, JobBody, SearchBody } from './helpers/api-types.js';
import { type Response, startServer, type TestServer, type TestUser, useServer } from './helpers/harness.js';
import { requestStatements } from './helpers/statements.js';

const random = prng(7);
// Pronounceable distinct words, so stemming keeps them apart.
const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe'];
const vocabulary = Array.from(
  { length: 400 },
  (_, i) => `${syllables[i % 12]}${syllables[Math.floor(i / 12) % 12]}${syllables[Math.floor(i / 144) % 12]}x`,
);
/** A word drawn with probability proportional to 1 / rank. */
const cumulative = vocabulary
  .map((_, i) => 1 / (i + 1))
  .map(
    (
      (sum) => (w: number) =>
        (sum += w)
    )(0),
  );
/** A note made and read (its document job completed); resolves with its id. */
async function readNote(
  server: TestServer,
  user: TestUser,
  board: string,
  position: { x: number; y: number },
  text: string,
  label: string,
) {
  const node = await server.makeNode(user, board, { position, data: { text, label } });
  const job = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
    token: user.token,
    body: { text, node_id: node.id },
  });
  assert.equal(job.status, 202, job.text);
  assert.equal((await server.waitForJob(job.body.data.id, user.token)).status, 'completed');
  return node.id;
}

/** Every page of a search (at most `maxPages`), through the term index (exactMax 0) or scoring every chunk. */
async function searchPages(
  server: TestServer,
  user: TestUser,
  board: string,
  body: Record<string, unknown>,
  index: boolean,
  maxPages = 3,
): Promise<SearchBody['data'][]> {
  server.config.searchExactMaxChunks = index ? 0 : 10_000_000;
  const out: SearchBody['data'][] = [];
  let cursor: string | null = null;
  do {
    const res: Response<SearchBody> = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
      token: user.token,
      body: cursor ? { ...body, cursor } : body,
    });
    assert.equal(res.status, 200, res.text);
    out.push(res.body.data);
    cursor = res.body.cursor;
  } while (cursor && out.length < maxPages);
  return out;
}

function word(): string {
  const r = random() * cumulative[cumulative.length - 1]!;
  return vocabulary[cumulative.findIndex((c) => c >= r)]!;
}
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');

/** A query's words: 2 to `2 + spread - 1` of the vocabulary, the common ones likelier. */
function queryWords(random: () => number, spread: number): string[] {
  return Array.from({ length: 2 + Math.floor(random() * spread) }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!);
}

describe('search through the term index', () => {
  const server = useServer({ JOB_POLL_MS: '50', CHUNK_SIZE: '160', CHUNK_OVERLAP: '0' });
  let alice: TestUser;
  let board: string;
  const nodes: string[] = [];

  const search = async (body: Record<string, unknown>) => {
    const res = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, { token: alice.token, body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const pages = (body: Record<string, unknown>, index: boolean, maxPages?: number) =>
    searchPages(server, alice, board, body, index, maxPages);

  before(async () => {
    alice = await server.user();
    board = await server.makeBoard(alice);
    for (let i = 0; i < 40; i++) {
      const text = Array.from({ length: 4 + Math.floor(random() * 8) }, () => `${sentence(6 + Math.floor(random() * 14))}.`).join(' ');
      const label = i % 3 === 0 ? sentence(2) : 'note';
      nodes.push(await readNote(server, alice, board, { x: i, y: 0 }, text, label));
    }
  });

  test('the board has common and rare terms (the test would prove nothing otherwise)', async () => {
    server.config.searchExactMaxChunks = 10_000_000;
    const common = (await search({ query: vocabulary[0]!, mode: 'keyword', limit: 100 })).data.length;
    const rare = (await search({ query: vocabulary[300]!, mode: 'keyword', limit: 100 })).data.length;
    assert.ok(common >= 50 && rare <= 5, `common term in ${common} chunks, rare in ${rare}`);
  });

  test('every mode finds through the index what the full scan finds: chunks, scores and pages', async () => {
    const queryRandom = prng(11);
    let compared = 0;
    let found = 0;
    for (let q = 0; q < 24; q++) {
      const words = queryWords(queryRandom, 7);
      for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
        const body: Record<string, unknown> = { query: words.join(' '), mode, limit: q % 2 === 0 ? 5 : 12 };
        if (q % 3 === 1) body.threshold = mode === 'hybrid' ? 0.3 : 0.15;
        if (q % 4 === 3) body.node_ids = nodes.slice(0, 10);
        const exact = (await pages(body, false)).flat();
        const indexed = (await pages(body, true)).flat();
        const where = JSON.stringify(body);
        assert.deepEqual(
          indexed.map((h) => h.score),
          [...indexed.map((h) => h.score)].sort((a, b) => b - a),
          `${where}: scores descend across pages`,
        );
        assert.equal(new Set(indexed.map((h) => h.id)).size, indexed.length, `${where}: no chunk twice across pages`);
        const exactScores = new Map(exact.map((h) => [h.id, h.score]));
        for (const h of indexed) {
          const score = exactScores.get(h.id);
          if (score !== undefined && mode !== 'hybrid')
            assert.ok(Math.abs(h.score - score) < 1e-9, `${where}: a chunk's score is its score`);
        }
        compared += exact.length;
        found += exact.filter((h) => indexed.some((i) => i.id === h.id)).length;
      }
    }
    assert.ok(compared > 500, `compared ${compared} results`);
    // The index's bounds are not hard ceilings (lexical.ts): nearly, not always, everything.
    assert.ok(found / compared >= 0.95, `recall ${found}/${compared} against the full scan`);
  });

  test("a duplicated board's chunks are found through the index under the new board, and only there", async () => {
    const copy = await server.request<DuplicateBody>('POST', `/v1/boards/${board}/duplicate`, { token: alice.token, body: {} });
    assert.equal(copy.status, 201, copy.text);
    const query = { query: `${vocabulary[40]} ${vocabulary[90]} ${vocabulary[150]}`, mode: 'keyword', limit: 20 };
    const original = (await pages(query, true, 1))[0]!;
    const originalBoard = board;
    board = copy.body.data.id;
    try {
      const exact = (await pages(query, false, 1))[0]!;
      const indexed = (await pages(query, true, 1))[0]!;
      assert.ok(exact.length >= 10, `${exact.length} chunks on the copy`);
      assert.deepEqual(
        indexed.map((h) => h.score),
        exact.map((h) => h.score),
      );
      assert.deepEqual(
        indexed.map((h) => h.score),
        original.map((h) => h.score),
        'the copy ranks as the original',
      );
      assert.ok(
        indexed.every((h) => !original.some((o) => o.id === h.id)),
        "the copy's own chunks, not the original's",
      );
    } finally {
      board = originalBoard;
    }
  });

  test("the keys search computes are the index function's, for board ids with the high bit set or not", async () => {
    const ids = [0, 1, 77, 536_870_911];
    for (const boardId of [
      '01a20647-fa99-741e-870f-159a6d165b11',
      '01a20647-fa99-741e-870f-159a9d165b11',
      '01a20647-fa99-741e-870f-159affffffff',
      '01a20647-fa99-741e-870f-159a00000000',
    ]) {
      const { rows } = await sql<{
        keys: string[];
      }>`SELECT chunk_term_keys(${boardId}::uuid, ${`{${ids.join(',')}}`}::int4[])::text[] AS keys`.execute(server.database.db);
      assert.equal(termKeysLiteral(boardId, ids), `{${rows[0]!.keys.join(',')}}`, boardId);
    }
  });

  test('a query of words the board has never seen, and a threshold no chunk reaches', async () => {
    for (const index of [false, true]) {
      const unseen = await pages({ query: 'qqqzzz wwwyyy', limit: 5 }, index, 1);
      assert.equal(unseen[0]!.length, 5, 'vector mode: chunks of score 0, as every chunk scores');
      assert.ok(unseen[0]!.every((h) => h.score === 0));
      assert.equal((await pages({ query: 'qqqzzz', mode: 'keyword' }, index, 1))[0]!.length, 0);
      assert.equal((await pages({ query: vocabulary[0]!, threshold: 0.99 }, index, 1))[0]!.length, 0);
    }
  });
});

/** `n` different words drawn as `word` draws them (no word twice). */
function distinctWords(n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) out.add(word());
  return [...out];
}

// Where the index's bounds are hard ceilings its answer is exact: no word is written twice in a note
// (so none twice in a chunk) and a term weighs at most what it weighs once, under the twice-written
// weight the bounds assume (lexical.ts). Then every chunk left out scores below the k-th, and the
// index must return what scoring every chunk returns: the same chunks, scores and pages. (The notes'
// labels hold no query word: a label's terms are in every chunk's local embedding but in the term
// index only where the chunk's own text holds them, so a chunk that matches by its label alone can
// be missed by the index.)
describe('search through the term index where its bounds hold', () => {
  const server = useServer({ JOB_POLL_MS: '50', CHUNK_SIZE: '160', CHUNK_OVERLAP: '0' });
  let alice: TestUser;
  let board: string;
  const nodes: string[] = [];

  const pages = async (body: Record<string, unknown>, index: boolean) =>
    (await searchPages(server, alice, board, body, index)).flat().map((h) => ({ id: h.id, score: h.score }));

  before(async () => {
    alice = await server.user();
    board = await server.makeBoard(alice);
    for (let i = 0; i < 30; i++) {
      const text = `${distinctWords(20 + Math.floor(random() * 60)).join(' ')}.`;
      nodes.push(await readNote(server, alice, board, { x: i, y: 1 }, text, 'note'));
    }
  });

  test('every mode, threshold, node filter and page: the same chunks and scores as scoring every chunk', async () => {
    const queryRandom = prng(13);
    let compared = 0;
    for (let q = 0; q < 30; q++) {
      const words = queryWords(queryRandom, 7);
      for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
        const body: Record<string, unknown> = { query: words.join(' '), mode, limit: q % 2 === 0 ? 3 : 10 };
        if (q % 3 === 1) body.threshold = mode === 'hybrid' ? 0.3 : 0.1;
        if (q % 4 === 3) body.node_ids = nodes.slice(0, 12);
        const exact = await pages(body, false);
        const indexed = await pages(body, true);
        assert.deepEqual(indexed, exact, JSON.stringify(body));
        compared += exact.length;
      }
    }
    assert.ok(compared > 500, `compared ${compared} results`);
  });

  // The seed step runs in the statement that reads the term statistics (seed-step.ts): a first page
  // through the index is that statement alone when the seed settles the page, and the candidate
  // step's besides otherwise (two and three before). Counted, not timed; the page is still the
  // exact scan's.
  test('a first page through the index is one statement, or two when the seed does not settle it', async () => {
    const queryRandom = prng(17);
    const counts: number[] = [];
    for (let q = 0; q < 16; q++) {
      // A common word in each query: more chunks match than a page holds, so the vector mode never
      // adds the chunks of no query term (a statement of its own, after the ranking).
      const words = [vocabulary[q % 3]!, ...queryWords(queryRandom, 6)];
      for (const mode of ['vector', 'keyword'] as const) {
        const body: Record<string, unknown> = { query: words.join(' '), mode, limit: q % 2 === 0 ? 3 : 10 };
        if (q % 4 === 3) body.node_ids = nodes.slice(0, 12);
        const exact = (await searchPages(server, alice, board, body, false, 1))[0]!;
        server.config.searchExactMaxChunks = 0;
        let page: SearchBody['data'] = [];
        const statements = await requestStatements(server, async () => {
          const res = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, { token: alice.token, body });
          assert.equal(res.status, 200, res.text);
          page = res.body.data;
        });
        const where = JSON.stringify(body);
        assert.ok(exact.length > 0, `${where}: the query matches`);
        assert.deepEqual(
          page.map((h) => [h.id, h.score]),
          exact.map((h) => [h.id, h.score]),
          where,
        );
        const search = statements.filter((text) => /\b(document_chunks|board_terms)\b/.test(text));
        assert.ok(search.length <= 2, `${where}:\n${search.join('\n---\n')}`);
        counts.push(search.length);
      }
    }
    assert.ok(counts.includes(1) && counts.includes(2), `both cases: ${counts.join(' ')}`);
  });
});

test('migration 0008 scales the local embeddings written before it to unit length, and no score changes', async () => {
  const server = await startServer({ JOB_POLL_MS: '50' });
  try {
    const user = await server.user();
    const board = await server.makeBoard(user);
    for (const text of ['Basalt columns form as lava cools and contracts.', 'Lava tubes drain as the flow crusts over.']) {
      const job = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text } });
      assert.equal((await server.waitForJob(job.body.data.id, user.token)).status, 'completed');
    }
    const search = async () =>
      (
        await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
          token: user.token,
          body: { query: 'lava flow' },
        })
      ).body.data;
    const before = await search();
    const { db } = server.database;
    // Embeddings as 0007 wrote them: the same directions at norm 12.
    const { rows } = await sql<{
      id: string;
      v: string;
    }>`SELECT id, sparse_embedding::text AS v FROM document_chunks WHERE board_id = ${board}`.execute(db);
    for (const row of rows) {
      const scaled = row.v.replace(/:([-0-9.e]+)/g, (_, w: string) => `:${Number(w) * 12}`);
      await sql`UPDATE document_chunks SET sparse_embedding = ${scaled}::sparsevec WHERE id = ${row.id}`.execute(db);
    }
    const norms = async () =>
      (await sql<{ n: number }>`SELECT l2_norm(sparse_embedding) AS n FROM document_chunks WHERE board_id = ${board}`.execute(db)).rows.map(
        (r) => r.n,
      );
    assert.ok((await norms()).every((n) => Math.abs(n - 12) < 1e-4));
    await unitEmbeddings(db as never);
    assert.ok((await norms()).every((n) => Math.abs(n - 1) < 1e-6));
    const after = await search();
    assert.deepEqual(
      after.map((h) => h.id),
      before.map((h) => h.id),
    );
    after.forEach((h, i) => assert.ok(Math.abs(h.score - before[i]!.score) < 1e-6));
  } finally {
    await server.close();
  }
});

describe('the candidate rule', () => {
  test('keeps every chunk whose terms can reach θ, with or without the seed step before it', () => {
    // Terms as on a board of 100,000 chunks: a term's bound follows its IDF (rare terms weigh more).
    const chunks = 100_000;
    const termArb = fc
      .record({ df: fc.integer({ min: 1, max: 20_000 }), jitter: fc.double({ min: 0.5, max: 1, noNaN: true }) })
      .map(({ df, jitter }) => ({ df, bound: (Math.log(1 + (chunks - df + 0.5) / (df + 0.5)) * jitter) / 20 }));
    let paired = 0;
    fc.assert(
      fc.property(
        fc.array(termArb, { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 0, max: 1100 }),
        fc.integer({ min: 1, max: 200 }),
        (raw, permille, k) => {
          const terms: BoundedTerm[] = raw.map((t, i) => ({ id: i + 2, ...t }));
          const theta = (permille / 1000) * terms.reduce((sum, t) => sum + t.bound, 0);
          const rule = candidateRule(terms, theta, chunks);
          const seed = seedTerms(terms, k, chunks);
          const rest = candidateRule(terms, theta, chunks, seed);
          if (rest.pairs.length > 0) paired++;
          // Every subset of the terms is a possible chunk.
          for (let mask = 1; mask < 1 << terms.length; mask++) {
            const held = terms.filter((_, i) => mask & (1 << i));
            const ids = new Set(held.map((t) => t.id));
            const reach = held.reduce((sum, t) => sum + t.bound, 0);
            const matches = (r: CandidateRule) =>
              r.any.some((t) => ids.has(t)) || r.pairs.some((p) => ids.has(p.term) && p.with.some((w) => ids.has(w)));
            if (reach < theta) continue;
            assert.ok(matches(rule), `a chunk holding ${[...ids]} reaches ${reach} >= ${theta} but is not a candidate`);
            assert.ok(
              seed.some((t) => ids.has(t)) || matches(rest),
              `a chunk holding ${[...ids]} reaches θ but is scored neither by the seed step nor after it`,
            );
          }
        },
      ),
      { numRuns: 1000 },
    );
    assert.ok(paired >= 20, `only ${paired} rules needed pairs`);
  });
});
