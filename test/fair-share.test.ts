// One user's share of the instance (issue 26, item 5 and item 2's last clause): slots handed out in
// turn between users (src/lib/fair-slots.ts), the database connections shared that way
// (src/db/fair-pool.ts), a user's expensive work capped (src/lib/heavy-work.ts: 429 past the user's
// queue, another user served meanwhile, MCP tool calls included), and the full read (the JSON Canvas
// export) streamed as its rows are read, its bytes those of the document as before.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { type PostgresPool, type PostgresPoolClient, sql } from 'kysely';
import { FairPool } from '../src/db/fair-pool.js';
import { ApiError } from '../src/errors.js';
import { toCanvas } from '../src/interchange/json-canvas.js';
import { FairSlots } from '../src/lib/fair-slots.js';
import { newId } from '../src/lib/ids.js';
import { storedNodeData } from '../src/nodes/node-data.js';
import type { Edge } from '../src/contract/edges.js';
import type { Node } from '../src/contract/nodes.js';
import type { EdgeList, ErrorBody, NodeList } from './helpers/api-types.js';
import { type TestServer, type TestUser, useServer } from './helpers/harness.js';

const refuse = (reason: string) => new Error(reason);
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('fair slots', () => {
  test('a freed slot goes to the waiting caller served longest ago, not to whoever asked first', async () => {
    const slots = new FairSlots({ capacity: 1, perKey: 1, refuse });
    const first = await slots.acquire('a');
    const order: string[] = [];
    const wait = (key: string, name: string) =>
      slots.acquire(key).then((release) => {
        order.push(name);
        release();
      });
    // a asks three more times before b asks once: FIFO would serve a, a, a, b.
    const all = [wait('a', 'a1'), wait('a', 'a2'), wait('a', 'a3'), wait('b', 'b1')];
    first();
    await Promise.all(all);
    assert.deepEqual(order, ['b1', 'a1', 'a2', 'a3']);
    // Two callers that both keep asking take turns.
    const held = await slots.acquire('c');
    const turns: string[] = [];
    const again = (key: string, n: number) =>
      slots.acquire(key).then((release) => {
        turns.push(`${key}${n}`);
        release();
      });
    const both = [again('c', 1), again('c', 2), again('c', 3), again('d', 1), again('d', 2), again('d', 3)];
    held();
    await Promise.all(both);
    assert.deepEqual(turns, ['d1', 'c1', 'd2', 'c2', 'd3', 'c3']);
  });

  test('one caller holds at most its share; others are served meanwhile; its queue is bounded', async () => {
    const slots = new FairSlots({ capacity: 4, perKey: 2, maxQueuedPerKey: 1, refuse });
    const a1 = await slots.acquire('a');
    await slots.acquire('a');
    let third = false;
    const a3 = slots.acquire('a').then((release) => {
      third = true;
      return release;
    });
    await assert.rejects(slots.acquire('a'), /queue_full/);
    const b1 = await slots.acquire('b'); // served at once: a is at its share, not the slots
    await flush();
    assert.equal(third, false);
    assert.equal(slots.inUse('a'), 2);
    assert.equal(slots.queued('a'), 1);
    a1();
    (await a3)();
    assert.equal(third, true);
    b1();
  });

  test('a wait past its bound is refused and leaves no trace', async () => {
    const slots = new FairSlots({ capacity: 1, perKey: 1, maxWaitMs: 1, refuse });
    const held = await slots.acquire('a');
    await assert.rejects(slots.acquire('b'), /timeout/);
    assert.equal(slots.queued(), 0);
    held();
    assert.equal(slots.inUse(), 0);
    (await slots.acquire('b'))();
  });
});

/** A pool of `size` fake connections that counts what it handed out. */
function fakePool(size: number) {
  let out = 0;
  const waiting: (() => void)[] = [];
  const pool: PostgresPool & { out(): number } = {
    out: () => out,
    async connect(): Promise<PostgresPoolClient> {
      if (out >= size) await new Promise<void>((resolve) => waiting.push(resolve));
      out++;
      return {
        query: (async () => ({ rows: [] })) as unknown as PostgresPoolClient['query'],
        release: () => {
          out--;
          waiting.shift()?.();
        },
      };
    },
    async end() {},
  };
  return pool;
}

describe('the fair pool', () => {
  test("one caller's statements hold at most its share of the connections; another caller's get one", async () => {
    const inner = fakePool(4);
    const pool = new FairPool(inner, { connections: 4, perCaller: 2, waitMs: 60_000, yieldMs: 0 });
    const a = { key: 'user:a', held: 0 };
    const b = { key: 'user:b', held: 0 };
    // Two requests of a, each with a connection.
    const a1 = await pool.enter({ ...a }, () => pool.connect());
    const a2 = await pool.enter({ ...a }, () => pool.connect());
    let served = false;
    const third = pool
      .enter({ ...a }, () => pool.connect())
      .then((client) => {
        served = true;
        return client;
      });
    const b1 = await pool.enter(b, () => pool.connect());
    await flush();
    assert.equal(served, false, "a's third request waits for a's own connections");
    assert.equal(inner.out(), 3);
    a1.release();
    const a3 = await third;
    a2.release();
    a3.release();
    b1.release();
    assert.equal(inner.out(), 0);
  });

  test('a request that holds a connection (its transaction) gets another without waiting on its share', async () => {
    const inner = fakePool(2);
    const pool = new FairPool(inner, { connections: 2, perCaller: 1, waitMs: 60_000, yieldMs: 0 });
    await pool.enter({ key: 'user:a', held: 0 }, async () => {
      const trx = await pool.connect();
      const inside = await pool.connect(); // would wait forever on a's share of one
      inside.release();
      trx.release();
    });
    assert.equal(inner.out(), 0);
  });

  test("a heavy caller's new statement waits until no other request's statement waits or runs", async () => {
    const inner = fakePool(4);
    const pool = new FairPool(inner, { connections: 4, perCaller: 2, waitMs: 60_000, yieldMs: 60_000 });
    const light = await pool.enter({ key: 'user:b', held: 0 }, () => pool.connect());
    let served = false;
    const heavy = pool
      .enter({ key: 'user:a', held: 0, heavy: true }, () => pool.connect())
      .then((client) => {
        served = true;
        return client;
      });
    // Work outside a request (the job worker) neither waits nor is waited for.
    const worker = await pool.connect();
    worker.release();
    await flush();
    assert.equal(served, false, 'the heavy statement waits although connections are free');
    light.release();
    (await heavy).release();
    assert.equal(served, true);
    assert.equal(inner.out(), 0);
  });

  test('a heavy caller yields to light statements for at most yieldMs each', async () => {
    const pool = new FairPool(fakePool(4), { connections: 4, perCaller: 2, waitMs: 60_000, yieldMs: 5 });
    const light = await pool.enter({ key: 'user:b', held: 0 }, () => pool.connect());
    // The light statement never ends here, yet the heavy one gets its connection.
    const heavy = await pool.enter({ key: 'user:a', held: 0, heavy: true }, () => pool.connect());
    heavy.release();
    light.release();
  });

  test('a statement that waits too long fails with 503 unavailable', async () => {
    const pool = new FairPool(fakePool(1), { connections: 1, perCaller: 1, waitMs: 1, yieldMs: 0 });
    const held = await pool.enter({ key: 'user:a', held: 0 }, () => pool.connect());
    // The pool's wait timer is unref'd (it must not keep a server's process alive): keep this one's.
    const alive = setInterval(() => {}, 1_000);
    const error = await pool.enter({ key: 'user:b', held: 0 }, () => pool.connect()).catch((e: unknown) => e);
    clearInterval(alive);
    assert.ok(error instanceof ApiError && error.code === 'unavailable', String(error));
    held.release();
  });
});

/** A note of `size` characters. */
const note = (i: number, size: number) => ({
  op: 'create_node',
  type: 'note' as const,
  position: { x: i * 10, y: i },
  data: { text: `${i} ${'x'.repeat(size)}`, label: `n${i}` },
});

/**
 * A board of `count` notes of `size` characters, their rows written as a batch of those notes writes
 * them (the stored data, ids and times in the order made), but by SQL: these tests read big boards,
 * and 40 MB of notes through the batch route was most of this file's time (the batch's own tests are
 * batch.test.ts's). Small boards go through the route.
 */
async function bigBoard(server: TestServer, user: TestUser, count: number, size: number): Promise<string> {
  const boardId = await server.makeBoard(user);
  if (count * size < 100_000) {
    const res = await server.request('POST', `/v1/boards/${boardId}/batch`, {
      token: user.token,
      body: { operations: Array.from({ length: count }, (_, i) => note(i, size)) },
    });
    assert.equal(res.status, 200, res.text);
    return boardId;
  }
  // A millisecond apart, all before now, so a node made next is the newest.
  const first = Date.now() - count - 1;
  for (let i = 0; i < count; i += 100) {
    const rows = Array.from({ length: Math.min(100, count - i) }, (_, k) => {
      const { type, position, data } = note(i + k, size);
      const at = new Date(first + i + k);
      return {
        id: newId(),
        board_id: boardId,
        node_type: type,
        position_x: position.x,
        position_y: position.y,
        node_data: storedNodeData(type, data),
        parent_node_id: null,
        created_at: at,
        updated_at: at,
      };
    });
    await server.database.db.insertInto('nodes').values(rows).execute();
  }
  return boardId;
}

/** An export whose client reads the first piece and then stops reading until `resume()`. */
function pausedExport(server: TestServer, token: string, boardId: string) {
  return pausedRead(server, token, `/v1/boards/${boardId}/export?format=jsoncanvas`);
}

/** A GET whose client reads the first piece and then stops reading until `resume()`. */
function pausedRead(server: TestServer, token: string, path: string) {
  let resolveFirst: (res: http.IncomingMessage) => void;
  const first = new Promise<http.IncomingMessage>((resolve) => (resolveFirst = resolve));
  const chunks: Buffer[] = [];
  let ended: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const request = http.get(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  request.on('response', (res) => {
    res.once('data', (chunk: Buffer) => {
      chunks.push(chunk);
      res.pause();
      resolveFirst(res);
      res.on('data', (more: Buffer) => chunks.push(more));
      res.on('end', () => ended());
    });
  });
  return {
    first,
    /** Ends the request (a failed test must not leave it open: the server's close would wait for it). */
    abort: () => request.destroy(),
    async resume(): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
      const res = await first;
      res.resume();
      await done;
      return { status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers };
    },
  };
}

async function allOf<T>(server: TestServer, token: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await server.request<{ data: T[]; cursor: string | null }>(
      'GET',
      `${path}?limit=100&order=asc${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    assert.equal(res.status, 200, res.text);
    items.push(...res.body.data);
    cursor = res.body.cursor;
  } while (cursor);
  return items;
}

describe('the full read', () => {
  const server = useServer();
  let alice: TestUser;
  let boardId: string;

  test('is streamed as its rows are read: a node added after its first bytes is in it, and its text is the document', async (t) => {
    alice = await server.user();
    // Far more than the sockets' buffers hold (about 40 MB of text, half of it before the late node), so the export waits for its client.
    boardId = await bigBoard(server, alice, 2000, 10_000);
    // A group made last comes first; a child, an edge, text that needs escaping.
    const group = await server.makeNode(alice, boardId, {
      position: { x: -5, y: -5 },
      data: { text: '', group: true, label: 'Gruppe — 組', width: 900, height: 700, color: '3' },
    });
    const child = await server.makeNode(alice, boardId, {
      position: { x: 1.6, y: -2.5 },
      parent_node_id: group.id,
      data: { text: 'quote " backslash \\ newline \n tab \t emoji 🦊 \u2028', width: 0, height: 'big' },
    });
    const link = await server.makeNode(alice, boardId, { type: 'url', data: { url: 'https://example.com/?a=1&b=2' } });
    await server.makeEdge(alice, boardId, child.id, link.id, {
      data: { fromSide: 'left', toEnd: 'arrow', label: 'sees', color: '#00ff00' },
    });

    const paused = pausedExport(server, alice.token, boardId);
    t.after(paused.abort);
    const res = await paused.first;
    assert.equal(res.statusCode, 200);
    // Written after the export's first bytes were sent: only a read still under way can see it.
    const late = await server.makeNode(alice, boardId, { position: { x: 7, y: 8 }, data: { text: 'added while the export ran' } });
    const answer = await paused.resume();
    assert.match(answer.headers['content-type'] ?? '', /^application\/json; charset=utf-8/);
    assert.match(answer.headers['content-disposition'] ?? '', /\.canvas/);
    const canvas = JSON.parse(answer.text) as { nodes: { id: string }[] };
    assert.ok(
      canvas.nodes.some((n) => n.id === late.id),
      'the node added after the first bytes is in the export',
    );
    assert.equal(canvas.nodes[0]!.id, group.id, 'groups first');

    // Byte for byte the document the schema's serializer wrote of the same rows before.
    const nodes = await allOf<Node>(server, alice.token, `/v1/boards/${boardId}/nodes`);
    const edges = await allOf<Edge>(server, alice.token, `/v1/boards/${boardId}/edges`);
    const board = await server.request<{ data: { name: string } }>('GET', `/v1/boards/${boardId}`, { token: alice.token });
    assert.equal(nodes.length, 2004);
    const expected = JSON.stringify(toCanvas(board.body.data, nodes, edges));
    assert.equal(answer.text.length, expected.length);
    assert.ok(answer.text === expected, 'the streamed text is the document');
  });

  test("the owner's board read is streamed too, its text that of one json_agg over the board as before", async (t) => {
    const paused = pausedRead(server, alice.token, `/v1/boards/${boardId}`);
    t.after(paused.abort);
    assert.equal((await paused.first).statusCode, 200);
    const late = await server.makeNode(alice, boardId, { position: { x: 9, y: 9 }, data: { text: 'added while the read ran' } });
    const answer = await paused.resume();
    assert.match(answer.headers['content-type'] ?? '', /^application\/json; charset=utf-8/);
    const body = JSON.parse(answer.text) as { data: { flow_state: { nodes: { id: string }[] } } };
    assert.ok(
      body.data.flow_state.nodes.some((n) => n.id === late.id),
      'the node added after the first bytes is in the read',
    );
    // The statement the read was before: one json_agg of all nodes, one of all edges.
    const { rows } = await sql<{ nodes: string; edges: string }>`
      SELECT
        (SELECT coalesce(json_agg(
           CASE WHEN n.parent_node_id IS NULL
             THEN json_build_object('id', n.id, 'type', n.node_type || 'Node',
                    'position', json_build_object('x', n.position_x, 'y', n.position_y), 'data', n.node_data)
             ELSE json_build_object('id', n.id, 'type', n.node_type || 'Node',
                    'position', json_build_object('x', n.position_x, 'y', n.position_y), 'data', n.node_data,
                    'parentId', n.parent_node_id)
           END ORDER BY n.created_at, n.id), '[]'::json)
         FROM nodes n WHERE n.board_id = ${boardId})::text AS nodes,
        (SELECT coalesce(json_agg(json_build_object('id', e.id, 'source', e.source_node_id, 'target', e.target_node_id,
                    'type', e.edge_type, 'data', e.edge_data) ORDER BY e.created_at, e.id), '[]'::json)
         FROM edges e WHERE e.board_id = ${boardId})::text AS edges`.execute(server.database.db);
    const nodesAt = answer.text.indexOf('"nodes":') + '"nodes":'.length;
    const edgesAt = answer.text.lastIndexOf(',"edges":');
    assert.ok(answer.text.slice(nodesAt, edgesAt) === rows[0]!.nodes, 'the nodes as one json_agg wrote them');
    assert.ok(answer.text.slice(edgesAt + ',"edges":'.length, -3) === rows[0]!.edges, 'the edges as one json_agg wrote them');
    assert.ok(answer.text.endsWith('}}}'));
    // An empty board, and a board of exactly one page of nodes.
    const empty = await server.makeBoard(alice);
    const emptyRead = await server.request('GET', `/v1/boards/${empty}`, { token: alice.token });
    assert.match(emptyRead.text, /"nodes":\[\],"edges":\[\]\}\}\}$/);
    const fifty = await bigBoard(server, alice, 50, 10);
    const fiftyRead = await server.request<{ data: { flow_state: { nodes: unknown[] } } }>('GET', `/v1/boards/${fifty}`, {
      token: alice.token,
    });
    assert.equal(fiftyRead.body.data.flow_state.nodes.length, 50);
    assert.match(fiftyRead.text, /\}\],"edges":\[\]\}\}\}$/);
  });

  test('a small board: the same bytes, and an empty one', async () => {
    const bob = await server.user();
    const empty = await server.makeBoard(bob, { name: 'Empty "board"' });
    const res = await server.request('GET', `/v1/boards/${empty}/export?format=jsoncanvas`, { token: bob.token });
    assert.equal(res.status, 200);
    assert.equal(res.text, JSON.stringify(toCanvas({ name: 'Empty "board"' }, [], [])));
    const hidden = await server.request<ErrorBody>('GET', `/v1/boards/${empty}/export?format=jsoncanvas`, {
      token: (await server.user()).token,
    });
    assert.equal(hidden.status, 404);
  });
});

describe("a user's expensive work", () => {
  // One at a time per user, one more waiting.
  const server = useServer({ HEAVY_WORK_PER_USER: '1', HEAVY_WORK_QUEUE_PER_USER: '1' });

  test("past the user's share and queue: 429 with Retry-After; another user is served meanwhile; the waiting one runs next", async (t) => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await bigBoard(server, alice, 1000, 10_000);
    const small = await server.makeBoard(alice);
    const bobs = await server.makeBoard(bob);
    const heavy = server.built.services.heavyWork;

    const running = pausedExport(server, alice.token, boardId);
    t.after(running.abort);
    assert.equal((await running.first).statusCode, 200);
    assert.equal(heavy.inUse(alice.userId), 1);
    // Her second waits in her queue …
    const waiting = server.request('GET', `/v1/boards/${small}/export?format=jsoncanvas`, { token: alice.token });
    while (heavy.queued(alice.userId) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // … her third finds it full.
    const refused = await server.request<ErrorBody>('GET', `/v1/boards/${small}/export?format=jsoncanvas`, { token: alice.token });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.code, 'rate_limited');
    assert.equal(refused.headers.get('retry-after'), '1');
    const batch = await server.request<ErrorBody>('POST', `/v1/boards/${small}/batch`, {
      token: alice.token,
      body: { operations: [note(0, 10)] },
    });
    assert.equal(batch.status, 429, 'a batch is expensive work too');
    // Bob's own share is untouched by hers.
    const bobsExport = await server.request('GET', `/v1/boards/${bobs}/export?format=jsoncanvas`, { token: bob.token });
    assert.equal(bobsExport.status, 200);
    // Her light reads are not expensive work.
    assert.equal((await server.request('GET', `/v1/boards/${small}/nodes`, { token: alice.token })).status, 200);

    // An MCP tool call of hers is refused as a tool error naming the code.
    const mcp = await server.request<{ result: { isError?: boolean; structuredContent: { error: { code: string } } } }>('POST', '/v1/mcp', {
      token: alice.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_board', arguments: { board_id: small } } },
    });
    assert.equal(mcp.status, 200, mcp.text);
    assert.equal(mcp.body.result.isError, true, mcp.text);
    assert.equal(mcp.body.result.structuredContent.error.code, 'rate_limited');

    assert.equal((await running.resume()).status, 200);
    assert.equal((await waiting).status, 200);
    // Every slot is back once the answers are out.
    while (heavy.inUse() > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(heavy.queued(), 0);
  });

  test('a client that leaves mid-export gives its slot back', async () => {
    const carol = await server.user();
    const boardId = await bigBoard(server, carol, 1000, 10_000);
    const heavy = server.built.services.heavyWork;
    const paused = pausedExport(server, carol.token, boardId);
    const res = await paused.first;
    assert.equal(heavy.inUse(carol.userId), 1);
    res.destroy();
    while (heavy.inUse(carol.userId) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const again = await server.request('GET', `/v1/boards/${boardId}/export?format=jsoncanvas`, { token: carol.token });
    assert.equal(again.status, 200);
  });
});

// Types the lists' bodies use (kept so a change of the lists' shape fails to compile here).
export type { EdgeList, NodeList };
