// What one POST /v1/mcp may carry and what it costs: a JSON-RPC batch is bounded (messages per
// batch, items over its tool calls) and refused whole with a 400 beyond that; each JSON-RPC request
// in it counts against the caller's rate limits like a REST request (the key's, the user's across
// keys, a JWT user's), and a batch the budget cannot cover is a 429 before any of it runs; and
// Idempotency-Key is honoured (the first JSON-RPC answer replayed, another body 409). Over raw
// HTTP and with the SDK's own client transport.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorBody } from './helpers/api-types.js';
import { Redis } from 'ioredis';
import { isErrorEnvelope, type Response, startServer, type TestServer, type TestUser, useServer } from './helpers/harness.js';
import { redisAvailable, startRedis, type RedisServer } from './helpers/redis.js';

const ACCEPT = { accept: 'application/json, text/event-stream' };

interface ToolAnswer {
  jsonrpc: '2.0';
  id: number;
  result?: { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string };
}

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A create_nodes call of `items` notes. */
const createCall = (id: number, boardId: string, items: number) =>
  toolCall(id, 'create_nodes', {
    board_id: boardId,
    nodes: Array.from({ length: items }, (_, i) => ({ text: `call ${id} item ${i}` })),
  });

const batchOf = (calls: number, boardId: string, items = 1) => Array.from({ length: calls }, (_, i) => createCall(i + 1, boardId, items));

function mcp<T = unknown>(server: TestServer, token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response<T>> {
  return server.request<T>('POST', '/v1/mcp', { token, body, headers: { ...ACCEPT, ...headers } });
}

async function nodeCount(server: TestServer, boardId: string): Promise<number> {
  const row = await server.database.db
    .selectFrom('nodes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('board_id', '=', boardId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function assertRateLimited(res: Response<ErrorBody>, message: RegExp): void {
  assert.equal(res.status, 429, res.text);
  assert.ok(isErrorEnvelope(res.body, 429));
  assert.equal(res.body.code, 'rate_limited');
  assert.match(res.body.message, message);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(res.headers.get('ratelimit-remaining'), '0');
}

/** A bare SDK client transport (the official client never batches, but its transport sends arrays). */
async function sdkTransport(server: TestServer, token: string) {
  const received: JSONRPCMessage[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  return { transport, received };
}

describe('the bounds of one MCP request', () => {
  const server = useServer({ BOARD_MAX_NODES: '1000' });
  let alice: TestUser;
  let boardId: string;

  before(async () => {
    alice = await server.user();
    boardId = await server.makeBoard(alice);
  });

  test('a batch of 100 create_nodes calls of 100 items is refused whole: 400, nothing created', async () => {
    const res = await mcp<ErrorBody>(server, alice.token, batchOf(100, boardId, 100));
    assert.equal(res.status, 400, res.text.slice(0, 500));
    assert.ok(isErrorEnvelope(res.body, 400));
    assert.equal(res.body.code, 'invalid_request');
    assert.match(res.body.message, /at most 20 messages/);
    assert.equal(await nodeCount(server, boardId), 0);
  });

  test('more than 20 messages is a 400 naming the bound, even of one item each', async () => {
    const res = await mcp<ErrorBody>(server, alice.token, batchOf(21, boardId, 1));
    assert.equal(res.status, 400, res.text.slice(0, 500));
    assert.match(res.body.message, /A JSON-RPC batch carries at most 20 messages; this one has 21/);
    assert.equal(await nodeCount(server, boardId), 0);
  });

  test('more than 500 items over the tool calls of one request is a 400 naming the bound', async () => {
    const res = await mcp<ErrorBody>(server, alice.token, batchOf(6, boardId, 100));
    assert.equal(res.status, 400, res.text.slice(0, 500));
    assert.equal(res.body.code, 'invalid_request');
    assert.match(res.body.message, /at most 500 items over its tool calls; this one has 600/);
    assert.equal(await nodeCount(server, boardId), 0);
  });

  test('the SDK client transport gets the same 400 for a batch over the bound', async () => {
    const { transport, received } = await sdkTransport(server, alice.token);
    await assert.rejects(transport.send(batchOf(21, boardId, 1)), (error: unknown) => {
      assert.ok(error instanceof StreamableHTTPError, String(error));
      assert.equal(error.code, 400);
      return true;
    });
    await transport.close();
    assert.equal(received.length, 0);
    assert.equal(await nodeCount(server, boardId), 0);
  });

  test('within the bounds a batch runs: 5 calls of 100 items create 500 nodes', async () => {
    const res = await mcp<ToolAnswer[]>(server, alice.token, batchOf(5, boardId, 100));
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.equal(res.body.length, 5);
    for (const answer of res.body) assert.ok(answer.result && !answer.result.isError, JSON.stringify(answer).slice(0, 300));
    assert.equal(await nodeCount(server, boardId), 500);
    // One call of more than 100 items is refused by the tool's schema, as before.
    const one = await mcp<ToolAnswer>(server, alice.token, createCall(1, boardId, 101));
    assert.equal(one.status, 200, one.text.slice(0, 500));
    assert.ok(one.body.error || one.body.result?.isError, one.text.slice(0, 300));
    assert.equal(await nodeCount(server, boardId), 500);
  });
});

describe('the calls of one batch take their turns one after another', () => {
  // A queue of one: calls of one batch that all joined the user's queue at once would fill it.
  const server = useServer({ HEAVY_WORK_PER_USER: '1', HEAVY_WORK_QUEUE_PER_USER: '1' });
  let alice: TestUser;
  let boardId: string;
  before(async () => {
    alice = await server.user();
    boardId = await server.makeBoard(alice);
  });

  test('5 calls in one batch all run, past a queue of one, and never queue behind each other', async () => {
    const res = await mcp<ToolAnswer[]>(server, alice.token, batchOf(5, boardId, 10));
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.equal(res.body.length, 5);
    for (const answer of res.body) assert.ok(answer.result && !answer.result.isError, JSON.stringify(answer).slice(0, 300));
    assert.equal(await nodeCount(server, boardId), 50);
  });
});

describe('each JSON-RPC request counts against the rate limits', () => {
  const server = useServer({ RATE_LIMIT_API_KEY_PER_MINUTE: '10', RATE_LIMIT_USER_PER_MINUTE: '1000', RATE_LIMIT_JWT_PER_MINUTE: '6' });
  let alice: TestUser;
  let boardId: string;

  before(async () => {
    alice = await server.user();
    boardId = await server.makeBoard(alice);
  });

  test('an API key: batches of 4 calls cost 4 each; the batch the budget cannot cover is 429 and runs nothing', async () => {
    const key = (await alice.keyWith(['read', 'write'])).raw_key;
    const first = await mcp<ToolAnswer[]>(server, key, batchOf(4, boardId));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.length, 4);
    assert.equal(first.headers.get('ratelimit-limit'), '10');
    assert.equal(first.headers.get('ratelimit-remaining'), '6');
    const second = await mcp<ToolAnswer[]>(server, key, batchOf(4, boardId));
    assert.equal(second.status, 200, second.text);
    assert.equal(second.headers.get('ratelimit-remaining'), '2');
    assert.equal(await nodeCount(server, boardId), 8);
    // 3 more calls with 2 left: refused whole, before any call runs.
    const third = await mcp<ErrorBody>(server, key, batchOf(3, boardId));
    assertRateLimited(third, /Rate limit of 10 requests per minute exceeded.*each JSON-RPC request.*counts as one request/);
    assert.equal(await nodeCount(server, boardId), 8);
  });

  test('a single call costs one, as a REST request; notifications cost nothing beyond the POST', async () => {
    const key = (await alice.keyWith(['read', 'write'])).raw_key;
    const one = await mcp(server, key, createCall(1, boardId, 3));
    assert.equal(one.status, 200, one.text);
    assert.equal(one.headers.get('ratelimit-remaining'), '9');
    const notes = [1, 2, 3].map(() => ({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const accepted = await mcp(server, key, notes);
    assert.equal(accepted.status, 202, accepted.text);
    const after = await mcp(server, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(after.headers.get('ratelimit-remaining'), '7');
  });

  test('a JWT user: the same counting against the JWT budget', async () => {
    const bob = await server.user();
    const bobBoard = await server.makeBoard(bob);
    const jwt = await bob.jwt();
    const res = await mcp(server, jwt, batchOf(5, bobBoard));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('ratelimit-limit'), '6');
    assert.equal(res.headers.get('ratelimit-remaining'), '1');
    assertRateLimited(await mcp<ErrorBody>(server, jwt, batchOf(2, bobBoard)), /Rate limit of 6 requests per minute exceeded/);
    assert.equal(await nodeCount(server, bobBoard), 5);
  });

  test('the SDK client transport: a batch sent through it is counted per call', async () => {
    const carol = await server.user();
    const carolBoard = await server.makeBoard(carol);
    const key = (await carol.keyWith(['read', 'write'])).raw_key;
    const { transport, received } = await sdkTransport(server, key);
    await transport.send(batchOf(3, carolBoard));
    assert.equal(received.length, 3);
    // 3 for the batch and 1 for this request: 6 of 10 left.
    const after = await mcp(server, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(after.headers.get('ratelimit-remaining'), '6');
    await assert.rejects(transport.send(batchOf(7, carolBoard)), (error: unknown) => {
      assert.ok(error instanceof StreamableHTTPError, String(error));
      assert.equal(error.code, 429);
      return true;
    });
    await transport.close();
    assert.equal(await nodeCount(server, carolBoard), 3);
    // The SDK's Client (one call per POST) sees the 429 as a failed call.
    const client = new Client({ name: 'mcp-limits-test', version: '1.0.0' });
    const limited = new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await assert.rejects(client.connect(limited), /429/);
    await client.close();
  });
});

describe("the per-user budget across a user's keys counts each call", () => {
  const server = useServer({ RATE_LIMIT_API_KEY_PER_MINUTE: '100', RATE_LIMIT_USER_PER_MINUTE: '10' });

  test('two keys of one user share the budget', async () => {
    const dan = await server.user();
    const boardId = await server.makeBoard(dan); // 1 of the user's 10
    const one = (await dan.keyWith(['read', 'write'])).raw_key;
    const two = (await dan.keyWith(['read', 'write'])).raw_key;
    const first = await mcp(server, one, batchOf(5, boardId));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('ratelimit-limit'), '10');
    assert.equal(first.headers.get('ratelimit-remaining'), '4');
    const second = await mcp<ErrorBody>(server, two, batchOf(5, boardId));
    assertRateLimited(second, /Rate limit of 10 requests per minute across all of this user's API keys exceeded/);
    assert.equal(await nodeCount(server, boardId), 5);
  });
});

describe('the calls of a batch are counted in Redis when the counters are shared', {
  skip: redisAvailable() ? false : 'redis-server is not installed',
}, () => {
  let redis: RedisServer;
  let server: TestServer;

  before(async () => {
    redis = await startRedis();
    server = await startServer({ REDIS_URL: redis.url, RATE_LIMIT_API_KEY_PER_MINUTE: '10', RATE_LIMIT_USER_PER_MINUTE: '1000' });
  });
  after(async () => {
    await server?.close();
    await redis?.stop();
  });

  test("a batch of 4 calls is 4 on the key's shared counter", async () => {
    const erin = await server.user();
    const boardId = await server.makeBoard(erin);
    const key = await erin.keyWith(['read', 'write']);
    const res = await mcp(server, key.raw_key, batchOf(4, boardId));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('ratelimit-remaining'), '6');
    const client = new Redis(redis.url);
    try {
      assert.equal(await client.get(`bwk-rl:key:${key.id}`), '4');
    } finally {
      client.disconnect();
    }
    assertRateLimited(await mcp<ErrorBody>(server, key.raw_key, batchOf(7, boardId)), /Rate limit of 10 requests per minute exceeded/);
    assert.equal(await nodeCount(server, boardId), 4);
  });
});

describe('Idempotency-Key on POST /v1/mcp', () => {
  const server = useServer();
  let alice: TestUser;
  let boardId: string;

  before(async () => {
    alice = await server.user();
    boardId = await server.makeBoard(alice);
  });

  test('three calls with one key create once; the retries replay the same JSON-RPC answer', async () => {
    const key = randomUUID();
    const body = createCall(7, boardId, 1);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await mcp<ToolAnswer>(server, alice.token, body, { 'idempotency-key': key }));
    for (const res of answers) assert.equal(res.status, 200, res.text);
    assert.equal(answers[0]!.headers.get('idempotent-replayed'), null);
    assert.ok(answers[0]!.body.result && !answers[0]!.body.result.isError, answers[0]!.text);
    for (const replay of answers.slice(1)) {
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.match(replay.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(replay.text, answers[0]!.text, 'the replay is byte for byte the first answer');
    }
    assert.equal(await nodeCount(server, boardId), 1);
  });

  test('the same key with a different body is 409 conflict and runs nothing', async () => {
    const key = randomUUID();
    const first = await mcp(server, alice.token, createCall(1, boardId, 1), { 'idempotency-key': key });
    assert.equal(first.status, 200, first.text);
    const before = await nodeCount(server, boardId);
    const other = await mcp<ErrorBody>(server, alice.token, createCall(1, boardId, 2), { 'idempotency-key': key });
    assert.equal(other.status, 409, other.text);
    assert.ok(isErrorEnvelope(other.body, 409));
    assert.equal(other.body.code, 'conflict');
    assert.match(other.body.message, /already used with a different request/);
    assert.equal(await nodeCount(server, boardId), before);
  });

  test('a batch is replayed whole; without a key every POST runs', async () => {
    const key = randomUUID();
    const before = await nodeCount(server, boardId);
    const first = await mcp<ToolAnswer[]>(server, alice.token, batchOf(3, boardId), { 'idempotency-key': key });
    const again = await mcp<ToolAnswer[]>(server, alice.token, batchOf(3, boardId), { 'idempotency-key': key });
    assert.equal(first.status, 200, first.text);
    assert.equal(again.text, first.text);
    assert.equal(await nodeCount(server, boardId), before + 3);
    await mcp(server, alice.token, createCall(1, boardId, 1));
    await mcp(server, alice.token, createCall(1, boardId, 1));
    assert.equal(await nodeCount(server, boardId), before + 5);
  });
});
