// A job interrupted by a crash resumes as soon as the service is back on the embedded database
// (issue 26, item 11): one process owns DATA_DIR, so at start no other worker can hold the lease a
// crash left behind, and the app releases it. The lease here is an hour: without that release the
// job could not finish within the test. The server runs as a child process, killed with SIGKILL in
// the middle of a vectorize job; the wire run skips that test (the child is always embedded) and
// checks instead that on a shared PostgreSQL a restart leaves the leases alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase } from '../src/db/database.js';
import type { BoardBody, Job, JobBody } from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';
import { realPostgres, wireRun } from './helpers/wire-database.js';
import { newId, now } from '../src/lib/ids.js';
import { startServer } from './helpers/harness.js';

const skip = wireRun ? 'the child server always uses the embedded database' : false;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-resume-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function call<T>(child: ChildServer, token: string, method: string, urlPath: string, body?: unknown): Promise<T> {
  const res = await fetch(`${child.url}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** A text of a couple of thousand chunks (varied sentences), so the job runs for seconds. */
function longText(paragraphs: number): string {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const words = ['river', 'harbor', 'lantern', 'orbit', 'meadow', 'glacier', 'archive', 'compass'];
  return Array.from({ length: paragraphs }, (_, p) =>
    Array.from(
      { length: 6 },
      (_, s) => `Paragraph ${p} sentence ${s} takes the ${words[next() % 8]} past the ${words[next() % 8]} ${next() % 1000}.`,
    ).join(' '),
  ).join('\n\n');
}

/** Polls until `done` answers true; fails with `message` after `ms` (a bound on a hang, never a timing under test). */
async function until(done: () => boolean | Promise<boolean>, message: string, ms = 180_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await done()); ) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('kill -9 mid-job, restart: the job resumes at once, not after its lease', { skip }, async () => {
  // A copy of the migrated template: creating a database is not what this test is about.
  await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
  const token = (
    await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject('resume-test', { name: 'resume', scopes: ['read', 'write'] })
  ).raw_key;
  await database.close();
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'debug', JOB_LEASE_SECONDS: '3600', JOB_POLL_MS: '100' };

  let child = await startChildServer(env);
  const board = (await call<BoardBody>(child, token, 'POST', '/v1/boards', { name: 'resume' })).data.id;
  const jobId = (await call<JobBody>(child, token, 'POST', `/v1/boards/${board}/documents`, { text: longText(2500) })).data.id;
  const job = () => call<JobBody>(child, token, 'GET', `/v1/jobs/${jobId}`).then((body) => body.data);
  // Mid-way: chunks written and the job still running.
  await until(async () => {
    if (child.log().includes('"msg":"vectorize progress"')) return true;
    assert.equal((await job()).status, 'processing', 'the job ended before the kill');
    return false;
  }, 'the job never reported progress');
  child.proc.kill('SIGKILL');
  await child.exit;

  child = await startChildServer(env);
  let ended: Job | undefined;
  await until(async () => {
    const now = await job();
    if (now.status !== 'processing') ended = now;
    return ended !== undefined;
  }, 'still processing three minutes after the restart: the hour-long lease a crash left was not released');
  assert.ok(ended);
  assert.match(child.log(), /"jobs":1,"msg":"jobs interrupted by a crash resume now"/);
  assert.equal(ended.status, 'completed', JSON.stringify(ended));
  child.proc.kill('SIGTERM');
  await child.exit;
});

test("on PostgreSQL a restart leaves running jobs' leases alone: another instance may hold them", {
  skip: realPostgres ? false : 'only a shared PostgreSQL keeps its jobs across two servers here',
}, async () => {
  const first = await startServer({ JOB_POLL_MS: '50' });
  const user = await first.user();
  const id = newId();
  const leaseUntil = new Date(Date.now() + 3600_000);
  try {
    // A job another instance is running: claimed, its lease an hour away.
    await first.database.db
      .insertInto('jobs')
      .values({
        id,
        user_id: user.userId,
        board_id: null,
        type: 'document_process',
        status: 'processing',
        result: null,
        error: null,
        payload: JSON.stringify({}),
        attempts: 1,
        lease_until: leaseUntil,
        created_at: now(),
        updated_at: now(),
      })
      .execute();
  } finally {
    await first.close();
  }
  const second = await startServer({ JOB_POLL_MS: '50' });
  try {
    const row = await second.database.db
      .selectFrom('jobs')
      .select(['lease_until', 'attempts'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.lease_until?.getTime(), leaseUntil.getTime());
    assert.equal(row.attempts, 1);
  } finally {
    await second.close();
  }
});
