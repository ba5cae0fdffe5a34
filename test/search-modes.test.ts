// Search modes (vector, keyword, hybrid) on small corpora made here: IDF ranks a rare term above a
// common one; keyword search finds an exact identifier that a dense model misses; hybrid is the
// reciprocal rank fusion of both; threshold, node_ids, limit and cursors hold in every mode; no mode
// crosses boards; the term statistics follow every change to a board's chunks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DocumentList, DuplicateBody, ErrorBody, JobBody, SearchBody } from './helpers/api-types.js';
import { hashedWordsVector, startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import { startServer, type TestServer, type TestUser, useServer } from './helpers/harness.js';

const MODES = ['vector', 'keyword', 'hybrid'] as const;

type Hit = SearchBody['data'][number];

function helpers(server: () => TestServer, user: () => TestUser) {
  return {
    async note(board: string, text: string, label = 'note'): Promise<string> {
      const node = await server().makeNode(user(), board, { data: { text, label } });
      const job = await server().request<JobBody>('POST', `/v1/boards/${board}/documents`, {
        token: user().token,
        body: { text, node_id: node.id },
      });
      assert.equal(job.status, 202, job.text);
      assert.equal((await server().waitForJob(job.body.data.id, user().token)).status, 'completed');
      return node.id;
    },
    async search(board: string, body: Record<string, unknown>, token = user().token): Promise<SearchBody> {
      const res = await server().request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, { token, body });
      assert.equal(res.status, 200, res.text);
      return res.body;
    },
  };
}

describe('the local model', () => {
  const server = useServer({ JOB_POLL_MS: '50' });
  let alice: TestUser;
  let bob: TestUser;
  const { note, search } = helpers(
    () => server,
    () => alice,
  );
  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  test('a rare term outranks a common one, in every mode', async () => {
    const board = await server.makeBoard(alice);
    const nodes: string[] = [];
    for (let i = 0; i < 8; i++)
      nodes.push(await note(board, `Quarterly report ${i}: the report covers the report period and the report summary.`));
    const rare = await note(board, 'Field notes: the zeolite samples were dried before weighing.');
    for (const mode of MODES) {
      const hits = (await search(board, { query: 'zeolite report', mode })).data;
      assert.equal(hits[0]!.node_id, rare, `${mode}: the one note with the rare term first`);
      assert.ok(hits.length > 1, `${mode}: the common term still matches`);
      const scores = hits.map((h) => h.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
        `${mode}: scores descend`,
      );
      assert.ok(
        scores.every((s) => s > 0 && s <= 1),
        `${mode}: scores in 0..1`,
      );
    }
  });

  test('keyword mode returns only chunks holding a query word; vector mode ranks the rest at cosine 0', async () => {
    const board = await server.makeBoard(alice);
    const match = await note(board, 'The glacier retreated two kilometres.');
    await note(board, 'Bread needs flour and yeast.');
    assert.deepEqual(
      (await search(board, { query: 'glacier', mode: 'keyword', threshold: -1 })).data.map((h) => h.node_id),
      [match],
    );
    const all = (await search(board, { query: 'glacier', threshold: -1 })).data;
    assert.equal(all.length, 2);
    assert.equal(all[0]!.node_id, match);
    assert.equal(all[1]!.score, 0);
    assert.deepEqual(
      (await search(board, { query: 'glacier', threshold: 0.01 })).data.map((h) => h.node_id),
      [match],
    );
    assert.deepEqual(
      (await search(board, { query: 'quasar', mode: 'keyword' })).data,
      [],
      'a word the board has never seen matches nothing',
    );
  });

  test('threshold, node_ids, limit and the cursor hold in every mode', async () => {
    const board = await server.makeBoard(alice);
    const nodes: string[] = [];
    for (let i = 0; i < 7; i++)
      nodes.push(await note(board, `Telescope log ${i}: ${'the telescope tracked a comet. '.repeat(i + 1)}Clear sky.`));
    for (const mode of MODES) {
      const all = await search(board, { query: 'telescope comet', mode, limit: 100, threshold: -1 });
      assert.equal(all.data.length, 7, mode);
      assert.equal(all.has_more, false);
      // Pages of 3 give the same ranking.
      const paged: Hit[] = [];
      let cursor: string | null = null;
      do {
        const page: SearchBody = await search(board, {
          query: 'telescope comet',
          mode,
          limit: 3,
          threshold: -1,
          ...(cursor ? { cursor } : {}),
        });
        assert.ok(page.data.length <= 3);
        assert.equal(page.has_more, page.cursor !== null);
        paged.push(...page.data);
        cursor = page.cursor;
      } while (cursor);
      assert.deepEqual(
        paged.map((h) => h.id),
        all.data.map((h) => h.id),
        `${mode}: pages continue the ranking`,
      );
      // A threshold between two scores keeps exactly those above it.
      const cut = (all.data[2]!.score + all.data[3]!.score) / 2;
      if (all.data[2]!.score > all.data[3]!.score) {
        const above = await search(board, { query: 'telescope comet', mode, limit: 100, threshold: cut });
        assert.deepEqual(
          above.data.map((h) => h.id),
          all.data.slice(0, 3).map((h) => h.id),
          `${mode}: threshold`,
        );
      }
      const some = await search(board, { query: 'telescope comet', mode, threshold: -1, node_ids: [nodes[0], nodes[5]] });
      assert.deepEqual(new Set(some.data.map((h) => h.node_id)), new Set([nodes[0], nodes[5]]), `${mode}: node_ids`);
      const one = await search(board, { query: 'telescope comet', mode, limit: 1, threshold: -1 });
      assert.equal(one.data.length, 1);
      assert.equal(one.has_more, true);
      // A cursor belongs to its mode.
      const other = MODES.find((m) => m !== mode)!;
      const res = await server.request('POST', `/v1/boards/${board}/documents/search`, {
        token: alice.token,
        body: { query: 'telescope comet', mode: other, limit: 1, threshold: -1, cursor: one.cursor },
      });
      assert.equal(res.status, 400, `${mode} cursor in ${other}`);
    }
  });

  test('an unknown mode is 400 and names the field', async () => {
    const board = await server.makeBoard(alice);
    for (const mode of ['semantic', '', 7, null]) {
      const res = await server.request<ErrorBody>('POST', `/v1/boards/${board}/documents/search`, {
        token: alice.token,
        body: { query: 'x', mode },
      });
      assert.equal(res.status, 400, String(mode));
      assert.equal(res.body.code, 'invalid_request', res.text);
      assert.match(res.body.message, /mode/);
    }
  });

  test("no mode returns another board's chunks; another user's private board is 404 in every mode", async () => {
    const mine = await server.makeBoard(alice);
    const myNode = await note(mine, 'Volcanoes erupt lava and ash.');
    const theirs = await server.makeBoard(bob);
    const bobs = helpers(
      () => server,
      () => bob,
    );
    await bobs.note(theirs, 'Volcanoes erupt lava and ash, says Bob.');
    await bobs.note(theirs, 'Lava lakes and more volcanoes.');
    for (const mode of MODES) {
      const hits = (await search(mine, { query: 'volcano lava ash', mode, threshold: -1, limit: 100 })).data;
      assert.deepEqual(
        hits.map((h) => h.node_id),
        [myNode],
        mode,
      );
      const res = await server.request('POST', `/v1/boards/${mine}/documents/search`, {
        token: bob.token,
        body: { query: 'volcano', mode },
      });
      assert.equal(res.status, 404, mode);
    }
  });

  test("term statistics follow the board's live chunks: vectorize, replace, delete, duplicate", async () => {
    const { db } = server.database;
    const board = await server.makeBoard(alice);
    const counted = async (b: string) => {
      const row = await db.selectFrom('board_terms').select('df').where('board_id', '=', b).where('term', '=', 0).executeTakeFirst();
      const live = await server.request<DocumentList>('GET', `/v1/boards/${b}/documents?limit=100`, { token: alice.token });
      return { stats: row?.df ?? 0, chunks: live.body.data.length };
    };
    const a = await note(board, 'Alpha text about rivers.');
    const b = await note(board, 'Beta text about mountains.');
    assert.deepEqual(await counted(board), { stats: 2, chunks: 2 });
    // Re-vectorizing replaces a node's chunks: still two.
    const job = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: alice.token,
      body: { text: 'Alpha text, rewritten, about lakes.', node_id: a },
    });
    await server.waitForJob(job.body.data.id, alice.token);
    assert.deepEqual(await counted(board), { stats: 2, chunks: 2 });
    assert.deepEqual((await search(board, { query: 'rivers', mode: 'keyword' })).data, [], 'the replaced words are gone');
    assert.equal((await search(board, { query: 'lakes', mode: 'keyword' })).data[0]!.node_id, a);
    // A duplicate counts its own chunks.
    const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${board}/duplicate`, { token: alice.token });
    assert.deepEqual(await counted(dup.body.data.id), { stats: 2, chunks: 2 });
    // Deleting a node (its sets go with it) and deleting a node's chunks both subtract.
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/nodes/${b}`, { token: alice.token })).status, 200);
    assert.deepEqual(await counted(board), { stats: 1, chunks: 1 });
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/documents?node_id=${a}`, { token: alice.token })).status, 200);
    assert.deepEqual(await counted(board), { stats: 0, chunks: 0 });
    assert.deepEqual(await counted(dup.body.data.id), { stats: 2, chunks: 2 }, 'the duplicate is untouched');
    // Deleting the board deletes its statistics.
    assert.equal((await server.request('DELETE', `/v1/boards/${dup.body.data.id}`, { token: alice.token })).status, 200);
    assert.equal((await db.selectFrom('board_terms').select('term').where('board_id', '=', dup.body.data.id).execute()).length, 0);
  });
});

describe('a dense model (an OpenAI-compatible embeddings server on loopback)', () => {
  let fake: FakeEmbeddings;
  let server: TestServer;
  let alice: TestUser;
  const { note, search } = helpers(
    () => server,
    () => alice,
  );
  before(async () => {
    // Like a real embedding model, this one does not tell one identifier from another: words with
    // digits are left out of its vectors.
    fake = await startFakeEmbeddings(64, (text, dims) => hashedWordsVector(text.replace(/\S*\d\S*/g, ' '), dims));
    server = await startServer({
      JOB_POLL_MS: '50',
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: fake.url,
      EMBEDDINGS_MODEL: 'fake-words',
      EMBEDDINGS_DIMENSIONS: '64',
    });
    alice = await server.user();
  });
  after(async () => {
    await server?.close();
    await fake.close();
  });

  test('keyword mode finds an exact identifier the vector mode misses; hybrid fuses both rankings', async () => {
    const board = await server.makeBoard(alice);
    for (let i = 0; i < 5; i++)
      await note(board, `Invoice overdue: the invoice for order ${1000 + i} is overdue, send the invoice reminder.`);
    const target = await note(board, 'Shipping label printed for parcel INV-20931-QX, handed to the courier.');
    const query = 'invoice INV-20931-QX';
    const vector = (await search(board, { query, mode: 'vector', limit: 100, threshold: -1 })).data;
    const keyword = (await search(board, { query, mode: 'keyword', limit: 100, threshold: -1 })).data;
    assert.notEqual(vector[0]!.node_id, target, 'the dense model ranks the invoices first');
    assert.equal(keyword[0]!.node_id, target, 'BM25 ranks the identifier first');
    assert.ok(vector.every((h) => h.score >= -1 && h.score <= 1));

    // Hybrid: the union of both, ordered by the fused reciprocal ranks (computed here independently).
    const hybrid = (await search(board, { query, mode: 'hybrid', limit: 100, threshold: -1 })).data;
    const fused = new Map<string, number>();
    for (const list of [vector, keyword]) list.forEach((h, rank) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (60 + rank + 1)));
    const expected = [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(
      hybrid.map((h) => h.id),
      expected.map(([id]) => id),
    );
    hybrid.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]![1] / (2 / 61)) < 1e-9));
  });
});
