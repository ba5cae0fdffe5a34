// Issue 31: the board's other surfaces obey the one access rule for every role. On one private board
// of Alice's, shared with a viewer, a commenter and an editor (and read by a stranger): the JSON
// Canvas export, the board search and the search across boards, chats, the MCP tools read_board,
// search_board, search_boards, create_nodes and ask_board, and presence. Reads are everyone's on the
// board, writes and chats the editor's and the owner's, and the stranger gets "not found" and
// nothing of the board. A member removed loses all of it at once.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { follow } from './helpers/event-stream.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';

const server = useServer({ JOB_POLL_MS: '50' });

/** The board's one vectorized note: every search and chat below looks for it. */
const TEXT = 'The lighthouse keeper logs every passing schooner in the blue ledger.';
const QUERY = 'lighthouse schooner ledger';

type Role = 'owner' | 'editor' | 'commenter' | 'viewer' | 'stranger';
const ROLES: Role[] = ['owner', 'editor', 'commenter', 'viewer', 'stranger'];
/** What each may, by the rule of issue 31: read (viewer and up), write content and chat (editor and up). */
const reads = (role: Role) => role !== 'stranger';
const writes = (role: Role) => role === 'owner' || role === 'editor';

const people = {} as Record<Role, TestUser>;
let boardId: string;
let noteId: string;

function expectError(res: Response, status: number, label: string): void {
  assert.equal(res.status, status, `${label}: ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), `${label}: ${res.text}`);
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'roles-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
}

before(async () => {
  for (const role of ROLES) people[role] = await server.user();
  boardId = await server.makeBoard(people.owner, { name: 'Harbour log' });
  noteId = (await server.makeNode(people.owner, boardId, { data: { text: TEXT } })).id;
  const job = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/documents`, {
    token: people.owner.token,
    body: { node_id: noteId, text: TEXT },
  });
  assert.equal(job.status, 202, job.text);
  assert.equal((await server.waitForJob(job.body.data.id, people.owner.token)).status, 'completed');
  for (const role of ['editor', 'commenter', 'viewer'] as const) {
    const added = await server.request('POST', `/v1/boards/${boardId}/members`, {
      token: people.owner.token,
      body: { user_id: people[role].userId, role },
    });
    assert.equal(added.status, 201, added.text);
  }
});

describe('every role on the surfaces beside the routes', () => {
  test('the JSON Canvas export: the board for everyone on it, 404 for a stranger', async () => {
    await Promise.all(
      ROLES.map(async (role) => {
        const res = await server.request<{ nodes: { id: string; text?: string }[] }>(
          'GET',
          `/v1/boards/${boardId}/export?format=jsoncanvas`,
          {
            token: people[role].token,
          },
        );
        if (!reads(role)) return expectError(res, 404, role);
        assert.equal(res.status, 200, `${role}: ${res.text}`);
        assert.equal(res.body.nodes.find((n) => n.id === noteId)?.text, TEXT, role);
      }),
    );
  });

  test("the board search and the search across boards find the board's text for everyone on it, nothing for a stranger", async () => {
    await Promise.all(
      ROLES.map(async (role) => {
        const token = people[role].token;
        const board = await server.request<{ data: { node_id: string }[] }>('POST', `/v1/boards/${boardId}/documents/search`, {
          token,
          body: { query: QUERY, mode: 'keyword' },
        });
        const across = await server.request<{ data: { board_id: string; node_id: string }[] }>('POST', '/v1/documents/search', {
          token,
          body: { query: QUERY, mode: 'keyword' },
        });
        assert.equal(across.status, 200, `${role}: ${across.text}`);
        const foundAcross = across.body.data.some((h) => h.board_id === boardId && h.node_id === noteId);
        if (!reads(role)) {
          expectError(board, 404, role);
          assert.equal(foundAcross, false, `${role} finds the board's text across boards`);
          assert.ok(!across.text.includes('lighthouse'), role);
          return;
        }
        assert.equal(board.status, 200, `${role}: ${board.text}`);
        assert.equal(board.body.data[0]?.node_id, noteId, role);
        assert.equal(foundAcross, true, `${role} does not find the board's text across boards`);
      }),
    );
  });

  test("chats: the editor and the owner hold them and get answers from the board's text; a viewer and a commenter are 403, a stranger 404", async () => {
    await Promise.all(
      ROLES.map(async (role) => {
        const token = people[role].token;
        const chat = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/chats`, { token, body: {} });
        if (!reads(role)) return expectError(chat, 404, role);
        if (!writes(role)) return expectError(chat, 403, role);
        assert.equal(chat.status, 201, `${role}: ${chat.text}`);
        const reply = await server.request<{ data: { content: string; metadata: { sources?: string[] } | null } }>(
          'POST',
          `/v1/boards/${boardId}/chats/${chat.body.data.id}/messages`,
          { token, body: { content: 'Who logs the passing schooners in the ledger?' } },
        );
        assert.equal(reply.status, 201, `${role}: ${reply.text}`);
        assert.ok(reply.body.data.content.length > 0, role);
        // The local model quotes the board's vectorized note: the chat read the board as this member.
        assert.ok((reply.body.data.metadata?.sources ?? []).length > 0, `${role}: ${reply.text}`);
        // Each chat is its holder's: another member cannot read it.
        const other = role === 'owner' ? people.editor : people.owner;
        expectError(await server.request('GET', `/v1/boards/${boardId}/chats/${chat.body.data.id}`, { token: other.token }), 404, role);
      }),
    );
  });

  test('MCP: read_board, search_board and search_boards for everyone on the board; create_nodes and ask_board for the editor and the owner', async () => {
    for (const role of ROLES) {
      const client = await connect(people[role].token);
      try {
        const read = await callTool(client, 'read_board', { board_id: boardId });
        const search = await callTool(client, 'search_board', { board_id: boardId, query: QUERY, mode: 'keyword' });
        const across = await callTool(client, 'search_boards', { query: QUERY, mode: 'keyword' });
        const created = await callTool(client, 'create_nodes', {
          board_id: boardId,
          nodes: [{ type: 'note', position: { x: 0, y: 0 }, data: { text: `written by the ${role}` } }],
        });
        const asked = await callTool(client, 'ask_board', { board_id: boardId, question: 'Who logs the passing schooners?' });
        assert.ok(!across.isError, `${role}: ${across.text}`);
        if (!reads(role)) {
          for (const [name, result] of Object.entries({ read, search, created, asked })) {
            assert.ok(result.isError, `${role} ${name}: ${result.text}`);
            assert.match(result.text, /Board not found/, `${role} ${name}`);
            assert.ok(!result.text.includes('lighthouse'), `${role} ${name} leaks the board`);
          }
          assert.ok(!across.text.includes(noteId) && !across.text.includes('lighthouse'), `${role}: ${across.text}`);
          continue;
        }
        assert.ok(!read.isError, `${role}: ${read.text}`);
        assert.ok(read.text.includes('lighthouse keeper'), `${role}: ${read.text}`);
        assert.ok(!search.isError, `${role}: ${search.text}`);
        assert.ok(search.text.includes(noteId), `${role}: ${search.text}`);
        assert.ok(across.text.includes(noteId), `${role}: ${across.text}`);
        if (writes(role)) {
          assert.ok(!created.isError, `${role}: ${created.text}`);
          assert.ok(!asked.isError, `${role}: ${asked.text}`);
        } else {
          assert.ok(created.isError, `${role} create_nodes: ${created.text}`);
          assert.match(created.text, /role on this board does not allow/, role);
          assert.ok(asked.isError, `${role} ask_board: ${asked.text}`);
        }
      } finally {
        await client.close();
      }
    }
    // Only the editor's and the owner's notes were written.
    const nodes = await server.request<{ data: { node_data: { text?: string } }[] }>('GET', `/v1/boards/${boardId}/nodes?limit=100`, {
      token: people.owner.token,
    });
    const written = nodes.body.data.map((n) => n.node_data.text).filter((t) => t?.startsWith('written by'));
    assert.deepEqual(written.sort(), ['written by the editor', 'written by the owner']);
  });

  test("presence: everyone on the board announces themselves and the owner's stream shows them; a stranger is 404", async () => {
    const watcher = follow(server.url, boardId, people.owner.token);
    try {
      await watcher.waitFor((e) => e.type === 'ready');
      for (const role of ROLES.filter((r) => r !== 'owner')) {
        const session = `${role}-tab-0001`;
        const res = await server.request('PUT', `/v1/boards/${boardId}/presence`, {
          token: people[role].token,
          body: { session_id: session, cursor: { x: 1, y: 2 } },
        });
        if (!reads(role)) {
          expectError(res, 404, role);
          continue;
        }
        assert.equal(res.status, 200, `${role}: ${res.text}`);
        const seen = await watcher.waitFor((e) => e.type === 'presence' && e.data.session_id === session);
        assert.equal(seen.data.user_id, people[role].userId, role);
      }
      assert.ok(!watcher.events.some((e) => e.type === 'presence' && e.data.user_id === people.stranger.userId));
    } finally {
      watcher.close();
    }
  });

  test('a member removed loses the export, the search, MCP and presence at once', async () => {
    const viewer = people.viewer;
    const removed = await server.request('DELETE', `/v1/boards/${boardId}/members/${viewer.userId}`, { token: people.owner.token });
    assert.equal(removed.status, 200, removed.text);
    expectError(await server.request('GET', `/v1/boards/${boardId}/export?format=jsoncanvas`, { token: viewer.token }), 404, 'export');
    expectError(
      await server.request('POST', `/v1/boards/${boardId}/documents/search`, {
        token: viewer.token,
        body: { query: QUERY, mode: 'keyword' },
      }),
      404,
      'search',
    );
    const across = await server.request<{ data: { board_id: string }[] }>('POST', '/v1/documents/search', {
      token: viewer.token,
      body: { query: QUERY, mode: 'keyword' },
    });
    assert.ok(!across.body.data.some((h) => h.board_id === boardId), across.text);
    expectError(
      await server.request('PUT', `/v1/boards/${boardId}/presence`, { token: viewer.token, body: { session_id: 'viewer-tab-0002' } }),
      404,
      'presence',
    );
    const client = await connect(viewer.token);
    try {
      const read = await callTool(client, 'read_board', { board_id: boardId });
      assert.ok(read.isError, read.text);
      assert.match(read.text, /Board not found/);
    } finally {
      await client.close();
    }
  });
});
