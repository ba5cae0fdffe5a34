// Bulk vectorizing (issue 26, item 12): POST /v1/boards/{id}/documents/batch queues one job per
// document, all or none, counted against the per-user job bound together; and a full queue's 429
// says in Retry-After when the queue will have room, from the user's recent completions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DocumentList, ErrorBody, JobBody, JobList } from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, useServer, type TestServer, type TestUser } from './helpers/harness.js';
import { newId } from '../src/lib/ids.js';
import { insertJobs, QUEUE_RETRY, queueRetryAfter } from '../src/jobs/job-service.js';
import { realPostgres } from './helpers/wire-database.js';

const jobsOf = async (server: TestServer, user: TestUser) =>
  (await server.database.db.selectFrom('jobs').select('id').where('user_id', '=', user.userId).execute()).length;

const batch = <T = JobList>(server: TestServer, user: TestUser, board: string, documents: unknown[], headers?: Record<string, string>) =>
  server.request<T>('POST', `/v1/boards/${board}/documents/batch`, { token: user.token, body: { documents }, headers });

describe('POST /v1/boards/{id}/documents/batch', () => {
  const server = useServer();

  test('one job per document, in order; each completes and indexes its node', async () => {
    const alice = await server.user();
    const board = await server.makeBoard(alice);
    const one = await server.makeNode(alice, board, { type: 'note', data: { label: 'One', text: 'x' } });
    const two = await server.makeNode(alice, board, { type: 'note', data: { label: 'Two', text: 'y' } });
    const res = await batch(server, alice, board, [
      { node_id: one.id, text: 'Photosynthesis turns light into sugar.' },
      { text: 'A loose text about glaciers.', source: 'glaciers' },
      { node_id: two.id, text: 'Mitochondria make energy.' },
    ]);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.has_more, false);
    assert.equal(res.body.data.length, 3);
    for (const job of res.body.data) {
      assert.equal(job.type, 'document_process');
      const done = await server.waitForJob(job.id, alice.token);
      assert.equal(done.status, 'completed', done.error ?? '');
    }
    const chunks = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?limit=100`, { token: alice.token });
    const byContent = new Map(chunks.body.data.map((c) => [c.content, c]));
    assert.equal(byContent.get('Photosynthesis turns light into sugar.')?.node_id, one.id);
    assert.equal(byContent.get('Mitochondria make energy.')?.node_id, two.id);
    assert.equal(byContent.get('A loose text about glaciers.')?.metadata.source, 'glaciers');
  });

  test('all or nothing: one invalid document refuses the batch, naming it, and nothing is queued', async () => {
    const alice = await server.user();
    const board = await server.makeBoard(alice);
    const note = await server.makeNode(alice, board);
    const before = await jobsOf(server, alice);
    const blank = await batch<ErrorBody>(server, alice, board, [{ text: 'fine' }, { text: '   ' }]);
    assert.equal(blank.status, 400, blank.text);
    assert.ok(isErrorEnvelope(blank.body, 400));
    assert.match(blank.body.message, /^documents\[1\]: text must contain some non-blank characters/);
    const noText = await batch<ErrorBody>(server, alice, board, [{ text: 'fine' }, { node_id: note.id }]);
    assert.equal(noText.status, 400, noText.text);
    assert.ok(isErrorEnvelope(noText.body, 400));
    assert.match(noText.body.message, /^documents\[1\]: text is required/);
    const missing = await batch<ErrorBody>(server, alice, board, [{ text: 'fine' }, { text: 'fine', node_id: MISSING_ID }]);
    assert.equal(missing.status, 404, missing.text);
    assert.ok(isErrorEnvelope(missing.body, 404));
    assert.equal(missing.body.message, 'documents[1]: Node not found');
    for (const documents of [[], Array.from({ length: 101 }, () => ({ text: 'x' })), [{ text: 'x', extra: 1 }], [{ text: '' }]]) {
      const res = await batch<ErrorBody>(server, alice, board, documents);
      assert.equal(res.status, 400, res.text);
      assert.ok(isErrorEnvelope(res.body, 400));
    }
    const noDocuments = await server.request('POST', `/v1/boards/${board}/documents/batch`, { token: alice.token, body: {} });
    assert.equal(noDocuments.status, 400);
    assert.equal(await jobsOf(server, alice), before, 'a refused batch queued nothing');
  });

  test("another user's node or board in a batch is 404 and nothing is queued", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const aliceBoard = await server.makeBoard(alice);
    const bobBoard = await server.makeBoard(bob);
    const bobNode = await server.makeNode(bob, bobBoard);
    const before = await jobsOf(server, alice);
    const foreignNode = await batch<ErrorBody>(server, alice, aliceBoard, [{ text: 'mine' }, { text: 'theirs', node_id: bobNode.id }]);
    assert.equal(foreignNode.status, 404, foreignNode.text);
    assert.ok(isErrorEnvelope(foreignNode.body, 404));
    assert.equal(foreignNode.body.message, 'documents[1]: Node not found');
    const foreignBoard = await batch<ErrorBody>(server, alice, bobBoard, [{ text: 'into their board' }]);
    assert.equal(foreignBoard.status, 404, foreignBoard.text);
    assert.equal(await jobsOf(server, alice), before);
    assert.equal(await jobsOf(server, bob), 0);
  });

  test('Idempotency-Key: a retry is answered with the same jobs and queues nothing more', async () => {
    const alice = await server.user();
    const board = await server.makeBoard(alice);
    const headers = { 'idempotency-key': `batch-${alice.userId}` };
    const documents = [{ text: 'First text.' }, { text: 'Second text.' }];
    const first = await batch(server, alice, board, documents, headers);
    assert.equal(first.status, 202, first.text);
    const again = await batch(server, alice, board, documents, headers);
    assert.equal(again.status, 202, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(
      again.body.data.map((j) => j.id),
      first.body.data.map((j) => j.id),
    );
    assert.equal(await jobsOf(server, alice), 2);
    const other = await batch(server, alice, board, [{ text: 'Another text.' }], headers);
    assert.equal(other.status, 409, 'the same key with another batch');
  });
});

describe('a full job queue answers when it will have room', () => {
  const MAX = 3;
  const server = useServer({ JOB_MAX_QUEUED_PER_USER: String(MAX) });

  /** A job row written directly: `processing` under a lease no worker will take over, or finished `secondsAgo`. */
  async function job(user: TestUser, base: number, state: { processing: true } | { finishedSecondsAgo: number }) {
    const at = new Date('processing' in state ? base : base - state.finishedSecondsAgo * 1000);
    await server.database.db
      .insertInto('jobs')
      .values({
        id: newId(),
        user_id: user.userId,
        board_id: null,
        type: 'document_process',
        status: 'processing' in state ? 'processing' : 'completed',
        result: 'processing' in state ? null : JSON.stringify({ chunks: 1 }),
        error: null,
        payload: null,
        attempts: 1,
        lease_until: 'processing' in state ? new Date(Date.now() + 3_600_000) : null,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }

  /** A user whose queue is full (MAX jobs held by a worker that never finishes them) and whose recent jobs finished these many seconds ago. */
  async function fullQueue(finishedSecondsAgo: number[]) {
    const user = await server.user();
    const board = await server.makeBoard(user);
    const base = Date.now();
    for (const s of finishedSecondsAgo) await job(user, base, { finishedSecondsAgo: s });
    for (let i = 0; i < MAX; i++) await job(user, base, { processing: true });
    return { user, board };
  }

  const vectorize = (user: TestUser, board: string) =>
    server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text: 'More text.' } });

  test('Retry-After is the time per job of the user’s recent completions times the jobs that must finish', async () => {
    // Finished 13, 10, 7 and 4 s ago: one job every 3 s (a job finished two minutes ago is outside the window).
    const { user, board } = await fullQueue([120, 13, 10, 7, 4]);
    const single = await server.request<ErrorBody>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text: 'More text.' },
    });
    assert.equal(single.status, 429, single.text);
    assert.ok(isErrorEnvelope(single.body, 429));
    assert.equal(single.body.code, 'rate_limited');
    assert.equal(single.headers.get('retry-after'), '3', 'one job must finish: 3 s');
    const two = await batch<ErrorBody>(server, user, board, [{ text: 'a' }, { text: 'b' }]);
    assert.equal(two.status, 429, two.text);
    assert.ok(isErrorEnvelope(two.body, 429));
    assert.match(two.body.message, /3 unfinished jobs, the most allowed \(3\); this request asks for 2 more/);
    assert.equal(two.headers.get('retry-after'), '6', 'two jobs must finish: 6 s');
    assert.equal(await jobsOf(server, user), 5 + MAX, 'nothing was queued');
  });

  test('Retry-After is at least 1 s, at most 60 s, and 10 s when nothing was measured', async () => {
    const fast = await fullQueue([0.3, 0.2, 0.1]);
    assert.equal((await vectorize(fast.user, fast.board)).headers.get('retry-after'), '1');
    const slow = await fullQueue([55, 5]);
    assert.equal((await batch(server, slow.user, slow.board, [{ text: 'a' }, { text: 'b' }])).headers.get('retry-after'), '60');
    const unknown = await fullQueue([2]);
    assert.equal((await vectorize(unknown.user, unknown.board)).headers.get('retry-after'), String(QUEUE_RETRY.unknownSeconds));
  });

  test('a batch larger than the bound can never fit: 400, nothing queued', async () => {
    const user = await server.user();
    const board = await server.makeBoard(user);
    const res = await batch<ErrorBody>(
      server,
      user,
      board,
      Array.from({ length: MAX + 1 }, () => ({ text: 'x' })),
    );
    assert.equal(res.status, 400, res.text);
    assert.ok(isErrorEnvelope(res.body, 400));
    assert.match(res.body.message, /at most 3 jobs/);
    assert.equal(await jobsOf(server, user), 0);
  });

  test('the rule', () => {
    const at = (...seconds: number[]) => seconds.map((s) => new Date(1_000_000 + s * 1000));
    assert.equal(queueRetryAfter(at(0, 0.05, 0.1), 1), 1);
    assert.equal(queueRetryAfter(at(0, 2.5), 1), 3);
    assert.equal(queueRetryAfter(at(0, 1, 2, 3), 7), 7);
    assert.equal(queueRetryAfter(at(0, 30), 3), 60);
    // A pause with nothing queued (57 s) does not lengthen the estimate: the median interval is 1 s.
    assert.equal(queueRetryAfter(at(0, 1, 2, 3, 60), 2), 2);
    assert.equal(queueRetryAfter(at(60, 0, 2, 1, 3), 2), 2, 'in any order');
    assert.equal(queueRetryAfter(at(0), 1), QUEUE_RETRY.unknownSeconds);
    assert.equal(queueRetryAfter([], 1), QUEUE_RETRY.unknownSeconds);
  });
});

describe('queueing does not hold back the worker', {
  skip: realPostgres ? false : 'needs a real PostgreSQL server (TEST_POSTGRES_URL): the embedded database runs one statement at a time',
}, () => {
  // A long poll, so an idle worker looks for jobs only when woken.
  const server = useServer({ JOB_CONCURRENCY: '1', JOB_POLL_MS: '60000' });

  test("a worker takes up a user's ready job while one of their requests is being queued", async () => {
    const user = await server.user();
    const board = await server.makeBoard(user);
    const ready = newId();
    const at = new Date();
    const { db } = server.database;
    await db
      .insertInto('jobs')
      .values({
        id: ready,
        user_id: user.userId,
        board_id: board,
        type: 'document_process',
        status: 'processing',
        result: null,
        error: null,
        payload: JSON.stringify({ boardId: board, nodeId: null, text: 'Ready text.', source: 'text', sourceType: 'text' }),
        attempts: 0,
        lease_until: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    // A request of the same user in the middle of queueing: its transaction holds the bound's lock.
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let queued!: () => void;
    const inside = new Promise<void>((resolve) => {
      queued = resolve;
    });
    const request = db
      .transaction()
      .execute(async (trx) => {
        await insertJobs(trx, user.userId, [{ userId: user.userId, boardId: board, type: 'document_process', payload: {} }], 200);
        queued();
        await held;
        throw new Error('rolled back');
      })
      .catch(() => {});
    try {
      await inside;
      server.built.services.jobs.wake();
      let attempts = 0;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline && attempts === 0; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        attempts = (await db.selectFrom('jobs').select('attempts').where('id', '=', ready).executeTakeFirstOrThrow()).attempts;
      }
      assert.equal(attempts, 1, 'the worker passed over the ready job while the request held its lock');
    } finally {
      finish();
      await request;
    }
    assert.equal((await server.waitForJob(ready, user.token)).status, 'completed');
  });
});
