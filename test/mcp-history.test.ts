// The MCP history tools (issue 31) over real HTTP with the SDK's client: list_history for anyone who
// may read the board (a read key too), restore_history for the board's owner only (a viewer's and an
// editor's call is refused and changes nothing), a restore and its undo through the restore point it
// names, one node restored alone, and "Board not found" for a stranger.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let editor: TestUser;
let viewer: TestUser;
let stranger: TestUser;

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-history-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

async function callTool(token: string, name: string, args: Record<string, unknown>) {
  const client = await connect(token);
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return { ...result, text, structured: result.structuredContent as any };
  } finally {
    await client.close();
  }
}

async function texts(boardId: string): Promise<Record<string, string>> {
  const res = await server.request<{ data: { id: string; node_data: { text: string } }[] }>(
    'GET',
    `/v1/boards/${boardId}/nodes?limit=100`,
    {
      token: alice.token,
    },
  );
  return Object.fromEntries(res.body.data.map((n) => [n.id, n.node_data.text]));
}

before(async () => {
  alice = await server.user();
  editor = await server.user();
  viewer = await server.user();
  stranger = await server.user();
});

test("list_history for everyone on the board; restore_history is the owner's, undone by its restore point", async () => {
  const boardId = await server.makeBoard(alice, { name: 'Versions' });
  for (const [user, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
  ] as const) {
    const added = await server.request('POST', `/v1/boards/${boardId}/members`, {
      token: alice.token,
      body: { user_id: user.userId, role },
    });
    assert.equal(added.status, 201, added.text);
  }
  const a = (await server.makeNode(alice, boardId, { data: { text: 'alpha one' } })).id;
  const b = (await server.makeNode(alice, boardId, { data: { text: 'beta one' } })).id;
  const named = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/history`, {
    token: alice.token,
    body: { name: 'Monday' },
  });
  assert.equal(named.status, 201, named.text);
  const version = named.body.data.id;
  for (const [id, text] of [
    [a, 'alpha two'],
    [b, 'beta two'],
  ]) {
    const changed = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token, body: { data: { text } } });
    assert.equal(changed.status, 200, changed.text);
  }

  // Everyone on the board lists it, a read key too; a stranger gets "Board not found".
  for (const token of [alice.token, editor.token, viewer.token, (await viewer.keyWith(['read'])).raw_key]) {
    const listed = await callTool(token, 'list_history', { board_id: boardId });
    assert.ok(!listed.isError, listed.text);
    assert.match(listed.text, new RegExp(`^\\[${version}\\] "Monday" \\(named\\) at .*: 2 nodes, 0 edges`, 'm'));
    assert.deepEqual(
      listed.structured.versions.map((v: { id: string; kind: string }) => [v.id, v.kind]),
      [[version, 'named']],
    );
  }
  const hidden = await callTool(stranger.token, 'list_history', { board_id: boardId });
  assert.ok(hidden.isError);
  assert.equal(hidden.text, 'Board not found');

  // Restoring: the editor and the viewer are refused, and nothing changes; a stranger is not told it exists.
  for (const user of [editor, viewer]) {
    const refused = await callTool(user.token, 'restore_history', { board_id: boardId, version_id: version });
    assert.ok(refused.isError, refused.text);
    assert.equal(refused.structured.error.status, 403, refused.text);
  }
  const unseen = await callTool(stranger.token, 'restore_history', { board_id: boardId, version_id: version });
  assert.equal(unseen.text, 'Board not found');
  assert.deepEqual(await texts(boardId), { [a]: 'alpha two', [b]: 'beta two' });

  // One node alone.
  const one = await callTool(alice.token, 'restore_history', { board_id: boardId, version_id: version, node_ids: [a] });
  assert.ok(!one.isError, one.text);
  assert.equal(one.structured.nodes_updated, 1);
  assert.deepEqual(await texts(boardId), { [a]: 'alpha one', [b]: 'beta two' });

  // The whole board, then undone through the restore point the answer names.
  const whole = await callTool(alice.token, 'restore_history', { board_id: boardId, version_id: version });
  assert.ok(!whole.isError, whole.text);
  assert.equal(whole.structured.nodes_updated, 1);
  const point = whole.structured.restore_point_id as string;
  assert.match(whole.text, new RegExp(`To undo, restore ${point}\\.$`));
  assert.deepEqual(await texts(boardId), { [a]: 'alpha one', [b]: 'beta one' });
  const same = await callTool(alice.token, 'restore_history', { board_id: boardId, version_id: version });
  assert.equal(same.structured.restore_point_id, null);
  assert.match(same.text, /nothing changed/);
  const undone = await callTool(alice.token, 'restore_history', { board_id: boardId, version_id: point });
  assert.ok(!undone.isError, undone.text);
  assert.deepEqual(await texts(boardId), { [a]: 'alpha one', [b]: 'beta two' });
  const listed = await callTool(alice.token, 'list_history', { board_id: boardId });
  assert.ok(listed.structured.versions.some((v: { kind: string }) => v.kind === 'restore_point'));
});

test('bad arguments are tool errors', async () => {
  const boardId = await server.makeBoard(alice);
  const missing = await callTool(alice.token, 'restore_history', { board_id: boardId, version_id: '00000000-0000-4000-8000-000000000000' });
  assert.ok(missing.isError);
  assert.equal(missing.structured.error.status, 404, missing.text);
  const bad = await callTool(alice.token, 'list_history', { board_id: 'not-a-uuid' });
  assert.ok(bad.isError, bad.text);
});
