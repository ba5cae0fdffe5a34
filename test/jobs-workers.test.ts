// Several job workers on one database, as several processes would run them: every job is claimed
// once, and users are served in turn across the workers. The workers here run a test job type on a
// database with no app attached, so the order they take jobs up in is all the test looks at.
// In the wire run on a real PostgreSQL (TEST_POSTGRES_URL) the workers get connections of their own,
// so their claims truly run at the same time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { openDatabase } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { JobWorker, type ClaimedJob } from '../src/jobs/worker.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';
import { realPostgres } from './helpers/wire-database.js';

const silent = {
  child: () => silent,
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
} as unknown as FastifyBaseLogger;

test('two workers with two slots each claim every job once and serve users in turn', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-workers-'));
  // Several connections where the server takes them (the wire run's server takes one at a time).
  // pglite-socket takes one connection; a real server gives each worker slot its own.
  const poolMax = realPostgres ? 4 : 1;
  // Embedded, a copy of the migrated template (as the harness's servers start from).
  if (!process.env.TEST_DATABASE_URL) await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ dataDir, databaseUrl: process.env.TEST_DATABASE_URL, databasePoolMax: poolMax });
  const workers: JobWorker[] = [];
  try {
    const db = database.db;
    const users = { a: newId(), b: newId(), c: newId() };
    for (const id of Object.values(users)) await db.insertInto('users').values({ id, subject: id, created_at: new Date() }).execute();
    // Queued oldest first: eight of a's jobs, then three of b's, then one of c's.
    const queue = [...Array(8).fill('a'), ...Array(3).fill('b'), 'c'] as (keyof typeof users)[];
    const base = Date.now() - 60_000;
    for (const [i, who] of queue.entries()) {
      await db
        .insertInto('jobs')
        .values({
          id: newId(),
          user_id: users[who],
          board_id: null,
          type: 'workers_test',
          status: 'processing',
          result: null,
          error: null,
          payload: JSON.stringify({ who }),
          created_at: new Date(base + i),
          updated_at: new Date(base + i),
        })
        .execute();
    }
    const started: ClaimedJob[] = [];
    const handler = {
      async run(job: ClaimedJob) {
        started.push(job);
        // Let the other slots claim while this job is running.
        await new Promise((resolve) => setImmediate(resolve));
        return { result: {} };
      },
    };
    for (let i = 0; i < 2; i++) {
      const worker = new JobWorker(db, { workers_test: handler }, { leaseSeconds: 30, maxAttempts: 3, pollMs: 20, concurrency: 2 }, silent);
      workers.push(worker);
      worker.start();
    }
    const mine = () => db.selectFrom('jobs').select(['status', 'attempts']).where('user_id', 'in', Object.values(users)).execute();
    for (const deadline = Date.now() + 60_000; (await mine()).some((r) => r.status === 'processing'); ) {
      assert.ok(Date.now() < deadline, 'the jobs are still processing after a minute');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all(workers.map((w) => w.stop()));

    const ids = started.map((job) => job.id);
    assert.equal(new Set(ids).size, queue.length, 'every job ran once');
    assert.ok(started.every((job) => job.attempts === 1));
    assert.ok((await mine()).every((r) => r.status === 'completed' && r.attempts === 1));
    const order = started.map((job) => (job.payload as { who: string }).who);
    t.diagnostic(`order taken up: ${order.join(' ')}`);
    // Oldest first would take c's job last and b's 9th to 11th; in turn, c is among the first four
    // taken up and b's last by the eighth (a b c a b a b …). Four slots claim at once, and a claim
    // skips a user whose turn another claim holds, so under load c may come after a second b.
    assert.ok(order.slice(0, 4).includes('c'), order.join(' '));
    assert.equal(order.slice(0, 8).filter((who) => who === 'b').length, 3, order.join(' '));
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
