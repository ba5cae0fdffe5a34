// Job lifecycle with the openai embedder against a fake OpenAI-compatible /embeddings server on
// loopback: batches on the wire, completion, failure with a useful error, lease recovery.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer, type TestUser } from './helpers/harness.js';

const DIMS = 8;
let fake: http.Server;
let fakeUrl: string;
let failing = false;
const batches: { model: string; input: string[]; auth: string | undefined }[] = [];

function fakeVector(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) v[word.length % DIMS]! += 1;
  return v;
}

before(async () => {
  fake = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
      if (failing) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      batches.push({ ...parsed, auth: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model: parsed.model, data: parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t) })) }));
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((r) => fake.close(() => r())));

async function waitForJob(server: TestServer, id: string, token: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const res = await server.request('GET', `/v1/jobs/${id}`, { token });
    if (res.body.data.status !== 'processing') return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job still processing');
}

describe('jobs with the openai embedder', () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startServer({
      EMBEDDINGS_PROVIDER: 'openai', OPENAI_BASE_URL: fakeUrl, OPENAI_API_KEY: 'sk-test', EMBEDDINGS_MODEL: 'fake-embed',
      EMBEDDINGS_DIMENSIONS: String(DIMS), EMBEDDINGS_BATCH_SIZE: '3', CHUNK_SIZE: '100', CHUNK_OVERLAP: '0', JOB_POLL_MS: '50',
    });
    user = await server.user();
  });
  after(() => server.close());

  test('processing → completed; chunks embedded in batches with the configured model and key', async () => {
    const board = await server.makeBoard(user);
    batches.length = 0;
    const text = Array.from({ length: 8 }, (_, i) => `Sentence ${i} has enough words to fill most of one chunk here.`).join(' ');
    const res = await server.request('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text } });
    assert.equal(res.status, 202);
    const job = await waitForJob(server, res.body.data.id, user.token);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.result, { chunks: 8 });
    assert.deepEqual(batches.map((b) => b.input.length), [3, 3, 2]);
    assert.ok(batches.every((b) => b.model === 'fake-embed' && b.auth === 'Bearer sk-test'));
    const list = await server.request('GET', `/v1/boards/${board}/documents?limit=100`, { token: user.token });
    assert.ok(list.body.data.every((c: any) => c.model === 'fake-embed'));
    const hits = await server.request('POST', `/v1/boards/${board}/documents/search`, { token: user.token, body: { query: 'Sentence words', limit: 3 } });
    assert.equal(hits.status, 200, hits.text);
    assert.equal(hits.body.data.length, 3);
  });

  test('a provider failure fails the job with a useful error and leaves no chunks; search answers 502', async () => {
    const board = await server.makeBoard(user);
    failing = true;
    try {
      const res = await server.request('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text: 'Some text.' } });
      const job = await waitForJob(server, res.body.data.id, user.token);
      assert.equal(job.status, 'failed');
      assert.equal(job.result, null);
      assert.match(job.error, /embedding provider answered 500/);
      const list = await server.request('GET', `/v1/boards/${board}/documents`, { token: user.token });
      assert.equal(list.body.data.length, 0);
      const search = await server.request('POST', `/v1/boards/${board}/documents/search`, { token: user.token, body: { query: 'x' } });
      assert.equal(search.status, 502);
      assert.equal(search.body.code, 'upstream_error');
    } finally {
      failing = false;
    }
  });
});
