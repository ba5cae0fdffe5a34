// Searches through a dense model's HNSW index (SEARCH_EXACT_MAX_CHUNKS=0 forces it), with an
// OpenAI-compatible embeddings server on loopback that hashes words: a filter on one node of a
// larger board still returns `limit` results, and they agree with the exact ranking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { indexSearch, prefersExactScan } from '../src/documents/search-service.js';
import type { JobBody, SearchBody } from './helpers/api-types.js';
import { hashedWordsVector, startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import { startServer, type TestServer, type TestUser } from './helpers/harness.js';

let indexed: TestServer;
let user: TestUser;
let fake: FakeEmbeddings;
const DIMS = 128;

before(async () => {
  fake = await startFakeEmbeddings(DIMS, hashedWordsVector);
  indexed = await startServer({
    JOB_POLL_MS: '50',
    SEARCH_EXACT_MAX_CHUNKS: '0',
    CHUNK_SIZE: '100',
    CHUNK_OVERLAP: '0',
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: fake.url,
    EMBEDDINGS_MODEL: 'fake-hashed-words',
    EMBEDDINGS_DIMENSIONS: String(DIMS),
  });
  user = await indexed.user();
});
after(async () => {
  await indexed.close();
  await fake.close();
});

test('one node of a large board: the node filter still yields `limit` results', async () => {
  const board = await indexed.makeBoard(user);
  const topics = [
    'astronomy stars galaxies telescopes',
    'cooking recipes kitchen ovens',
    'sailing boats oceans winds',
    'gardening plants soil seeds',
  ];
  const nodeIds: string[] = [];
  for (let n = 0; n < 20; n++) {
    const node = await indexed.makeNode(user, board, { position: { x: n, y: 0 } });
    nodeIds.push(node.id);
    const text = Array.from({ length: 30 }, (_, i) => `Note ${n} part ${i} is about ${topics[n % 4]} number ${i}.`).join('\n\n');
    const res = await indexed.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text, node_id: node.id },
    });
    assert.equal(res.status, 202);
    assert.equal((await indexed.waitForJob(res.body.data.id, user.token, 180_000)).status, 'completed');
  }
  // Node 1 is about cooking; the query is about astronomy (nodes 0, 4, 8, …), so an unfiltered
  // index scan would find node 1's chunks far down the list.
  const target = nodeIds[1]!;
  const res = await indexed.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
    token: user.token,
    body: { query: 'astronomy stars telescopes', node_ids: [target], limit: 25, threshold: -1 },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.length, 25);
  assert.ok(res.body.data.every((h) => h.node_id === target));
  assert.equal(res.body.has_more, true);
  const rest = await indexed.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
    token: user.token,
    body: { query: 'astronomy stars telescopes', node_ids: [target], limit: 25, threshold: -1, cursor: res.body.cursor },
  });
  // The index is approximate: the continuation may miss a row, but never repeats one or leaves the node.
  assert.ok(rest.body.data.length >= 1 && rest.body.data.length <= 5, `${rest.body.data.length} more`);
  assert.ok(rest.body.data.every((h) => h.node_id === target));
  const ids = [...res.body.data, ...rest.body.data].map((h) => h.id);
  assert.equal(new Set(ids).size, ids.length);

  const top = await indexed.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
    token: user.token,
    body: { query: 'astronomy stars telescopes', limit: 10 },
  });
  assert.equal(top.body.data.length, 10);
  const astronomyNodes = new Set<string | null>(nodeIds.filter((_, i) => i % 4 === 0));
  assert.ok(
    top.body.data.every((h) => astronomyNodes.has(h.node_id)),
    'the best hits are astronomy notes',
  );

  // The index path on its own (the search falls back to an exact scan when the index gives up, which
  // would hide a failure of the iterative scan): one node of 20, far from the query, fills the page.
  // A small ef_search, so the first batch of candidates (mostly astronomy) cannot hold them.
  const { embedder } = indexed.built.services;
  assert.equal(embedder.kind, 'dense');
  if (embedder.kind !== 'dense') return;
  const [vector] = await embedder.embed(['astronomy stars telescopes']);
  const direct = await indexSearch(indexed.database.db, {
    boardId: board,
    vector: vector!,
    dims: embedder.dimensions,
    model: embedder.model,
    nodeIds: [target],
    limit: 25,
    efSearch: 30,
  });
  assert.equal(direct.length, 26, 'limit + 1 rows through the iterative index scan');
  assert.ok(direct.every((r) => r.node_id === target));
  const distances = direct.map((r) => r.key);
  assert.deepEqual(
    distances,
    [...distances].sort((a, b) => a - b),
  );
  const byIndex = new Set(direct.slice(0, 25).map((r) => r.id));
  const overlap = res.body.data.filter((h) => byIndex.has(h.id)).length;
  assert.ok(overlap >= 20, `the index's first page agrees with the search's (${overlap} of 25)`);
});

test('exact or index: small and selective candidate sets are scanned exactly', async () => {
  let asked = 0;
  const total = (n: number) => async () => {
    asked++;
    return n;
  };
  // At most SEARCH_EXACT_MAX_CHUNKS: exact, without counting the model's chunks.
  assert.equal(await prefersExactScan(2_000, 3_000, total(100_000)), true);
  assert.equal(asked, 0);
  // Above it: exact only while the candidates are under a fifth of the model's chunks, up to 20,000.
  assert.equal(await prefersExactScan(6_700, 3_000, total(100_000)), true);
  assert.equal(await prefersExactScan(6_700, 3_000, total(30_000)), false);
  assert.equal(await prefersExactScan(25_000, 3_000, total(1_000_000)), false);
  assert.equal(asked, 2);
  // 0 forces the index.
  assert.equal(await prefersExactScan(10, 0, total(1_000_000)), false);
  assert.equal(asked, 2);
});
