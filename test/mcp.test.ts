// The MCP server at /v1/mcp, over real HTTP with the SDK's own client: the tools a read key and a
// full key see, every tool's text and structured answer against what the REST API says, scopes,
// tenancy (another user's board is "Board not found" and nothing changes), bad arguments, and no token.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BoardList, EdgeList, ErrorBody, MessageList, NodeBody, NodeList, SearchBody } from './helpers/api-types.js';
import { MISSING_ID, type TestUser, useServer } from './helpers/harness.js';
import { ApiError, notFound } from '../src/errors.js';
import type { McpCall } from '../src/mcp/context.js';
import { guarded } from '../src/mcp/results.js';

const READ_TOOLS = ['ask_board', 'get_nodes', 'list_boards', 'list_comments', 'read_board', 'search_board'];
const WRITE_TOOLS = [
  'add_comment',
  'connect_nodes',
  'create_nodes',
  'delete_edges',
  'delete_nodes',
  'search_boards',
  'update_edges',
  'update_nodes',
  'vectorize_node',
];

const server = useServer({ JOB_POLL_MS: '50' });
let alice: TestUser;
let bob: TestUser;
let readKey: string;

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its result with its text joined. */
async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { ...result, text, structured: result.structuredContent as any };
}

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const result = await callTool(client, name, args);
  assert.ok(!result.isError, `${name}: ${result.text}`);
  return result;
}

before(async () => {
  alice = await server.user();
  bob = await server.user();
  readKey = (await alice.keyWith(['read'])).raw_key;
});

describe('the transport', () => {
  test('no token is 401, another method is 405', async () => {
    const res = await server.request<ErrorBody>('POST', '/v1/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.code, 'unauthorized');
    const get = await server.request('GET', '/v1/mcp', { token: alice.token });
    assert.equal(get.status, 405, get.text);
    const bad = await server.request('POST', '/v1/mcp', { token: 'bwk_test_nonsense' });
    assert.equal(bad.status, 401);
    // An answer written by the SDK's transport still carries the rate-limit headers.
    const listed = await server.request('POST', '/v1/mcp', {
      token: alice.token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.headers.get('ratelimit-limit'), [...listed.headers.keys()].join());
    assert.ok((listed.body as { result: { tools: unknown[] } }).result.tools.length > 0);
  });

  test('a read key sees only the read tools; a full key, a write key and a JWT see all', async () => {
    const reader = await connect(readKey);
    assert.deepEqual((await reader.listTools()).tools.map((t) => t.name).sort(), READ_TOOLS);
    await reader.close();
    const all = [...READ_TOOLS, ...WRITE_TOOLS].sort();
    for (const token of [alice.token, (await alice.keyWith(['write'])).raw_key, await alice.jwt()]) {
      const client = await connect(token);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), all);
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.ok(tool.description && tool.description.length > 10, tool.name);
      }
      await client.close();
    }
  });

  test('a read key cannot call a write tool', async () => {
    const reader = await connect(readKey);
    const boardId = await server.makeBoard(alice);
    const result = await callTool(reader, 'create_nodes', { board_id: boardId, nodes: [{ text: 'x' }] }).catch((e: Error) => ({
      isError: true,
      text: e.message,
    }));
    assert.equal(result.isError, true);
    assert.match(result.text, /create_nodes not found/);
    const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token });
    assert.equal(nodes.body.data.length, 0);
    // The read tools work with it.
    assert.match((await ok(reader, 'read_board', { board_id: boardId })).text, /^Board \[/);
    assert.equal((await ok(reader, 'search_board', { board_id: boardId, query: 'anything' })).text, 'No matches.');
    await reader.close();
  });
});

describe('the tools', () => {
  let client: Client;
  let boardId: string;
  let noteId: string;
  let otherId: string;
  let edgeId: string;

  before(async () => {
    client = await connect(alice.token);
    boardId = await server.makeBoard(alice, { name: 'Launch plan' });
  });

  test('list_boards lists what GET /v1/boards lists', async () => {
    const result = await ok(client, 'list_boards', {});
    const rest = await server.request<BoardList>('GET', '/v1/boards?limit=50', { token: alice.token });
    assert.deepEqual(
      result.structured.boards.map((b: { id: string }) => b.id),
      rest.body.data.map((b) => b.id),
    );
    assert.match(result.text, new RegExp(`\\[${boardId}\\] "Launch plan"`));
  });

  test('create_nodes creates notes and other nodes', async () => {
    const result = await ok(client, 'create_nodes', {
      board_id: boardId,
      nodes: [
        { text: 'The launch moved to March 3 because the venue was booked.', label: 'Launch date', position: { x: 10, y: 20 } },
        { type: 'url', url: 'https://example.com/venue', label: 'Venue' },
      ],
    });
    assert.match(result.text, /^Created 2 of 2/);
    const created = result.structured.results.map((r: { node: { id: string } }) => r.node);
    noteId = created[0].id;
    otherId = created[1].id;
    const note = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${noteId}`, { token: alice.token });
    assert.equal(note.body.data.node_type, 'note');
    assert.deepEqual(note.body.data.node_data, { text: 'The launch moved to March 3 because the venue was booked.', label: 'Launch date' });
    assert.deepEqual([note.body.data.position_x, note.body.data.position_y], [10, 20]);
    const other = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${otherId}`, { token: alice.token });
    assert.equal(other.body.data.node_type, 'url');
    assert.equal((other.body.data.node_data as { url: string }).url, 'https://example.com/venue');
  });

  test('connect_nodes and update_edges make the edges the REST API lists', async () => {
    const result = await ok(client, 'connect_nodes', {
      board_id: boardId,
      edges: [{ source_node_id: noteId, target_node_id: otherId, label: 'held at' }],
    });
    edgeId = result.structured.results[0].edge.id;
    assert.match(result.text, new RegExp(`${edgeId}: ${noteId} -> ${otherId} \\(default, "held at"\\)`));
    const updated = await ok(client, 'update_edges', {
      board_id: boardId,
      edges: [{ edge_id: edgeId, type: 'depends', label: 'booked at' }],
    });
    assert.equal(updated.structured.results[0].edge.type, 'depends');
    const rest = await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: alice.token });
    assert.equal(rest.body.data.length, 1);
    assert.equal(rest.body.data[0]!.edge_type, 'depends');
    assert.deepEqual(rest.body.data[0]!.edge_data, { label: 'booked at' });
  });

  test('update_nodes moves and rewrites nodes; get_nodes reads them whole', async () => {
    const long = `Venue notes. ${'The hall seats four hundred people. '.repeat(20)}`;
    await ok(client, 'update_nodes', {
      board_id: boardId,
      nodes: [
        { node_id: otherId, position: { x: 300, y: 40 } },
        { node_id: noteId, text: long },
      ],
    });
    const rest = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${noteId}`, { token: alice.token });
    assert.equal((rest.body.data.node_data as { text: string }).text, long);
    const got = await ok(client, 'get_nodes', { board_id: boardId, node_ids: [noteId, otherId] });
    assert.equal(got.structured.nodes[0].data.text, long);
    assert.deepEqual([got.structured.nodes[1].x, got.structured.nodes[1].y], [300, 40]);
    assert.ok(got.text.includes(long));
  });

  test('read_board gives one line per node and edge, matching the REST API, in pages', async () => {
    const result = await ok(client, 'read_board', { board_id: boardId });
    const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?order=asc`, { token: alice.token });
    const edges = await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: alice.token });
    assert.deepEqual(
      result.structured.nodes.map((n: { id: string }) => n.id),
      nodes.body.data.map((n) => n.id),
    );
    assert.deepEqual(
      result.structured.edges.map((e: { id: string }) => e.id),
      edges.body.data.map((e) => e.id),
    );
    assert.equal(result.structured.next_cursor, null);
    const noteLine = result.text.split('\n').find((l) => l.startsWith(`[${noteId}]`))!;
    assert.match(noteLine, /^\[[0-9a-f-]{36}\] note "Launch date": Venue notes\. The hall seats/);
    assert.ok(noteLine.endsWith('… @ (10,20)'), noteLine);
    assert.equal(result.structured.nodes[0].text.length, 201);
    assert.ok(result.text.includes(`[${otherId}] url "Venue": https://example.com/venue @ (300,40)`), result.text);
    assert.ok(result.text.includes(`${edgeId}: ${noteId} -> ${otherId} (depends, "booked at")`), result.text);

    // Pages of one node and one edge: the cursor walks both lists.
    const first = await ok(client, 'read_board', { board_id: boardId, limit: 1 });
    assert.deepEqual(
      first.structured.nodes.map((n: { id: string }) => n.id),
      [noteId],
    );
    assert.equal(first.structured.edges.length, 1);
    assert.ok(first.structured.next_cursor);
    const second = await ok(client, 'read_board', { board_id: boardId, limit: 1, cursor: first.structured.next_cursor });
    assert.deepEqual(
      second.structured.nodes.map((n: { id: string }) => n.id),
      [otherId],
    );
    assert.equal(second.structured.edges.length, 0);
    assert.equal(second.structured.next_cursor, null);
    const bad = await callTool(client, 'read_board', { board_id: boardId, cursor: 'nonsense' });
    assert.equal(bad.isError, true);
    assert.equal(bad.text, 'cursor is not a valid cursor');
  });

  test('vectorize_node, then search_board finds the chunk with its node and page, as the REST search does', async () => {
    const result = await ok(client, 'vectorize_node', { board_id: boardId, node_id: noteId });
    const job = await server.waitForJob(result.structured.job.id, alice.token);
    assert.equal(job.status, 'completed', job.error ?? '');
    const search = await ok(client, 'search_board', { board_id: boardId, query: 'how many people does the hall seat', mode: 'keyword' });
    const rest = await server.request<SearchBody>('POST', `/v1/boards/${boardId}/documents/search`, {
      token: alice.token,
      body: { query: 'how many people does the hall seat', mode: 'keyword' },
    });
    assert.ok(rest.body.data.length > 0);
    assert.deepEqual(
      search.structured.hits.map((h: { chunk_id: string }) => h.chunk_id),
      rest.body.data.map((h) => h.id),
    );
    const hit = search.structured.hits[0];
    assert.equal(hit.node_id, noteId);
    assert.equal(hit.page, rest.body.data[0]!.metadata.page);
    assert.match(search.text, new RegExp(`^1\\. score [0-9.]+ chunk ${hit.chunk_id} node ${noteId} page \\d+`));
  });

  test('ask_board answers with its sources, in a chat the REST API shows', async () => {
    const result = await ok(client, 'ask_board', { board_id: boardId, question: 'How many people does the hall seat?' });
    assert.ok(result.structured.answer.length > 0);
    assert.ok(Array.isArray(result.structured.sources));
    const messages = await server.request<MessageList>('GET', `/v1/boards/${boardId}/chats/${result.structured.chat_id}/messages`, {
      token: alice.token,
    });
    const reply = messages.body.data.find((m) => m.id === result.structured.message_id)!;
    assert.equal(reply.role, 'assistant');
    assert.equal(reply.content, result.structured.answer);
    assert.deepEqual((reply.metadata as { sources: string[] }).sources, result.structured.sources);
    assert.ok(result.structured.sources.length > 0, 'the vectorized note is a source');
    assert.ok(result.text.startsWith(result.structured.answer));
    // The same chat goes on with chat_id.
    const again = await ok(client, 'ask_board', {
      board_id: boardId,
      question: 'And when is the launch?',
      chat_id: result.structured.chat_id,
    });
    assert.equal(again.structured.chat_id, result.structured.chat_id);
  });

  test('delete_edges and delete_nodes delete, and say which items failed', async () => {
    const gone = await ok(client, 'delete_edges', { board_id: boardId, edge_ids: [edgeId] });
    assert.match(gone.text, /^Deleted 1 of 1/);
    const partial = await ok(client, 'delete_nodes', { board_id: boardId, node_ids: [otherId, MISSING_ID] });
    assert.match(partial.text, /^Deleted 1 of 2 \(1 failed\)/);
    assert.match(partial.text, /item 1: failed: Node not found/);
    assert.deepEqual(partial.structured.results[1], { index: 1, ok: false, error: { code: 'not_found', message: 'Node not found' } });
    const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token });
    assert.deepEqual(
      nodes.body.data.map((n) => n.id),
      [noteId],
    );
    const edges = await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges`, { token: alice.token });
    assert.equal(edges.body.data.length, 0);
  });

  test('bad arguments are errors, and the session goes on', async () => {
    for (const [name, args] of [
      ['read_board', { board_id: 'not-an-id' }],
      ['read_board', {}],
      ['read_board', { board_id: boardId, limit: 501 }],
      ['create_nodes', { board_id: boardId, nodes: [] }],
      ['create_nodes', { board_id: boardId, nodes: Array.from({ length: 101 }, () => ({ text: 'x' })) }],
      ['create_nodes', { board_id: boardId, nodes: [{ type: 'planet' }] }],
      ['search_board', { board_id: boardId, query: '' }],
      ['no_such_tool', {}],
    ] as const) {
      const result = await callTool(client, name, args).catch((e: Error) => ({ isError: true, text: e.message }));
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args).slice(0, 80)}: ${result.text}`);
      assert.match(result.text, /Invalid arguments|not found|Input validation error/i, result.text);
    }
    // The service's own checks come back as its messages.
    const invalid = await callTool(client, 'create_nodes', { board_id: boardId, nodes: [{ type: 'url', url: 'not a url' }] });
    assert.equal(invalid.isError, true);
    assert.match(invalid.text, /url/);
    const missing = await callTool(client, 'read_board', { board_id: MISSING_ID });
    assert.equal(missing.isError, true);
    assert.equal(missing.text, 'Board not found');
    await ok(client, 'list_boards', {});
  });
});

test('an unexpected failure is logged and shown as "internal error"; an API error keeps its message', async () => {
  const logged: object[] = [];
  const call: McpCall = {
    principal: { userId: MISSING_ID, kind: 'api_key', scopes: ['read'] },
    origin: 'http://x',
    log: { error: (details) => logged.push(details) },
    errorOf: (error) => (error instanceof ApiError ? error : new ApiError('internal_error', 'An unexpected error occurred')),
  };
  const crash = await guarded(call, async () => {
    throw new TypeError('secret detail');
  });
  assert.equal(crash.isError, true);
  assert.deepEqual(crash.content, [{ type: 'text', text: 'internal error' }]);
  assert.equal(logged.length, 1);
  const known = await guarded(call, async () => {
    throw notFound('Board');
  });
  assert.deepEqual(known.content, [{ type: 'text', text: 'Board not found' }]);
  assert.equal(logged.length, 1);
});

describe('across boards and selections', () => {
  let client: Client;
  const TIDES = 'Sea anemones eat plankton and small fish with stinging tentacles.';
  const PACKING = 'Pack boots, a waterproof notebook and a hand lens for the rock pools.';
  const GARDEN = 'The garden snails eat lettuce leaves at night.';
  let shore: string;
  let garden: string;
  let notes: Record<'tides' | 'packing' | 'garden', string>;

  /** A note on the board, vectorized through the REST API. */
  async function note(user: TestUser, boardId: string, text: string): Promise<string> {
    const id = (await server.makeNode(user, boardId, { data: { text } })).id;
    const job = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/documents`, {
      token: user.token,
      body: { node_id: id, text },
    });
    assert.equal(job.status, 202, job.text);
    assert.equal((await server.waitForJob(job.body.data.id, user.token)).status, 'completed');
    return id;
  }

  before(async () => {
    client = await connect(alice.token);
    shore = await server.makeBoard(alice, { name: 'Shore trip' });
    garden = await server.makeBoard(alice, { name: 'Garden' });
    notes = {
      tides: await note(alice, shore, TIDES),
      packing: await note(alice, shore, PACKING),
      garden: await note(alice, garden, GARDEN),
    };
  });

  test('search_boards finds passages on every board, naming each board, as POST /v1/documents/search does; board_ids narrows it', async () => {
    const query = 'what eats plankton, lettuce or leaves';
    const result = await ok(client, 'search_boards', { query, mode: 'keyword' });
    const rest = await server.request<{ data: { id: string; board_id: string; node_id: string }[] }>('POST', '/v1/documents/search', {
      token: alice.token,
      body: { query, mode: 'keyword' },
    });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(
      result.structured.hits.map((h: { chunk_id: string; board_id: string }) => [h.chunk_id, h.board_id]),
      rest.body.data.map((h) => [h.id, h.board_id]),
    );
    const found = new Map(result.structured.hits.map((h: { node_id: string; board_id: string }) => [h.node_id, h.board_id]));
    assert.equal(found.get(notes.tides), shore);
    assert.equal(found.get(notes.garden), garden);
    const first = result.structured.hits[0];
    assert.match(result.text, new RegExp(`^1\\. score [0-9.]+ board ${first.board_id} chunk ${first.chunk_id} node ${first.node_id}`));

    const narrowed = await ok(client, 'search_boards', { query, mode: 'keyword', board_ids: [garden] });
    assert.deepEqual(
      narrowed.structured.hits.map((h: { node_id: string }) => h.node_id),
      [notes.garden],
    );
    // Another user's private board named in board_ids matches nothing; their passage never shows.
    const hidden = await server.makeBoard(bob);
    await note(bob, hidden, 'The okapi lighthouse keeps a secret lantern of plankton.');
    const theirs = await ok(client, 'search_boards', { query: 'okapi lighthouse lantern', mode: 'keyword', board_ids: [hidden] });
    assert.equal(theirs.text, 'No matches.');
    const bad = await callTool(client, 'search_boards', { query, cursor: 'nonsense' });
    assert.equal(bad.isError, true);
    assert.equal(bad.text, 'cursor is not a valid cursor');
  });

  test('ask_board with node_ids answers only from those nodes, and the chat keeps them as "Ask about this selection" does', async () => {
    const shoreGarden = await note(alice, shore, GARDEN);
    const question = 'What do the garden snails eat at night? What do anemones eat?';
    const result = await ok(client, 'ask_board', { board_id: shore, question, node_ids: [notes.tides, notes.packing] });
    const cited: string[] = result.structured.citations.map((c: { node_id: string }) => c.node_id);
    assert.ok(cited.length > 0, result.text);
    assert.ok(
      cited.every((id) => id === notes.tides || id === notes.packing),
      `cited ${cited}`,
    );
    assert.doesNotMatch(result.structured.answer, /snails/);
    assert.match(result.text, /\[1\] node [0-9a-f-]{36} chunk [0-9a-f-]{36}: "/);
    const chat = await server.request<{ data: { node_ids: string[] | null } }>(
      'GET',
      `/v1/boards/${shore}/chats/${result.structured.chat_id}`,
      { token: alice.token },
    );
    assert.equal(chat.status, 200, chat.text);
    assert.deepEqual([...(chat.body.data.node_ids ?? [])].sort(), [notes.tides, notes.packing].sort());
    const messages = await server.request<MessageList>('GET', `/v1/boards/${shore}/chats/${result.structured.chat_id}/messages`, {
      token: alice.token,
    });
    const reply = messages.body.data.find((m) => m.id === result.structured.message_id)!;
    assert.deepEqual((reply.metadata as { citations: unknown[] }).citations, result.structured.citations);

    // In the same chat, node_ids narrows one question to other nodes.
    const again = await ok(client, 'ask_board', {
      board_id: shore,
      question: 'What do the garden snails eat?',
      chat_id: result.structured.chat_id,
      node_ids: [shoreGarden],
    });
    assert.ok(again.structured.citations.length > 0, again.text);
    assert.ok(again.structured.citations.every((c: { node_id: string }) => c.node_id === shoreGarden));

    // A node of another board is refused before anything is stored.
    const chats = async () => (await server.request('GET', `/v1/boards/${shore}/chats`, { token: alice.token })).text;
    const before = await chats();
    const bad = await callTool(client, 'ask_board', { board_id: shore, question, node_ids: [notes.garden] });
    assert.equal(bad.isError, true);
    assert.equal(bad.text, 'node_ids names a node that is not on this board');
    assert.equal(await chats(), before);
  });
});

describe("another user's board", () => {
  const CANARY = 'okapilighthouse';
  let boardId: string;
  let nodeId: string;
  let edgeId: string;

  before(async () => {
    boardId = await server.makeBoard(alice);
    nodeId = (await server.makeNode(alice, boardId, { data: { text: `The ${CANARY} plan.` } })).id;
    const other = (await server.makeNode(alice, boardId, { data: { text: 'Second.' } })).id;
    edgeId = (await server.makeEdge(alice, boardId, nodeId, other)).id;
  });

  test('is "Board not found" for every tool, leaks nothing and changes nothing', async () => {
    const state = async () => ({
      nodes: (await server.request('GET', `/v1/boards/${boardId}/nodes`, { token: alice.token })).text,
      edges: (await server.request('GET', `/v1/boards/${boardId}/edges`, { token: alice.token })).text,
      chats: (await server.request('GET', `/v1/boards/${boardId}/chats`, { token: alice.token })).text,
      jobs: (await server.request('GET', `/v1/boards/${boardId}/documents`, { token: alice.token })).text,
    });
    const before = await state();
    const calls: [string, Record<string, unknown>][] = [
      ['read_board', { board_id: boardId }],
      ['get_nodes', { board_id: boardId, node_ids: [nodeId] }],
      ['search_board', { board_id: boardId, query: CANARY }],
      ['ask_board', { board_id: boardId, question: `What is the ${CANARY}?` }],
      ['create_nodes', { board_id: boardId, nodes: [{ text: 'planted' }] }],
      ['update_nodes', { board_id: boardId, nodes: [{ node_id: nodeId, text: 'changed' }] }],
      ['delete_nodes', { board_id: boardId, node_ids: [nodeId] }],
      ['connect_nodes', { board_id: boardId, edges: [{ source_node_id: nodeId, target_node_id: nodeId }] }],
      ['update_edges', { board_id: boardId, edges: [{ edge_id: edgeId, type: 'changed' }] }],
      ['delete_edges', { board_id: boardId, edge_ids: [edgeId] }],
      ['vectorize_node', { board_id: boardId, node_id: nodeId }],
    ];
    for (const token of [bob.token, await bob.jwt()]) {
      const client = await connect(token);
      for (const [name, args] of calls) {
        const result = await callTool(client, name, args);
        assert.equal(result.isError, true, `${name}: ${result.text}`);
        assert.equal(result.text, 'Board not found', name);
        assert.ok(!JSON.stringify(result).includes(CANARY), name);
      }
      const boards = await ok(client, 'list_boards', {});
      assert.ok(!boards.text.includes(boardId));
      await client.close();
    }
    assert.deepEqual(await state(), before);
  });
});

describe('the MCP Inspector command line (@modelcontextprotocol/inspector --cli)', () => {
  const inspector = path.resolve('node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const run = async (token: string, args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [inspector, '--cli', `${server.url}/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
      // Its catalog of servers goes to the test's data directory, not the home directory.
      { timeout: 120_000, env: { ...process.env, MCP_CATALOG_PATH: path.join(server.dataDir, 'inspector-catalog.json') } },
    );
    return JSON.parse(stdout);
  };

  test('lists the tools a read key may use, and calls one', async () => {
    const listed = (await run(readKey, ['--method', 'tools/list'])) as { tools: { name: string }[] };
    assert.deepEqual(listed.tools.map((t) => t.name).sort(), READ_TOOLS);
    const called = (await run(readKey, [
      '--method',
      'tools/call',
      '--tool-name',
      'list_boards',
      '--tool-arg',
      'limit=5',
    ])) as CallToolResult;
    assert.ok(!called.isError, JSON.stringify(called));
    assert.ok(Array.isArray((called.structuredContent as { boards: unknown[] }).boards));
  });
});
