// POST /v1/documents/search: the board search across every board the caller may read. Hits from
// the caller's boards, each naming its board_id, merged by score; board_ids narrows; another user's
// private board, named, reveals nothing (the same answer as a missing id); public boards are
// searched when named; paging by cursor; bad input is the error envelope.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { JobBody } from './helpers/api-types.js';
import { isErrorEnvelope, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

type Hit = { id: string; board_id: string; node_id: string | null; content: string; score: number };
type HitList = { object: 'list'; data: Hit[]; has_more: boolean; cursor: string | null };

async function vectorize(user: TestUser, boardId: string, text: string): Promise<void> {
  const job = await server.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, { token: user.token, body: { text } });
  assert.equal(job.status, 202, job.text);
  assert.equal((await server.waitForJob(job.body.data.id, user.token)).status, 'completed');
}

const search = (user: TestUser, body: Record<string, unknown>) =>
  server.request<HitList>('POST', '/v1/documents/search', { token: user.token, body });

let aliceA: string;
let aliceB: string;
let bobPrivate: string;
let bobPublic: string;

before(async () => {
  [alice, bob] = await Promise.all([server.user(), server.user()]);
  aliceA = await server.makeBoard(alice);
  aliceB = await server.makeBoard(alice);
  bobPrivate = await server.makeBoard(bob);
  bobPublic = await server.makeBoard(bob, { is_public: true });
  await vectorize(alice, aliceA, 'Tidal locking keeps the same face of the moon toward the earth.');
  await vectorize(alice, aliceB, 'The moon raises ocean tides twice a day.');
  await vectorize(alice, aliceB, 'Sourdough bread needs a lively starter.');
  await vectorize(bob, bobPrivate, 'Secret: the moon base opens in spring (xyzzyplugh).');
  await vectorize(bob, bobPublic, 'Public notes: the moon orbits the earth every 27 days.');
});

describe('search across boards', () => {
  test("without board_ids: the caller's own boards, each hit naming its board, by descending score", async () => {
    const res = await search(alice, { query: 'moon tides', mode: 'keyword' });
    assert.equal(res.status, 200, res.text);
    const boards = new Set(res.body.data.map((h) => h.board_id));
    assert.deepEqual([...boards].sort(), [aliceA, aliceB].sort());
    assert.match(res.body.data[0]!.content, /tides/);
    const scores = res.body.data.map((h) => h.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.ok(!res.body.data.some((h) => /Sourdough/.test(h.content)), 'keyword mode: only chunks holding a query word');
  });

  test('board_ids narrows; a named public board of another user is searched', async () => {
    const one = await search(alice, { query: 'moon', mode: 'keyword', board_ids: [aliceA] });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual([...new Set(one.body.data.map((h) => h.board_id))], [aliceA]);
    const pub = await search(alice, { query: 'moon', mode: 'hybrid', board_ids: [bobPublic, aliceB] });
    assert.deepEqual([...new Set(pub.body.data.map((h) => h.board_id))].sort(), [aliceB, bobPublic].sort());
  });

  test("another user's private board, named, reveals nothing: the same answer as a missing board", async () => {
    for (const mode of ['vector', 'keyword', 'hybrid']) {
      const theirs = await search(alice, { query: 'xyzzyplugh moon base', mode, board_ids: [bobPrivate] });
      const missing = await search(alice, { query: 'xyzzyplugh moon base', mode, board_ids: [randomUUID()] });
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual(theirs.body, missing.body);
      assert.deepEqual(theirs.body.data, []);
    }
    const own = await search(bob, { query: 'xyzzyplugh', mode: 'keyword' });
    assert.equal(own.body.data.length, 1, 'its owner finds it');
  });

  test('pages by cursor through the merged ranking; a cursor of another search is refused', async () => {
    const all = await search(alice, { query: 'moon tides bread', mode: 'keyword', limit: 10 });
    assert.equal(all.body.data.length, 3);
    const first = await search(alice, { query: 'moon tides bread', mode: 'keyword', limit: 2 });
    assert.equal(first.body.has_more, true);
    const second = await search(alice, { query: 'moon tides bread', mode: 'keyword', limit: 2, cursor: first.body.cursor });
    assert.equal(second.body.has_more, false);
    assert.deepEqual([...first.body.data, ...second.body.data], all.body.data);
    const other = await search(alice, { query: 'moon', mode: 'keyword', limit: 2, cursor: first.body.cursor });
    assert.ok(isErrorEnvelope(other.body, 400), other.text);
  });

  test('bad input: the error envelope', async () => {
    for (const body of [
      {},
      { query: '' },
      { query: 'moon', board_ids: [] },
      { query: 'moon', board_ids: ['nope'] },
      { query: 'moon', extra: 1 },
    ]) {
      const res = await search(alice, body);
      assert.ok(isErrorEnvelope(res.body, 400), `${JSON.stringify(body)}: ${res.text}`);
    }
    const none = await server.request('POST', '/v1/documents/search', { body: { query: 'moon' } });
    assert.ok(isErrorEnvelope(none.body, 401), none.text);
  });
});
