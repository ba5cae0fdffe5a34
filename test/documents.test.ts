// Vectorize, jobs, chunk listing and deletion, search ranking and filters, tenancy, duplicate.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { DocumentChunk, DocumentList, DuplicateBody, Job, JobBody, NodeList, SearchBody } from './helpers/api-types.js';
import { MISSING_ID, type Response, TIMESTAMP, type TestUser, useServer } from './helpers/harness.js';

const server = useServer({ JOB_POLL_MS: '50' });
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

async function vectorize(boardId: string, body: Record<string, unknown>, token = alice.token): Promise<Job> {
  const res = await server.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, { token, body });
  assert.equal(res.status, 202, res.text);
  return server.waitForJob(res.body.data.id, token);
}

async function note(boardId: string, text: string, label?: string, user = alice): Promise<string> {
  return (await server.makeNode(user, boardId, { data: { text, ...(label ? { label } : {}) } })).id;
}

const search = (boardId: string, body: Record<string, unknown>, token = alice.token) =>
  server.request<SearchBody>('POST', `/v1/boards/${boardId}/documents/search`, { token, body });

const corpus = {
  volcano: 'Volcanoes erupt when magma rises through the crust. Lava flows and ash clouds follow an eruption.',
  bread: 'Baking bread needs flour, water, yeast and salt. The dough rises before it goes into the oven.',
  football: 'The football match ended with a late goal. The striker scored in the final minute of the game.',
};

describe('vectorize and jobs', () => {
  test('202 with a processing job, then completed with { chunks }', async () => {
    const board = await server.makeBoard(alice);
    const node = await note(board, corpus.bread, 'Bread notes');
    const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: alice.token,
      body: { text: corpus.bread, node_id: node },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.object, 'job');
    const job = res.body.data;
    assert.deepEqual(Object.keys(job).sort(), ['created_at', 'error', 'id', 'result', 'status', 'type', 'updated_at']);
    assert.equal(job.type, 'document_process');
    assert.equal(job.status, 'processing');
    assert.equal(job.result, null);
    assert.equal(job.error, null);
    assert.match(job.created_at, TIMESTAMP);
    const done = await server.waitForJob(job.id, alice.token);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { chunks: 1 });
    assert.equal(done.error, null);

    const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents`, { token: alice.token });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    const chunk = list.body.data[0];
    assert.ok(chunk);
    assert.equal(chunk.node_id, node);
    assert.equal(chunk.content, corpus.bread);
    assert.deepEqual(chunk.metadata, {
      source: 'Bread notes',
      page: 1,
      chunkIndex: 0,
      totalChunks: 1,
      sourceType: 'note',
      char_start: 0,
      char_end: chunk.content.length,
    });
    assert.match(chunk.model, /^local-/);
  });

  test('defaults without a node: source and sourceType "text"; explicit ones win', async () => {
    const board = await server.makeBoard(alice);
    await vectorize(board, { text: 'Plain text without a node.' });
    await vectorize(board, { text: 'Another text.', source: 'manual.txt', source_type: 'file' });
    const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?order=asc`, { token: alice.token });
    assert.deepEqual(
      list.body.data.map((c) => [c.node_id, c.metadata.source, c.metadata.sourceType]),
      [
        [null, 'text', 'text'],
        [null, 'manual.txt', 'file'],
      ],
    );
  });

  test('long text: several chunks with indexes, and the list paginates', async () => {
    const board = await server.makeBoard(alice);
    const text = Array.from({ length: 200 }, (_, i) => `This is sentence ${i} of a long document about topic ${i % 7}.`).join(' ');
    const done = await vectorize(board, { text });
    const n = done.result?.chunks as number;
    assert.ok(n > 5, `${n} chunks`);
    const seen: DocumentChunk[] = [];
    let cursor: string | null = null;
    do {
      const page: Response<DocumentList> = await server.request<DocumentList>(
        'GET',
        `/v1/boards/${board}/documents?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
        {
          token: alice.token,
        },
      );
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.data);
      cursor = page.body.cursor;
    } while (cursor);
    assert.equal(seen.length, n);
    assert.deepEqual(
      seen.map((c) => c.metadata.chunkIndex),
      seen.map((_, i) => i),
    );
    assert.ok(seen.every((c) => c.metadata.totalChunks === n));
  });

  test('bad requests: no text for a blank note node, blank text, unknown node, unknown field', async () => {
    const board = await server.makeBoard(alice);
    const node = await note(board, '  ');
    for (const body of [{ node_id: node }, { text: '   ' }, { text: '' }, { text: 'a', extra: 1 }, {}]) {
      const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: alice.token, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    const missing = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: alice.token,
      body: { text: 'a', node_id: MISSING_ID },
    });
    assert.equal(missing.status, 404);
    const other = await server.makeBoard(alice);
    const foreignNode = await server.request<JobBody>('POST', `/v1/boards/${other}/documents`, {
      token: alice.token,
      body: { text: 'a', node_id: node },
    });
    assert.equal(foreignNode.status, 404, 'a node of another board');
  });

  test("another user's job is 404; an unknown job is 404", async () => {
    const board = await server.makeBoard(alice);
    const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
      token: alice.token,
      body: { text: 'private text' },
    });
    assert.equal((await server.request('GET', `/v1/jobs/${res.body.data.id}`, { token: bob.token })).status, 404);
    assert.equal((await server.request('GET', `/v1/jobs/${MISSING_ID}`, { token: alice.token })).status, 404);
  });

  test('NUL characters are cleaned, not a 500; a lone surrogate is 400, as in every body', async () => {
    const board = await server.makeBoard(alice);
    const done = await vectorize(board, { text: 'nul \u0000 here' });
    assert.equal(done.status, 'completed');
    const lone = await server.request('POST', `/v1/boards/${board}/documents`, {
      token: alice.token,
      body: { text: 'a lone \ud800 surrogate' },
    });
    assert.equal(lone.status, 400, lone.text);
  });
});

describe('search', () => {
  let board: string;
  const nodes: Record<string, string> = {};
  before(async () => {
    board = await server.makeBoard(alice);
    for (const [name, text] of Object.entries(corpus)) {
      nodes[name] = await note(board, text, name);
      await vectorize(board, { text, node_id: nodes[name] });
    }
  });

  test('the relevant note ranks first, scores descend, the envelope is the contract', async () => {
    for (const [query, expected] of [
      ['when does a volcano erupt', 'volcano'],
      ['how to bake bread with yeast', 'bread'],
      ['who scored the goal in the match', 'football'],
    ] as const) {
      const res = await search(board, { query });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['cursor', 'data', 'has_more', 'object']);
      assert.equal(res.body.data[0]?.node_id, nodes[expected], query);
      assert.deepEqual(Object.keys(res.body.data[0] ?? {}).sort(), ['content', 'id', 'metadata', 'node_id', 'score']);
      const scores = res.body.data.map((h) => h.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
      assert.ok(scores.every((s: number) => s >= 0 && s <= 1 + 1e-6));
    }
  });

  test('threshold, limit, node_ids, has_more and cursor', async () => {
    const all = await search(board, { query: 'volcano lava bread football', threshold: -1, limit: 100 });
    assert.equal(all.body.data.length, 3);
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.cursor, null);
    // The local model's cosines are those of sparse term vectors: a good match of a short query is about 0.1 to 0.4.
    const strict = await search(board, { query: 'volcano eruption lava', threshold: 0.1 });
    assert.deepEqual(
      strict.body.data.map((h) => h.node_id),
      [nodes.volcano],
    );
    assert.ok((strict.body.data[0]?.score ?? Number.NaN) >= 0.1);
    const first = await search(board, { query: 'volcano lava bread football', threshold: -1, limit: 2 });
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.has_more, true);
    const second = await search(board, { query: 'volcano lava bread football', threshold: -1, limit: 2, cursor: first.body.cursor });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((h) => h.id),
      all.body.data.map((h) => h.id),
    );
    assert.equal(second.body.has_more, false);
    const foreignCursor = await search(board, { query: 'another query', cursor: first.body.cursor });
    assert.equal(foreignCursor.status, 400);
    assert.equal((await search(board, { query: 'x', cursor: 'garbage' })).status, 400);
    const filtered = await search(board, { query: 'volcano', threshold: -1, node_ids: [nodes.bread, nodes.football] });
    assert.deepEqual(new Set(filtered.body.data.map((h) => h.node_id)), new Set([nodes.bread, nodes.football]));
  });

  test('bounds: query 1..2000, limit 1..100, threshold -1..1, node_ids at most 100', async () => {
    for (const body of [
      { query: '' },
      { query: 'x'.repeat(2001) },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 101 },
      { query: 'x', threshold: 1.5 },
      { query: 'x', threshold: -2 },
      { query: 'x', node_ids: Array.from({ length: 101 }, () => MISSING_ID) },
      { limit: 5 },
      { query: 'x', node_ids: ['nope'] },
    ]) {
      assert.equal((await search(board, body)).status, 400, JSON.stringify(body).slice(0, 80));
    }
  });

  test("tenancy: another user's private board is 404; a public one is searchable but not writable", async () => {
    assert.equal((await search(board, { query: 'volcano' }, bob.token)).status, 404);
    assert.equal((await server.request('GET', `/v1/boards/${board}/documents`, { token: bob.token })).status, 404);
    assert.equal((await server.request('POST', `/v1/boards/${board}/documents`, { token: bob.token, body: { text: 'x' } })).status, 404);
    const bobBoard = await server.makeBoard(bob);
    await vectorize(bobBoard, { text: 'Bob writes about volcanoes and lava too.' }, bob.token);
    const own = await search(bobBoard, { query: 'volcano lava', threshold: -1, limit: 100 }, bob.token);
    assert.equal(own.body.data.length, 1, "Bob's search never returns Alice's chunks");
    const mine = await search(board, { query: 'volcano lava', threshold: -1, limit: 100 });
    assert.ok(
      mine.body.data.every((h) => Object.values<string | null>(nodes).includes(h.node_id)),
      "Alice's search never returns Bob's chunks",
    );

    const shared = await server.makeBoard(alice, { is_public: true });
    await vectorize(shared, { text: 'A shared note about glaciers.' });
    const seen = await search(shared, { query: 'glaciers' }, bob.token);
    assert.equal(seen.status, 200);
    assert.equal(seen.body.data.length, 1);
    const write = await server.request<JobBody>('POST', `/v1/boards/${shared}/documents`, { token: bob.token, body: { text: 'x' } });
    assert.equal(write.status, 403);
  });
});

describe('chunk lifecycle', () => {
  test('re-vectorizing a node replaces its chunks; other nodes keep theirs', async () => {
    const board = await server.makeBoard(alice);
    const a = await note(board, 'a');
    const b = await note(board, 'b');
    await vectorize(board, { text: 'First version about apples.', node_id: a });
    await vectorize(board, { text: 'Text about bananas.', node_id: b });
    const long = Array.from({ length: 60 }, (_, i) => `Second version sentence ${i} about pears.`).join(' ');
    const done = await vectorize(board, { text: long, node_id: a });
    const listA = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?node_id=${a}&limit=100`, { token: alice.token });
    assert.equal(listA.body.data.length, done.result?.chunks);
    assert.ok(listA.body.data.every((c) => c.content.includes('pears')));
    const listB = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?node_id=${b}`, { token: alice.token });
    assert.equal(listB.body.data.length, 1);
  });

  test("deleting a node removes its chunks; DELETE …/documents?node_id removes a node's chunks", async () => {
    const board = await server.makeBoard(alice);
    const a = await note(board, 'a');
    const b = await note(board, 'b');
    await vectorize(board, { text: 'Chunk of node a.', node_id: a });
    await vectorize(board, { text: 'Chunk of node b.', node_id: b });
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/nodes/${a}`, { token: alice.token })).status, 200);
    let list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents`, { token: alice.token });
    assert.deepEqual(
      list.body.data.map((c) => c.node_id),
      [b],
    );
    const del = await server.request('DELETE', `/v1/boards/${board}/documents?node_id=${b}`, { token: alice.token });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { object: 'document', data: { id: b, deleted: true, chunks: 1 } });
    list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents`, { token: alice.token });
    assert.equal(list.body.data.length, 0);
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/documents?node_id=${a}`, { token: alice.token })).status, 404);
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/documents`, { token: alice.token })).status, 400);
  });

  test('duplicate copies chunks with node ids remapped; deleting the board removes them', async () => {
    const board = await server.makeBoard(alice);
    const a = await note(board, 'a');
    await vectorize(board, { text: 'Duplicated knowledge about comets.', node_id: a });
    await vectorize(board, { text: 'Loose text about asteroids.' });
    const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${board}/duplicate`, { token: alice.token });
    assert.equal(dup.status, 201, dup.text);
    const copy = dup.body.data.id;
    const nodes = await server.request<NodeList>('GET', `/v1/boards/${copy}/nodes`, { token: alice.token });
    const newA = nodes.body.data[0]?.id;
    assert.notEqual(newA, a);
    const hits = await search(copy, { query: 'comets', threshold: -1 });
    assert.deepEqual(hits.body.data.map((h) => h.node_id).sort(), [newA, null].sort());
    const originals = await search(board, { query: 'comets', threshold: -1 });
    assert.equal(new Set([...hits.body.data, ...originals.body.data].map((h) => h.id)).size, 4, 'new chunk ids');
    assert.equal((await server.request('DELETE', `/v1/boards/${copy}`, { token: alice.token })).status, 200);
    const left = await server.database.db.selectFrom('document_chunks').select('id').where('board_id', '=', copy).execute();
    assert.equal(left.length, 0);
  });
});
