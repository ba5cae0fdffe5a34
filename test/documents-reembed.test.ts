// Changing the embedding model re-embeds a board through a `document_reembed` job: vectorize with
// one model, restart on the same database with another (the openai embedder against a fake
// /embeddings server, then the local model, then back), and the board's chunks are embedded again in
// place: same ids and count, the new model, and search finds them. The same job fills in the
// keywords of chunks written before keyword search (migration 0007).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import type { DocumentChunk, DocumentList, JobBody, SearchBody } from './helpers/api-types.js';
import { startServer, type TestServer } from './helpers/harness.js';

// The harness's servers use DATA_DIR for the embedded database (the wire run shares one database,
// which is just as good: the restart keeps the data).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-reembed-'));
let fake: FakeEmbeddings;
before(async () => {
  fake = await startFakeEmbeddings(8);
});
after(async () => {
  await fake.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const corpus = {
  volcano: 'Volcanoes erupt when magma rises through the crust. Lava flows and ash clouds follow an eruption.',
  bread: 'Baking bread needs flour, water, yeast and salt. The dough rises before it goes into the oven.',
  football: 'The football match ended with a late goal. The striker scored in the final minute of the game.',
};

const start = (env: Record<string, string>): Promise<TestServer> => startServer({ DATA_DIR: dataDir, JOB_POLL_MS: '50', ...env });

async function chunksOf(server: TestServer, board: string, token: string): Promise<DocumentChunk[]> {
  const res = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?limit=100`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function reembedJobs(server: TestServer, board: string) {
  return server.database.db
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('board_id', '=', board)
    .where('type', '=', 'document_reembed')
    .orderBy('created_at')
    .execute();
}

const fakeModel = (fake: FakeEmbeddings) => ({
  EMBEDDINGS_PROVIDER: 'openai',
  OPENAI_BASE_URL: fake.url,
  EMBEDDINGS_MODEL: 'fake-embed',
  EMBEDDINGS_DIMENSIONS: '8',
});

async function search(server: TestServer, board: string, token: string, body: Record<string, unknown>) {
  const res = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, { token, body });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

test('a model change re-embeds the board in place through a job; search finds the chunks with the new model', async () => {
  // Vectorized with a remote (dense) model first.
  let server = await start(fakeModel(fake));
  const user = await server.user();
  const board = await server.makeBoard(user);
  const nodes: Record<string, string> = {};
  try {
    for (const [name, text] of Object.entries(corpus)) {
      nodes[name] = (await server.makeNode(user, board, { data: { text, label: name } })).id;
      const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
        token: user.token,
        body: { text, node_id: nodes[name] },
      });
      assert.equal((await server.waitForJob(res.body.data.id, user.token)).status, 'completed');
    }
    // A vectorize without a node: its chunks are re-embedded too.
    const loose = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text: 'Glaciers carve valleys over thousands of years.' },
    });
    assert.equal((await server.waitForJob(loose.body.data.id, user.token)).status, 'completed');
  } finally {
    await server.close();
  }
  const original = await (async () => {
    server = await start(fakeModel(fake));
    try {
      const chunks = await chunksOf(server, board, user.token);
      assert.ok(chunks.every((c) => c.model === 'fake-embed'));
      // The same model again: nothing to re-embed. Keyword search works whatever the model.
      const hit = await search(server, board, user.token, { query: 'volcano lava', mode: 'keyword' });
      assert.equal(hit[0]!.node_id, nodes.volcano);
      assert.deepEqual(await reembedJobs(server, board), []);
      return chunks;
    } finally {
      await server.close();
    }
  })();
  assert.equal(original.length, 4);

  // The local model (the default).
  server = await start({});
  try {
    // The search queues the job (on the embedded database the start already has: still one job).
    await search(server, board, user.token, { query: 'volcano lava' });
    const jobs = await reembedJobs(server, board);
    assert.equal(jobs.length, 1);
    const job = await server.waitForJob(jobs[0]!.id, user.token);
    assert.equal(job.type, 'document_reembed');
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.result, { chunks: original.length });
    const chunks = await chunksOf(server, board, user.token);
    assert.deepEqual(
      chunks.map((c) => c.id),
      original.map((c) => c.id),
      'same chunks, embedded again in place',
    );
    assert.ok(chunks.every((c) => c.model === 'local-lexical-v1'));
    for (const [query, expected] of [
      ['when does a volcano erupt', nodes.volcano],
      ['how to bake bread with yeast', nodes.bread],
      ['glaciers and valleys', null],
    ] as const) {
      for (const mode of ['vector', 'keyword', 'hybrid'])
        assert.equal((await search(server, board, user.token, { query, mode }))[0]!.node_id, expected, `${query} (${mode})`);
    }
    await search(server, board, user.token, { query: 'bread' });
    assert.equal((await reembedJobs(server, board)).length, 1, 'no second job once the board is current');
  } finally {
    await server.close();
  }

  // And back to the remote provider.
  server = await start(fakeModel(fake));
  try {
    fake.batches.length = 0;
    await search(server, board, user.token, { query: 'football' });
    const jobs = await reembedJobs(server, board);
    assert.equal(jobs.length, 2);
    const job = await server.waitForJob(jobs[1]!.id, user.token);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.result, { chunks: original.length });
    const chunks = await chunksOf(server, board, user.token);
    assert.equal(chunks.length, original.length);
    assert.ok(chunks.every((c) => c.model === 'fake-embed'));
    const embedded = fake.batches.flatMap((b) => b.input);
    for (const text of [...Object.values(corpus), 'Glaciers carve valleys over thousands of years.'])
      assert.ok(embedded.includes(text), `${text} sent to the provider`);
    const res = await search(server, board, user.token, { query: 'anything at all', threshold: -1 });
    assert.equal(res.length, original.length, 'every chunk is found with the new model');
  } finally {
    await server.close();
  }
});

test('chunks written before keyword search get their keywords and term statistics from the job, without calling the provider', async () => {
  const server = await start(fakeModel(fake));
  try {
    const user = await server.user();
    const board = await server.makeBoard(user);
    for (const text of Object.values(corpus)) {
      const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text } });
      assert.equal((await server.waitForJob(res.body.data.id, user.token)).status, 'completed');
    }
    const { db } = server.database;
    const stats = () =>
      db.selectFrom('board_terms').select(['term', 'df']).where('board_id', '=', board).where('df', '<>', 0).orderBy('term').execute();
    const before = await stats();
    assert.ok(
      before.some((r) => r.term === 0 && r.df === 3),
      'term 0 counts the chunks',
    );
    // What migration 0007 leaves: no keywords, no term counts, no statistics.
    await db.updateTable('document_chunks').set({ keywords: null, term_ids: null }).where('board_id', '=', board).execute();
    await db.updateTable('chunk_sets').set({ term_ids: null, term_df: null }).where('board_id', '=', board).execute();
    assert.deepEqual(await stats(), []);
    assert.deepEqual(await search(server, board, user.token, { query: 'volcano', mode: 'keyword' }), []);

    fake.batches.length = 0;
    const jobs = await reembedJobs(server, board);
    assert.equal(jobs.length, 1, 'the search queued the job');
    assert.equal((await server.waitForJob(jobs[0]!.id, user.token)).status, 'completed');
    assert.deepEqual(fake.batches, [], 'the dense vectors were current');
    assert.deepEqual(await stats(), before, 'the same statistics as when written');
    const hits = await search(server, board, user.token, { query: 'volcano', mode: 'keyword' });
    assert.equal(hits.length, 1);
    assert.match((await chunksOf(server, board, user.token)).find((c) => c.id === hits[0]!.id)!.model, /fake-embed/);
  } finally {
    await server.close();
  }
});
