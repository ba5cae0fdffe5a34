// Per-user quotas (issue 26, item 6): USER_MAX_BOARDS boards and USER_MAX_STORED_BYTES bytes of node
// and edge data, asset files and document chunk text on them. Reaching one refuses the next write
// that adds (409 conflict naming the quota and the usage) with nothing changed, on every path that
// adds; concurrent writes never overshoot; GET /v1/me/usage follows creates and deletes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../src/config.js';
import { PNG, postParts, uploadFile } from './helpers/assets.js';
import type { BoardList, DuplicateBody, ErrorBody, NodeList, UsageBody } from './helpers/api-types.js';
import { isErrorEnvelope, type Response, type TestServer, type TestUser, useServer } from './helpers/harness.js';

function assertQuotaError(res: Response<unknown>, pattern: RegExp): asserts res is Response<ErrorBody> {
  assert.equal(res.status, 409, res.text);
  assert.ok(isErrorEnvelope(res.body, 409), res.text);
  assert.equal(res.body.code, 'conflict');
  assert.match(res.body.message, pattern);
}

const usage = async (server: TestServer, user: TestUser) => {
  const res = await server.request<UsageBody>('GET', '/v1/me/usage', { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

const boardCount = async (server: TestServer, user: TestUser) =>
  (await server.request<BoardList>('GET', '/v1/boards?limit=100', { token: user.token })).body.data.length;

/** A JSON Canvas document of one text node. */
const canvas = (text = 'imported') => ({ nodes: [{ id: 'a', type: 'text', x: 0, y: 0, width: 100, height: 50, text }], edges: [] });

describe('boards quota', () => {
  const server = useServer({ USER_MAX_BOARDS: '3' });

  test('the fourth board is refused on every path that makes one; deleting one makes room', async () => {
    const user = await server.user();
    const boards = [await server.makeBoard(user), await server.makeBoard(user), await server.makeBoard(user)];
    const create = await server.request('POST', '/v1/boards', { token: user.token, body: { name: 'one too many' } });
    assertQuotaError(create, /at most 3 boards \(USER_MAX_BOARDS\) and owns 3/);
    assertQuotaError(await server.request('POST', `/v1/boards/${boards[0]}/duplicate`, { token: user.token }), /USER_MAX_BOARDS/);
    assertQuotaError(await server.request('POST', '/v1/boards/import', { token: user.token, body: canvas() }), /USER_MAX_BOARDS/);
    assert.equal(await boardCount(server, user), 3, 'nothing was created');
    assert.deepEqual((await usage(server, user)).boards, { used: 3, limit: 3 });

    // Another user is not affected.
    await server.makeBoard(await server.user());

    assert.equal((await server.request('DELETE', `/v1/boards/${boards[2]}`, { token: user.token })).status, 200);
    assert.deepEqual((await usage(server, user)).boards, { used: 2, limit: 3 });
    const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${boards[0]}/duplicate`, { token: user.token });
    assert.equal(dup.status, 201, dup.text);
    assert.deepEqual((await usage(server, user)).boards, { used: 3, limit: 3 });
  });

  test('concurrent creates stop exactly at the quota', async () => {
    const user = await server.user();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => server.request('POST', '/v1/boards', { token: user.token, body: { name: `b${i}` } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, ...Array(9).fill(409)], results.map((r) => r.text).join('\n'));
    assert.equal(await boardCount(server, user), 3);
    assert.deepEqual((await usage(server, user)).boards, { used: 3, limit: 3 });
  });
});

describe('stored bytes quota', () => {
  const QUOTA = 20_000;
  const server = useServer({ USER_MAX_STORED_BYTES: String(QUOTA) });
  const text = (bytes: number) => 'x'.repeat(bytes);
  const addNode = (user: TestUser, board: string, bytes: number) =>
    server.request('POST', `/v1/boards/${board}/nodes`, {
      token: user.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: text(bytes) } },
    });

  test('usage follows node data, assets and chunks, and a deleted board takes its share with it', async () => {
    const user = await server.user();
    const empty = await usage(server, user);
    assert.deepEqual(empty, {
      object: 'usage',
      boards: { used: 0, limit: 1000 },
      stored_bytes: { used: 0, limit: QUOTA, node_data: 0, assets: 0, chunks: 0 },
    });
    const board = await server.makeBoard(user);
    const node = await server.makeNode(user, board, { data: { text: 'hello' } });
    // Node data counts as its JSON text, as the board bounds count it.
    const { data_bytes: dataBytes } = await server.database.db
      .selectFrom('boards')
      .select('data_bytes')
      .where('id', '=', board)
      .executeTakeFirstOrThrow();
    assert.ok(dataBytes > 0);
    let now = await usage(server, user);
    assert.equal(now.boards.used, 1);
    assert.equal(now.stored_bytes.node_data, dataBytes);
    await uploadFile(server, user, board, PNG, 'pixel.png', 'image/png');
    now = await usage(server, user);
    assert.equal(now.stored_bytes.assets, PNG.length);
    const job = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text: 'A short document about harbors and lanterns.' },
    });
    assert.equal(job.status, 202, job.text);
    assert.equal((await server.waitForJob(job.body.data.id, user.token)).status, 'completed');
    now = await usage(server, user);
    assert.equal(now.stored_bytes.chunks, Buffer.byteLength('A short document about harbors and lanterns.'));
    assert.equal(now.stored_bytes.used, dataBytes + PNG.length + now.stored_bytes.chunks);

    assert.equal((await server.request('DELETE', `/v1/boards/${board}/nodes/${node.id}`, { token: user.token })).status, 200);
    assert.equal((await usage(server, user)).stored_bytes.node_data, 0);
    assert.equal((await server.request('DELETE', `/v1/boards/${board}`, { token: user.token })).status, 200);
    assert.deepEqual((await usage(server, user)).stored_bytes, { used: 0, limit: QUOTA, node_data: 0, assets: 0, chunks: 0 });
    assert.equal((await usage(server, user)).boards.used, 0);
  });

  test('a write past the quota is refused with nothing changed, across boards; shrinking and deleting stay allowed', async () => {
    const user = await server.user();
    const [a, b] = [await server.makeBoard(user), await server.makeBoard(user)];
    assert.equal((await addNode(user, a, 8000)).status, 201);
    assert.equal((await addNode(user, b, 8000)).status, 201);
    const before = await usage(server, user);
    assertQuotaError(await addNode(user, b, 8000), /at most 20000 bytes \(USER_MAX_STORED_BYTES\); this write would make it \d+/);
    // The batch, a duplicate, an import, an upload and a vectorize request: each refused, nothing written.
    const batch = await server.request('POST', `/v1/boards/${a}/batch`, {
      token: user.token,
      body: { operations: [{ op: 'create_node', type: 'note', position: { x: 0, y: 0 }, data: { text: text(5000) } }] },
    });
    assertQuotaError(batch, /USER_MAX_STORED_BYTES/);
    assertQuotaError(await server.request('POST', `/v1/boards/${a}/duplicate`, { token: user.token }), /USER_MAX_STORED_BYTES/);
    assertQuotaError(
      await server.request('POST', '/v1/boards/import', { token: user.token, body: canvas(text(5000)) }),
      /USER_MAX_STORED_BYTES/,
    );
    const vectorize = await server.request('POST', `/v1/boards/${a}/documents`, { token: user.token, body: { text: text(5000) } });
    assertQuotaError(vectorize, /USER_MAX_STORED_BYTES/);
    assert.deepEqual(await usage(server, user), before);
    assert.equal(await boardCount(server, user), 2);
    for (const board of [a, b]) {
      const nodes = await server.request<NodeList>('GET', `/v1/boards/${board}/nodes`, { token: user.token });
      assert.equal(nodes.body.data.length, 1);
    }

    // A file that does not fit is refused after it streamed, and its row and bytes are gone.
    // `{"text": "…"}` is 12 bytes more than its text: this leaves 10 bytes, fewer than the file's.
    const filler = await addNode(user, a, QUOTA - before.stored_bytes.used - 22);
    assert.equal(filler.status, 201, filler.text);
    assertQuotaError(
      await postParts(server, user.token, b, [{ filename: 'p.png', type: 'image/png', data: PNG }]),
      /USER_MAX_STORED_BYTES/,
    );
    assert.equal((await usage(server, user)).stored_bytes.assets, 0);

    // Over the quota, a node can still shrink and be deleted.
    const id = (filler.body as { data: { id: string } }).data.id;
    const shrink = await server.request('PATCH', `/v1/boards/${a}/nodes/${id}`, { token: user.token, body: { data: { text: 'small' } } });
    assert.equal(shrink.status, 200, shrink.text);
    assert.equal((await server.request('DELETE', `/v1/boards/${a}/nodes/${id}`, { token: user.token })).status, 200);
    assert.equal((await addNode(user, b, 1000)).status, 201, 'room again');
  });

  test('concurrent writes on several boards never take the user past the quota', async () => {
    const user = await server.user();
    const boards = [await server.makeBoard(user), await server.makeBoard(user), await server.makeBoard(user)];
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => addNode(user, boards[i % 3]!, 3000)));
    const created = results.filter((r) => r.status === 201).length;
    assert.ok(
      results.every((r) => r.status === 201 || r.status === 409),
      results.map((r) => r.text).join('\n'),
    );
    const now = await usage(server, user);
    assert.ok(now.stored_bytes.used <= QUOTA, `${now.stored_bytes.used} > ${QUOTA}`);
    assert.equal(created, Math.floor(QUOTA / (now.stored_bytes.node_data / created)), 'as many as fit');
  });

  test("MCP's create_nodes: items past the quota are refused and create nothing", async () => {
    const user = await server.user();
    const board = await server.makeBoard(user);
    assert.equal((await addNode(user, board, QUOTA - 1000)).status, 201);
    const client = new Client({ name: 'quota-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${user.token}` } },
      }),
    );
    try {
      const before = await usage(server, user);
      const result = (await client.callTool({
        name: 'create_nodes',
        arguments: { board_id: board, nodes: [{ text: text(1200) }, { text: text(1200) }] },
      })) as CallToolResult;
      // Each item is its own write: both are reported refused.
      assert.match(result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), /USER_MAX_STORED_BYTES/);
      assert.deepEqual(await usage(server, user), before);
    } finally {
      await client.close();
    }
  });

  test('a vectorize job whose chunks outgrow the quota fails naming it', async () => {
    const user = await server.user();
    const board = await server.makeBoard(user);
    // The text fits the quota as sent; its chunks overlap (CHUNK_OVERLAP), so they do not.
    const sentences = Array.from({ length: 1000 }, (_, i) => `Sentence ${i} of the harbor record.`).join(' ');
    const body = sentences.slice(0, QUOTA - 500);
    const job = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { text: body },
    });
    assert.equal(job.status, 202, job.text);
    const done = await server.waitForJob(job.body.data.id, user.token);
    assert.equal(done.status, 'failed');
    assert.match(done.error ?? '', /USER_MAX_STORED_BYTES/);
  });
});

test('the quotas are settings checked at start', () => {
  assert.deepEqual(loadConfig({}).userQuotas, { maxBoards: 1000, maxStoredBytes: 5 * 1024 ** 3 });
  assert.deepEqual(loadConfig({ USER_MAX_BOARDS: '7', USER_MAX_STORED_BYTES: '1048576' }).userQuotas, {
    maxBoards: 7,
    maxStoredBytes: 1048576,
  });
  assert.throws(() => loadConfig({ USER_MAX_BOARDS: '0' }), /USER_MAX_BOARDS must be between 1 and/);
  assert.throws(() => loadConfig({ USER_MAX_STORED_BYTES: '5GB' }), /USER_MAX_STORED_BYTES must be a whole number/);
});
