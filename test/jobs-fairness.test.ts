// Fair sharing of the job workers between users: claims rotate between users with queued jobs, a
// process runs JOB_CONCURRENCY jobs at once, and a user's unfinished jobs are bounded. The fake
// embeddings server holds requests on demand, so the tests see which jobs are running and in which
// order they were taken up, never how long anything took.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DocumentList, JobBody } from './helpers/api-types.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import { isErrorEnvelope, startServer, type TestServer, type TestUser } from './helpers/harness.js';

const DIMS = 8;
let fake: FakeEmbeddings;

before(async () => {
  fake = await startFakeEmbeddings(DIMS);
});
after(() => fake.close());

const start = (env: Record<string, string>) =>
  startServer({
    EMBEDDINGS_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: 'sk-test',
    EMBEDDINGS_MODEL: 'fake-embed',
    EMBEDDINGS_DIMENSIONS: String(DIMS),
    EMBEDDINGS_BATCH_SIZE: '2',
    CHUNK_SIZE: '100',
    CHUNK_OVERLAP: '0',
    JOB_POLL_MS: '50',
    ...env,
  });

/** Text of about `chunks` chunks, each sentence naming `label` (job…), so a batch tells which job sent it. */
const text = (label: string, chunks: number) =>
  Array.from({ length: chunks }, (_, i) => `job${label} sentence ${i} has words to fill most of one chunk.`).join(' ');

/** The job a batch of chunks came from. */
const jobOf = (input: string[]) => /\bjob(\w+)/.exec(input.join(' '))?.[1];

/** Waits until the fake holds `count` requests (a wait with a deadline, not a timing assertion). */
async function heldRequests(count: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (fake.held.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the fake holds ${fake.held.length} requests, expected ${count}`);
}

async function vectorize(server: TestServer, user: TestUser, board: string, body: string) {
  return server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { text: body } });
}

describe('fair job claims', () => {
  let server: TestServer;
  before(async () => {
    server = await start({ JOB_CONCURRENCY: '1' });
  });
  after(() => server.close());

  test("one user's queue of large jobs does not hold back another user's small job", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const aliceBoard = await server.makeBoard(alice);
    const bobBoard = await server.makeBoard(bob);
    fake.batches.length = 0;
    fake.holding = true;
    const aliceJobs: string[] = [];
    for (const label of ['alphaone', 'alphatwo', 'alphathree', 'alphafour']) {
      const res = await vectorize(server, alice, aliceBoard, text(label, 6));
      assert.equal(res.status, 202, res.text);
      aliceJobs.push(res.body.data.id);
    }
    // Alice's first job is running (its first batch is held); Bob queues a small job after all of hers.
    await heldRequests(1);
    const small = await vectorize(server, bob, bobBoard, text('bravo', 1));
    assert.equal(small.status, 202, small.text);
    fake.release();
    for (const id of aliceJobs) assert.equal((await server.waitForJob(id, alice.token)).status, 'completed');
    assert.equal((await server.waitForJob(small.body.data.id, bob.token)).status, 'completed');
    // The order in which the jobs were worked on, from the batches the provider was sent.
    const order = fake.batches.map((b) => jobOf(b.input)).filter((label, i, all) => label !== all[i - 1]);
    assert.deepEqual(order, ['alphaone', 'bravo', 'alphatwo', 'alphathree', 'alphafour']);
  });

  test('claims rotate between users who both have queued jobs', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const aliceBoard = await server.makeBoard(alice);
    const bobBoard = await server.makeBoard(bob);
    fake.batches.length = 0;
    fake.holding = true;
    // A blocker holds the only slot while both queue.
    const blocker = await vectorize(server, alice, aliceBoard, text('blocker', 1));
    await heldRequests(1);
    const ids: [TestUser, string][] = [];
    for (const [user, board, label] of [
      [alice, aliceBoard, 'aone'],
      [alice, aliceBoard, 'atwo'],
      [alice, aliceBoard, 'athree'],
      [bob, bobBoard, 'bone'],
      [bob, bobBoard, 'btwo'],
    ] as const) {
      const res = await vectorize(server, user, board, text(label, 1));
      assert.equal(res.status, 202, res.text);
      ids.push([user, res.body.data.id]);
    }
    fake.release();
    assert.equal((await server.waitForJob(blocker.body.data.id, alice.token)).status, 'completed');
    for (const [user, id] of ids) assert.equal((await server.waitForJob(id, user.token)).status, 'completed');
    const order = fake.batches.map((b) => jobOf(b.input));
    assert.deepEqual(order, ['blocker', 'bone', 'aone', 'btwo', 'atwo', 'athree']);
  });
});

describe('job concurrency', () => {
  test('JOB_CONCURRENCY=2 runs two jobs side by side', async () => {
    const server = await start({ JOB_CONCURRENCY: '2' });
    try {
      const user = await server.user();
      const board = await server.makeBoard(user);
      fake.holding = true;
      const first = await vectorize(server, user, board, text('first', 1));
      const second = await vectorize(server, user, board, text('second', 1));
      // Both jobs are waiting on the provider at once: neither waited for the other to finish.
      await heldRequests(2);
      assert.deepEqual(fake.held.map(jobOf).sort(), ['first', 'second']);
      fake.release();
      assert.equal((await server.waitForJob(first.body.data.id, user.token)).status, 'completed');
      assert.equal((await server.waitForJob(second.body.data.id, user.token)).status, 'completed');
    } finally {
      fake.release();
      await server.close();
    }
  });
});

describe('jobs for one node side by side', () => {
  test('the job queued last decides what the node keeps, whichever finishes first', async () => {
    const server = await start({ JOB_CONCURRENCY: '2' });
    try {
      const user = await server.user();
      const board = await server.makeBoard(user);
      const node = await server.makeNode(user, board, { data: { text: 'n' } });
      const post = (label: string) =>
        server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
          token: user.token,
          body: { text: text(label, 1), node_id: node.id },
        });
      fake.holding = true;
      const older = await post('older');
      const newer = await post('newer');
      await heldRequests(2);
      // The newer job finishes first, the older one after it.
      fake.release((input) => jobOf(input) === 'newer');
      assert.equal((await server.waitForJob(newer.body.data.id, user.token)).status, 'completed');
      fake.release();
      assert.equal((await server.waitForJob(older.body.data.id, user.token)).status, 'completed');
      const chunks = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?node_id=${node.id}`, { token: user.token });
      assert.deepEqual(
        chunks.body.data.map((c) => jobOf([c.content])),
        ['newer'],
      );
    } finally {
      fake.release();
      await server.close();
    }
  });
});

describe('queued jobs per user', () => {
  test('past JOB_MAX_QUEUED_PER_USER unfinished jobs a new one is refused with 429 and nothing is queued', async () => {
    const server = await start({ JOB_CONCURRENCY: '1', JOB_MAX_QUEUED_PER_USER: '2' });
    try {
      const alice = await server.user();
      const bob = await server.user();
      const board = await server.makeBoard(alice);
      fake.holding = true;
      const first = await vectorize(server, alice, board, text('one', 1));
      const second = await vectorize(server, alice, board, text('two', 1));
      assert.equal(first.status, 202);
      assert.equal(second.status, 202);
      // With an Idempotency-Key: a 429 is not kept, so the same request runs again once there is room.
      const retryKey = { 'idempotency-key': `queue-${alice.userId}` };
      const refused = await server.request('POST', `/v1/boards/${board}/documents`, {
        token: alice.token,
        body: { text: text('three', 1) },
        headers: retryKey,
      });
      assert.equal(refused.status, 429, refused.text);
      assert.ok(isErrorEnvelope(refused.body, 429));
      assert.equal(refused.body.code, 'rate_limited');
      assert.match(refused.body.message, /2 unfinished jobs, the most allowed \(2\)/);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      const jobs = await server.database.db.selectFrom('jobs').select('id').where('user_id', '=', alice.userId).execute();
      assert.equal(jobs.length, 2, 'the refused request queued nothing');
      // The bound is per user.
      const bobs = await vectorize(server, bob, await server.makeBoard(bob), text('bob', 1));
      assert.equal(bobs.status, 202, bobs.text);
      fake.release();
      for (const res of [first, second]) assert.equal((await server.waitForJob(res.body.data.id, alice.token)).status, 'completed');
      assert.equal((await server.waitForJob(bobs.body.data.id, bob.token)).status, 'completed');
      // Finished jobs no longer count.
      const again = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, {
        token: alice.token,
        body: { text: text('three', 1) },
        headers: retryKey,
      });
      assert.equal(again.status, 202, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), null);
      assert.equal((await server.waitForJob(again.body.data.id, alice.token)).status, 'completed');
    } finally {
      fake.release();
      await server.close();
    }
  });

  test('JOB_CONCURRENCY and JOB_MAX_QUEUED_PER_USER are checked at start', async () => {
    const { loadConfig } = await import('../src/config.js');
    assert.throws(() => loadConfig({ JOB_CONCURRENCY: '65' }), /JOB_CONCURRENCY must be between 0 and 64, got 65/);
    assert.equal(loadConfig({ JOB_CONCURRENCY: '0' }).jobConcurrency, 0);
    assert.throws(() => loadConfig({ JOB_MAX_QUEUED_PER_USER: 'many' }), /JOB_MAX_QUEUED_PER_USER must be a whole number/);
    assert.ok(loadConfig({}).jobConcurrency >= 1);
    assert.equal(loadConfig({}).jobMaxQueuedPerUser, 200);
  });
});
