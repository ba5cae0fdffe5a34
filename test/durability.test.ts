// Durability of the embedded database with the real server as a child process: every write that was
// answered 2xx survives a kill -9, and SIGTERM drains an in-flight request, refuses new ones, exits
// 0 and leaves a database that reopens cleanly (no lock left). The child always runs the embedded
// PGlite, so the wire-protocol run (TEST_DATABASE_URL) skips those: it would test the same thing.
// And, in process on either database, a close that begins with a request in flight ends promptly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase } from '../src/db/database.js';
import type { BoardBody, BoardList, NodeBody } from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';
import { startServer } from './helpers/harness.js';
import { wireRun } from './helpers/wire-database.js';

const skip = wireRun ? 'the child server always uses the embedded database' : false;

async function makeKey(dataDir: string): Promise<string> {
  // A copy of the migrated template: what is tested is the writes' durability, not the database's creation.
  await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
  try {
    const key = await new ApiKeyService({ db: database.db, env: 'test' }).createForSubject(`durability-${Date.now()}`, {
      name: 'durability',
      scopes: ['read', 'write'],
    });
    return key.raw_key;
  } finally {
    await database.close();
  }
}

/** Sends a request to the child server; `T` is the body's type (see api-types.ts). */
async function call<T>(child: ChildServer, token: string, method: string, urlPath: string, body?: unknown) {
  const res = await fetch(`${child.url}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

// One DATA_DIR for both tests; each test leaves it closed.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-durability-'));
let token: string;
before(async () => {
  if (!skip) token = await makeKey(dataDir);
});
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('durability of the embedded database', { skip }, () => {
  test('every answered write survives kill -9', async () => {
    const child = await startChildServer({ DATA_DIR: dataDir });

    // Sequential writes: boards, nodes on them, and updates.
    const boards: { id: string; name: string }[] = [];
    const nodes: { boardId: string; id: string; text: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call<BoardBody>(child, token, 'POST', '/v1/boards', { name: `board ${i}` });
      assert.equal(res.status, 201);
      boards.push({ id: res.body.data.id, name: `board ${i}` });
    }
    for (let i = 0; i < 8; i++) {
      const boardId = boards[i % boards.length]!.id;
      const res = await call<NodeBody>(child, token, 'POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: i, y: -i },
        data: { text: `note ${i}` },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      nodes.push({ boardId, id: res.body.data.id, text: `note ${i}` });
    }
    const renamed = await call<BoardBody>(child, token, 'PATCH', `/v1/boards/${boards[0]!.id}`, { name: 'renamed' });
    assert.equal(renamed.status, 200);
    boards[0]!.name = 'renamed';
    // A concurrent burst; the kill comes the moment the last answer is in.
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call<BoardBody>(child, token, 'POST', '/v1/boards', { name: `burst ${i}` })),
    );
    child.proc.kill('SIGKILL');
    for (const [i, res] of burst.entries()) {
      assert.equal(res.status, 201);
      boards.push({ id: res.body.data.id, name: `burst ${i}` });
    }
    await child.exit;

    // The lock of the killed process is stale; the restarted server takes over and recovers.
    const again = await startChildServer({ DATA_DIR: dataDir });
    for (const board of boards) {
      const res = await call<BoardBody>(again, token, 'GET', `/v1/boards/${board.id}`);
      assert.equal(res.status, 200, `board ${board.name} lost after kill -9`);
      assert.equal(res.body.data.name, board.name);
    }
    for (const node of nodes) {
      const res = await call<NodeBody>(again, token, 'GET', `/v1/boards/${node.boardId}/nodes/${node.id}`);
      assert.equal(res.status, 200, `node ${node.text} lost after kill -9`);
      assert.equal(res.body.data.node_data.text, node.text);
    }
    const list = await call<BoardList>(again, token, 'GET', '/v1/boards?limit=100');
    assert.equal(list.body.data.length, boards.length);
    assert.deepEqual(new Set(list.body.data.map((b) => b.id)), new Set(boards.map((b) => b.id)));
    // And it keeps taking writes.
    assert.equal((await call<BoardBody>(again, token, 'POST', '/v1/boards', { name: 'after restart' })).status, 201);
    again.proc.kill('SIGTERM');
    assert.equal(await again.exit, 0);
  });

  test('SIGTERM drains an in-flight request, refuses new ones, exits 0 and unlocks', async () => {
    const child = await startChildServer({ DATA_DIR: dataDir });
    const { hostname, port } = new URL(child.url);
    const body = JSON.stringify({ name: 'in flight' });

    // A request whose headers the server has taken (the 100 Continue proves it) but whose body
    // only follows after the SIGTERM: it is in flight for the whole shutdown.
    const request = http.request({
      host: hostname,
      port: Number(port),
      method: 'POST',
      path: '/v1/boards',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
    });
    await new Promise<void>((resolve) => {
      request.on('continue', resolve);
      request.flushHeaders();
    });

    child.proc.kill('SIGTERM');
    // New connections are refused (or answered 503) once the shutdown has begun.
    for (;;) {
      const res = await fetch(`${child.url}/healthz`).catch(() => undefined);
      if (!res) break;
      await res.arrayBuffer();
      if (res.status === 503) break;
      assert.equal(res.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    request.end(body);
    const { status, text } = await answer;
    assert.equal(status, 201, text);
    const created = (JSON.parse(text) as BoardBody).data;
    assert.equal(await child.exit, 0, child.log());
    assert.equal(fs.existsSync(path.join(dataDir, 'pg.lock')), false, 'pg.lock left behind');

    // The database reopens cleanly and has the drained write.
    const database = await openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
    try {
      const row = await database.db.selectFrom('boards').select('name').where('id', '=', created.id).executeTakeFirst();
      assert.equal(row?.name, 'in flight');
    } finally {
      await database.close();
    }
  });
});

describe('closing with a request in flight', () => {
  test('the connection of a request answered after closing began is ended, so the close does not wait for keep-alive', async () => {
    const server = await startServer();
    const owner = await server.user();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const body = JSON.stringify({ name: 'answered while closing' });
      const answer = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
        const req = http.request(
          `${server.url}/v1/boards`,
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${owner.token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
          },
        );
        req.on('error', reject);
        // Half the body now: the request is in flight when the close begins.
        req.write(body.slice(0, 5));
        setTimeout(() => req.end(body.slice(5)), 300);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      let closedAt: number | undefined;
      const closed = server.built.close().then(() => (closedAt = Date.now()));
      const answered = await answer;
      assert.equal(answered.status, 201, answered.text);
      // Without ending the connection the close waits for the keep-alive timeout (72 s); allow 20.
      const started = Date.now();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      assert.ok(closedAt !== undefined, `the close had not finished ${Date.now() - started} ms after the answer`);
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
