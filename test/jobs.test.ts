// Job lifecycle with the openai embedder against a fake OpenAI-compatible /embeddings server on
// loopback: batches on the wire, completion, failure with a useful error, lease recovery.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import type { DocumentList, ErrorBody, JobBody, SearchBody } from './helpers/api-types.js';
import { startServer, type TestServer, type TestUser } from './helpers/harness.js';

const DIMS = 8;
let fake: FakeEmbeddings;

before(async () => {
  fake = await startFakeEmbeddings(DIMS);
});
after(() => fake.close());

describe('jobs with the openai embedder', () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startServer({
      EMBEDDINGS_PROVIDER: 'openai',
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: 'sk-test',
      EMBEDDINGS_MODEL: 'fake-embed',
      EMBEDDINGS_DIMENSIONS: String(DIMS),
      EMBEDDINGS_BATCH_SIZE: '3',
      CHUNK_SIZE: '100',
      CHUNK_OVERLAP: '0',
      JOB_POLL_MS: '50',
    });
    user = await server.user();
  });
  after(() => server.close());

  test('processing → completed; chunks embedded in batches with the configured model and key', async () => {
    const board = await server.makeBoard(user);
    fake.batches.length = 0;
    const text = Array.from({ length: 8 }, (_, i) => `Sentence ${i} has enough words to fill most of one chunk here.`).join(' ');
    const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text } });
    assert.equal(res.status, 202);
    const job = await server.waitForJob(res.body.data.id, user.token);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.result, { chunks: 8 });
    assert.deepEqual(
      fake.batches.map((b) => b.input.length),
      [3, 3, 2],
    );
    assert.ok(fake.batches.every((b) => b.model === 'fake-embed' && b.auth === 'Bearer sk-test'));
    const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?limit=100`, { token: user.token });
    assert.ok(list.body.data.every((c) => c.model === 'fake-embed'));
    const hits = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
      token: user.token,
      body: { query: 'Sentence words', limit: 3 },
    });
    assert.equal(hits.status, 200, hits.text);
    assert.equal(hits.body.data.length, 3);
  });

  test('a provider failure fails the job with a useful error and leaves no chunks; vector search answers 502, keyword search still works', async () => {
    const board = await server.makeBoard(user);
    const written = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text: 'Earlier text about glaciers.' },
    });
    assert.equal((await server.waitForJob(written.body.data.id, user.token)).status, 'completed');
    fake.failing = true;
    try {
      const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
        token: user.token,
        body: { text: 'Some text.' },
      });
      const job = await server.waitForJob(res.body.data.id, user.token);
      assert.equal(job.status, 'failed');
      assert.equal(job.result, null);
      assert.match(job.error ?? '', /embedding provider answered 500/);
      const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents`, { token: user.token });
      assert.equal(list.body.data.length, 1, 'only the earlier chunk');
      const search = await server.request<ErrorBody>('POST', `/v1/boards/${board}/documents/search`, {
        token: user.token,
        body: { query: 'x' },
      });
      assert.equal(search.status, 502);
      assert.equal(search.body.code, 'upstream_error');
      const keyword = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
        token: user.token,
        body: { query: 'glaciers', mode: 'keyword' },
      });
      assert.equal(keyword.status, 200, keyword.text);
      assert.equal(keyword.body.data.length, 1);
      // A board without chunks answers at once, without asking the provider.
      const empty = await server.request<SearchBody>('POST', `/v1/boards/${await server.makeBoard(user)}/documents/search`, {
        token: user.token,
        body: { query: 'x' },
      });
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body.data, []);
    } finally {
      fake.failing = false;
    }
  });
});
