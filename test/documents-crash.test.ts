// kill -9 of the server in the middle of a large vectorize job: after a restart on the same DATA_DIR
// the job ends `completed` with exactly the chunks of its text, each once and whole, or `failed`
// with an error and no chunks; it never stays `processing`. The server runs as a child process (as
// in durability.test.ts), on the embedded database, so the wire run skips this file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase } from '../src/db/database.js';
import { chunkPages } from '../src/documents/chunker.js';
import type { BoardBody, DocumentChunk, DocumentList, Job, JobBody, NodeBody, SearchBody } from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';
import { wireRun } from './helpers/wire-database.js';

const skip = wireRun ? 'the child server always uses the embedded database' : false;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-crash-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Sends a request to the child server; `T` is the body's type (see api-types.ts). */
async function call<T>(
  child: ChildServer,
  token: string,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${child.url}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A long text of varied sentences in paragraphs (deterministic). */
function longText(paragraphs: number): string {
  const words = [
    'river',
    'mountain',
    'signal',
    'protein',
    'harbor',
    'engine',
    'lantern',
    'orbit',
    'meadow',
    'circuit',
    'glacier',
    'archive',
    'violin',
    'compass',
    'theorem',
    'pollen',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: paragraphs }, (_, p) =>
    Array.from(
      { length: 6 },
      (_, s) =>
        `Paragraph ${p} sentence ${s} links the ${words[next() % 16]} to the ${words[next() % 16]} near ${words[next() % 16]} number ${next() % 1000}.`,
    ).join(' '),
  ).join('\n\n');
}

test('kill -9 during a large vectorize job: after a restart it completes with the exact chunks, or fails; never stuck', {
  skip,
}, async () => {
  // A copy of the migrated template: creating a database is not what this test is about.
  await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
  const token = (
    await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject('crash-test', { name: 'crash', scopes: ['read', 'write'] })
  ).raw_key;
  await database.close();
  // A short lease so the restarted server takes the job up again quickly.
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'debug', JOB_LEASE_SECONDS: '5', JOB_POLL_MS: '100' };

  const text = longText(2500);
  const expected = chunkPages([{ page: 1, text }], { size: 1000, overlap: 150 });
  assert.ok(expected.length > 1000, `${expected.length} chunks`);

  let child = await startChildServer(env);
  const board = (await call<BoardBody>(child, token, 'POST', '/v1/boards', { name: 'crash' })).body.data.id;
  const node = (
    await call<NodeBody>(child, token, 'POST', `/v1/boards/${board}/nodes`, {
      type: 'note',
      position: { x: 0, y: 0 },
      data: { text: 'long', label: 'Long text' },
    })
  ).body.data.id;
  const posted = await call<JobBody>(child, token, 'POST', `/v1/boards/${board}/documents`, { text, node_id: node });
  assert.equal(posted.status, 202);
  const jobId = posted.body.data.id;

  // Mid-way: some chunks written, most not.
  const progress = await child.waitForLog((r) => r.msg === 'vectorize progress' && r.jobId === jobId);
  assert.ok((progress.written as number) > 0 && (progress.written as number) < expected.length, JSON.stringify(progress));
  child.proc.kill('SIGKILL');
  await child.exit;

  child = await startChildServer(env);
  let job: Job;
  for (const deadline = Date.now() + 240_000; ; ) {
    job = (await call<JobBody>(child, token, 'GET', `/v1/jobs/${jobId}`)).body.data;
    if (job.status !== 'processing') break;
    assert.ok(Date.now() < deadline, 'the job is still processing four minutes after the restart');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  // Every visible chunk of the board, in document order.
  const listed: DocumentChunk[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: DocumentList } = await call<DocumentList>(
      child,
      token,
      'GET',
      `/v1/boards/${board}/documents?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(page.status, 200);
    listed.push(...page.body.data);
    cursor = page.body.cursor;
  } while (cursor);

  if (job.status === 'completed') {
    // It went on from the chunks the killed attempt had written (they were whole and in order).
    const resumed = await child.waitForLog((r) => r.msg === 'vectorize resumed' && r.jobId === jobId);
    assert.ok((resumed.from as number) >= (progress.written as number), JSON.stringify(resumed));
    assert.deepEqual(job.result, { chunks: expected.length });
    assert.equal(listed.length, expected.length);
    assert.deepEqual(
      listed.map((c) => c.metadata.chunkIndex),
      expected.map((c) => c.chunkIndex),
      'each chunk once, in order',
    );
    assert.deepEqual(
      listed.map((c) => c.content),
      expected.map((c) => c.content),
      'whole chunks, exactly the text',
    );
    assert.ok(listed.every((c) => c.metadata.totalChunks === expected.length && c.node_id === node));
    const hits = await call<SearchBody>(child, token, 'POST', `/v1/boards/${board}/documents/search`, {
      query: listed[1234]!.content,
      limit: 1,
    });
    assert.equal(hits.body.data[0]?.id, listed[1234]!.id, 'the chunks are searchable');
  } else {
    assert.equal(job.status, 'failed');
    assert.equal(typeof job.error, 'string');
    assert.equal(listed.length, 0, 'a failed job leaves no visible chunks');
  }

  child.proc.kill('SIGTERM');
  await child.exit;
  // Storage holds nothing else: no duplicate rows, no leftover set (a failed job's is purged).
  const reopened = await openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
  try {
    const rows = await reopened.db
      .selectFrom('document_chunks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('board_id', '=', board)
      .executeTakeFirstOrThrow();
    const sets = await reopened.db.selectFrom('chunk_sets').select(['state', 'chunks']).where('board_id', '=', board).execute();
    if (job.status === 'completed') {
      assert.equal(Number(rows.n), expected.length);
      assert.deepEqual(sets, [{ state: 'live', chunks: expected.length }]);
    } else {
      assert.ok(sets.every((s) => s.state === 'retired'));
    }
  } finally {
    await reopened.close();
  }
});
