// Members of a board with roles, and share links (issue 31): what each role may do, the board list
// and its roles, the board read's permissions, removal and lowering a role ending streams at once,
// a revoked share link, and JSON Canvas export and MCP as a member.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PNG, postParts } from './helpers/assets.js';
import { follow } from './helpers/event-stream.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';

const server = useServer({ JOB_POLL_MS: '50' });
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;

const note = () => ({ id: randomUUID(), type: 'note', position: { x: 0, y: 0 }, data: { text: 'hello' } });

function expectError(res: Response, status: number, code: string, label = ''): void {
  assert.equal(res.status, status, `${label} ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), res.text);
  assert.equal((res.body as { code: string }).code, code, label);
}

async function addMember(boardId: string, user: TestUser, role: string) {
  const res = await server.request<any>('POST', `/v1/boards/${boardId}/members`, {
    token: alice.token,
    body: { user_id: user.userId, role },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

before(async () => {
  alice = await server.user();
  bob = await server.user();
  carol = await server.user();
  dave = await server.user();
});

describe('members and roles', () => {
  test('each role reads, and only what the role allows changes; the board list and the board read say the role', async () => {
    const boardId = await server.makeBoard(alice, { name: 'Team plan' });
    const b = `/v1/boards/${boardId}`;
    await server.makeNode(alice, boardId, { data: { text: 'first' } });
    const added = await addMember(boardId, bob, 'editor');
    assert.equal(added.object, 'board_member');
    assert.deepEqual(
      {
        board_id: added.data.board_id,
        user_id: added.data.user_id,
        role: added.data.role,
        added_by: added.data.added_by,
        email: added.data.email,
      },
      { board_id: boardId, user_id: bob.userId, role: 'editor', added_by: alice.userId, email: null },
    );
    await addMember(boardId, carol, 'viewer');
    await addMember(boardId, dave, 'commenter');
    // Twice is 409; the owner is no member; neither or both of user_id and email is 400.
    expectError(
      await server.request('POST', `${b}/members`, { token: alice.token, body: { user_id: bob.userId, role: 'viewer' } }),
      409,
      'conflict',
    );
    expectError(
      await server.request('POST', `${b}/members`, { token: alice.token, body: { user_id: alice.userId, role: 'viewer' } }),
      400,
      'invalid_request',
    );
    expectError(await server.request('POST', `${b}/members`, { token: alice.token, body: { role: 'viewer' } }), 400, 'invalid_request');
    expectError(
      await server.request('POST', `${b}/members`, { token: alice.token, body: { user_id: randomUUID(), role: 'viewer' } }),
      404,
      'not_found',
    );
    expectError(
      await server.request('POST', `${b}/members`, { token: alice.token, body: { user_id: bob.userId, role: 'owner' } }),
      400,
      'invalid_request',
    );

    const members = await server.request<any>('GET', `${b}/members`, { token: carol.token });
    assert.equal(members.status, 200, members.text);
    assert.deepEqual(
      members.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]),
      [
        [bob.userId, 'editor'],
        [carol.userId, 'viewer'],
        [dave.userId, 'commenter'],
      ],
    );

    const expected = {
      owner: { read: true, comment: true, edit: true, upload: true, chat: true, manage: true, delete: true },
      editor: { read: true, comment: true, edit: true, upload: true, chat: true, manage: false, delete: false },
      commenter: { read: true, comment: true, edit: false, upload: false, chat: false, manage: false, delete: false },
      viewer: { read: true, comment: false, edit: false, upload: false, chat: false, manage: false, delete: false },
    };
    for (const [user, role] of [
      [alice, 'owner'],
      [bob, 'editor'],
      [dave, 'commenter'],
      [carol, 'viewer'],
    ] as const) {
      const board = await server.request<any>('GET', b, { token: user.token });
      assert.equal(board.status, 200, board.text);
      assert.equal(board.body.data.role, role);
      assert.deepEqual(board.body.data.permissions, expected[role], role);
      const list = await server.request<any>('GET', '/v1/boards?limit=100', { token: user.token });
      const item = list.body.data.find((x: { id: string }) => x.id === boardId);
      assert.equal(item?.role, role, `${role} finds the board in GET /v1/boards`);
      const shared = await server.request<any>('GET', '/v1/boards?limit=100&access=shared', { token: user.token });
      assert.equal(
        shared.body.data.some((x: { id: string }) => x.id === boardId),
        role !== 'owner',
      );
      const owned = await server.request<any>('GET', '/v1/boards?limit=100&access=owned', { token: user.token });
      assert.equal(
        owned.body.data.some((x: { id: string }) => x.id === boardId),
        role === 'owner',
      );
      // Everyone reads the content, the events and the JSON Canvas export.
      assert.equal((await server.request('GET', `${b}/nodes`, { token: user.token })).status, 200);
      assert.equal((await server.request('GET', `${b}/events`, { token: user.token })).status, 200);
      const exported = await server.request<any>('GET', `${b}/export?format=jsoncanvas`, { token: user.token });
      assert.equal(exported.status, 200, exported.text);
      assert.ok(exported.text.includes('first'));
      // Content, uploads, chats: editors and the owner.
      const created = await server.request('POST', `${b}/nodes`, { token: user.token, body: note() });
      const upload = await postParts(server, user.token, boardId, [{ filename: 'a.png', type: 'image/png', data: PNG }]);
      const chat = await server.request('POST', `${b}/chats`, { token: user.token, body: {} });
      if (expected[role].edit) {
        assert.equal(created.status, 201, created.text);
        assert.equal(upload.status, 201, upload.text);
        assert.equal(chat.status, 201, chat.text);
      } else {
        expectError(created, 403, 'forbidden', role);
        expectError(upload, 403, 'forbidden', role);
        expectError(chat, 403, 'forbidden', role);
      }
      // Settings, sharing and deleting: the owner only.
      if (role !== 'owner') {
        expectError(await server.request('PATCH', b, { token: user.token, body: { name: 'mine' } }), 403, 'forbidden', role);
        expectError(await server.request('DELETE', b, { token: user.token }), 403, 'forbidden', role);
        expectError(
          await server.request('POST', `${b}/members`, { token: user.token, body: { user_id: randomUUID(), role: 'editor' } }),
          403,
          'forbidden',
          role,
        );
        expectError(await server.request('POST', `${b}/share-links`, { token: user.token, body: { role: 'editor' } }), 403, 'forbidden');
      }
    }
  });

  test('removing a member and lowering a role end their streams at once; a member may leave', async () => {
    const boardId = await server.makeBoard(alice);
    const b = `/v1/boards/${boardId}`;
    await addMember(boardId, bob, 'editor');
    await addMember(boardId, carol, 'viewer');
    const bobStream = follow(server.url, boardId, bob.token);
    const carolStream = follow(server.url, boardId, carol.token);
    await bobStream.waitFor((e) => e.type === 'ready');
    await carolStream.waitFor((e) => e.type === 'ready');

    // Lowering Bob to viewer ends his stream (well before the periodic check) and his writes.
    const lowered = await server.request<any>('PATCH', `${b}/members/${bob.userId}`, { token: alice.token, body: { role: 'viewer' } });
    assert.equal(lowered.status, 200, lowered.text);
    assert.equal(lowered.body.data.role, 'viewer');
    await bobStream.ended();
    expectError(await server.request('POST', `${b}/nodes`, { token: bob.token, body: note() }), 403, 'forbidden');
    assert.equal((await server.request('GET', b, { token: bob.token })).status, 200);

    // Removing Carol ends her stream, and the board is gone for her.
    const removed = await server.request<any>('DELETE', `${b}/members/${carol.userId}`, { token: alice.token });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body, { object: 'board_member', data: { id: carol.userId, deleted: true } });
    await carolStream.ended();
    for (const url of [b, `${b}/nodes`, `${b}/events`, `${b}/export?format=jsoncanvas`, `${b}/members`]) {
      expectError(await server.request('GET', url, { token: carol.token }), 404, 'not_found', url);
    }
    const list = await server.request<any>('GET', '/v1/boards?limit=100', { token: carol.token });
    assert.ok(!list.body.data.some((x: { id: string }) => x.id === boardId));

    // Bob may not remove Alice's other members, but may leave.
    await addMember(boardId, dave, 'viewer');
    expectError(await server.request('DELETE', `${b}/members/${dave.userId}`, { token: bob.token }), 403, 'forbidden');
    assert.equal((await server.request('DELETE', `${b}/members/${bob.userId}`, { token: bob.token })).status, 200);
    expectError(await server.request('GET', b, { token: bob.token }), 404, 'not_found');
    expectError(await server.request('DELETE', `${b}/members/${bob.userId}`, { token: alice.token }), 404, 'not_found');
    bobStream.close();
    carolStream.close();
  });

  test('a share link admits a signed-in person with its role until it is revoked', async () => {
    const boardId = await server.makeBoard(alice);
    const b = `/v1/boards/${boardId}`;
    const created = await server.request<any>('POST', `${b}/share-links`, { token: alice.token, body: { role: 'commenter' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.object, 'share_link');
    const { token, url, id } = created.body.data;
    assert.match(url, new RegExp(`/share/${token}$`));

    const accepted = await server.request<any>('POST', '/v1/share-links/accept', { token: bob.token, body: { token } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(accepted.body.data, { board_id: boardId, role: 'commenter' });
    assert.equal((await server.request<any>('GET', b, { token: bob.token })).body.data.role, 'commenter');
    // The owner opening it stays the owner.
    const own = await server.request<any>('POST', '/v1/share-links/accept', { token: alice.token, body: { token } });
    assert.equal(own.body.data.role, 'owner');

    const links = await server.request<any>('GET', `${b}/share-links`, { token: alice.token });
    assert.equal(links.body.data.length, 1);
    assert.ok(!links.text.includes(token), 'the token is shown once');
    expectError(await server.request('GET', `${b}/share-links`, { token: bob.token }), 403, 'forbidden');

    assert.equal((await server.request('DELETE', `${b}/share-links/${id}`, { token: alice.token })).status, 200);
    expectError(await server.request('POST', '/v1/share-links/accept', { token: carol.token, body: { token } }), 404, 'not_found');
    expectError(await server.request('GET', b, { token: carol.token }), 404, 'not_found');
    // Bob, admitted before, stays.
    assert.equal((await server.request('GET', b, { token: bob.token })).status, 200);
    expectError(
      await server.request('POST', '/v1/share-links/accept', { token: carol.token, body: { token: 'bsl_nothing' } }),
      404,
      'not_found',
    );
  });

  test('MCP as a member: list_boards and read_board see the shared board; a viewer cannot write through it', async () => {
    const boardId = await server.makeBoard(alice, { name: 'Shared through MCP' });
    await server.makeNode(alice, boardId, { data: { text: 'mcp-visible text' } });
    await addMember(boardId, carol, 'viewer');
    const client = new Client({ name: 'members-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${carol.token}` } },
      }),
    );
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
    };
    const boards = await call('list_boards', {});
    assert.match(boards.text, new RegExp(`\\[${boardId}\\] "Shared through MCP" \\(shared with you: viewer\\)`));
    const read = await call('read_board', { board_id: boardId });
    assert.ok(!read.isError, read.text);
    assert.match(read.text, /mcp-visible text/);
    const write = await call('create_nodes', {
      board_id: boardId,
      nodes: [{ type: 'note', position: { x: 0, y: 0 }, data: { text: 'x' } }],
    });
    assert.ok(write.isError, write.text);
    await client.close();
  });
});
