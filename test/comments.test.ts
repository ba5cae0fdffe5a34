// Comments on a board (issue 31): threads on a card, a point or the board, replies, the list's
// filters and pages, resolve and reopen, editing and deleting (the author's; the owner moderates),
// who may read and write by role, mentions, unread marks per person, a thread outliving its card,
// the events on another person's stream and a webhook, and bad input that changes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { follow } from './helpers/event-stream.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';
import { startReceiver } from './helpers/webhook-receiver.js';

const server = useServer({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '20' });
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let erin: TestUser;

interface CommentBody {
  id: string;
  board_id: string;
  thread_id: string;
  parent_id: string | null;
  node_id: string | null;
  position: { x: number; y: number } | null;
  author: { id: string; name: string };
  content: string;
  mentions: string[];
  resolved_at: string | null;
  resolved_by: string | null;
  created_at: string;
  updated_at: string;
  edited_at: string | null;
  unread?: boolean;
}
interface CommentList {
  object: 'list';
  data: CommentBody[];
  has_more: boolean;
  cursor: string | null;
}

function expectError(res: Response, status: number, code: string, label = ''): void {
  assert.equal(res.status, status, `${label} ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), res.text);
  assert.equal((res.body as { code: string }).code, code, label);
}

async function addMember(boardId: string, user: TestUser, role: string): Promise<void> {
  const res = await server.request('POST', `/v1/boards/${boardId}/members`, { token: alice.token, body: { user_id: user.userId, role } });
  assert.equal(res.status, 201, res.text);
}

async function comment(user: TestUser, boardId: string, body: Record<string, unknown>): Promise<CommentBody> {
  const res = await server.request<{ object: string; data: CommentBody }>('POST', `/v1/boards/${boardId}/comments`, {
    token: user.token,
    body,
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.object, 'comment');
  return res.body.data;
}

async function list(user: TestUser, boardId: string, query = ''): Promise<CommentList> {
  const res = await server.request<CommentList>('GET', `/v1/boards/${boardId}/comments${query}`, { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Every comment of the board as its owner reads it, without the owner's unread marks. */
async function allComments(boardId: string): Promise<CommentBody[]> {
  return (await list(alice, boardId, '?limit=100')).data.map(({ unread: _, ...c }) => c);
}

/** A board of Alice's with Bob (editor), Carol (viewer), Dave (commenter); Erin is nobody there. */
async function teamBoard(extra: Record<string, unknown> = {}): Promise<string> {
  const boardId = await server.makeBoard(alice, extra);
  await addMember(boardId, bob, 'editor');
  await addMember(boardId, carol, 'viewer');
  await addMember(boardId, dave, 'commenter');
  return boardId;
}

before(async () => {
  alice = await server.user();
  bob = await server.user();
  carol = await server.user();
  dave = await server.user();
  erin = await server.user();
});

describe('comments', () => {
  test('threads on a card, a point and the board; replies; the list, its filters and pages', async () => {
    const boardId = await teamBoard();
    const card = await server.makeNode(alice, boardId, { data: { text: 'a card' } });
    const onCard = await comment(dave, boardId, { content: 'Is this right?', node_id: card.id, mentions: [bob.userId] });
    assert.equal(onCard.thread_id, onCard.id);
    assert.equal(onCard.parent_id, null);
    assert.equal(onCard.node_id, card.id);
    assert.equal(onCard.position, null);
    assert.equal(onCard.author.id, dave.userId);
    assert.equal(typeof onCard.author.name, 'string');
    assert.deepEqual(onCard.mentions, [bob.userId]);
    assert.equal(onCard.resolved_at, null);
    assert.equal(onCard.edited_at, null);
    assert.equal(onCard.unread, undefined);
    const onPoint = await comment(bob, boardId, { content: 'Here', position: { x: 120.5, y: -40 } });
    assert.deepEqual(onPoint.position, { x: 120.5, y: -40 });
    assert.equal(onPoint.node_id, null);
    const onBoard = await comment(alice, boardId, { content: 'On the whole board' });
    assert.equal(onBoard.node_id, null);
    assert.equal(onBoard.position, null);
    const reply = await comment(bob, boardId, { content: 'Yes it is', thread_id: onCard.id });
    assert.equal(reply.thread_id, onCard.id);
    assert.equal(reply.parent_id, onCard.id);
    assert.equal(reply.node_id, null);
    const reply2 = await comment(alice, boardId, { content: 'Agreed', thread_id: onCard.id, mentions: [dave.userId, alice.userId] });

    const all = await list(carol, boardId);
    assert.deepEqual(
      all.data.map((c) => c.id),
      [onCard.id, onPoint.id, onBoard.id, reply.id, reply2.id],
    );
    assert.equal(all.has_more, false);
    // The single read answers the same comment, with its ETag.
    const one = await server.request<{ object: string; data: CommentBody }>('GET', `/v1/boards/${boardId}/comments/${reply.id}`, {
      token: carol.token,
    });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data, all.data[3]);
    assert.match(String(one.headers.get('etag')), /^"/);

    assert.deepEqual(
      (await list(carol, boardId, `?thread_id=${onCard.id}`)).data.map((c) => c.id),
      [onCard.id, reply.id, reply2.id],
    );
    assert.deepEqual(
      (await list(carol, boardId, `?node_id=${card.id}`)).data.map((c) => c.id),
      [onCard.id, reply.id, reply2.id],
    );

    // Pages of two, oldest first, then newest first; a cursor is for its own list only.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: CommentList = await list(carol, boardId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((c) => c.id));
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen, [onCard.id, onPoint.id, onBoard.id, reply.id, reply2.id]);
    const desc = await list(carol, boardId, '?order=desc&limit=2');
    assert.deepEqual(
      desc.data.map((c) => c.id),
      [reply2.id, reply.id],
    );
    expectError(
      await server.request('GET', `/v1/boards/${boardId}/comments?thread_id=${onCard.id}&cursor=${desc.cursor}`, { token: carol.token }),
      400,
      'invalid_request',
    );
  });

  test('resolve and reopen a thread; the resolved filter; only a thread resolves', async () => {
    const boardId = await teamBoard();
    const open = await comment(alice, boardId, { content: 'Open' });
    const done = await comment(alice, boardId, { content: 'To resolve' });
    const reply = await comment(bob, boardId, { content: 'reply', thread_id: done.id });
    const resolved = await server.request<{ data: CommentBody }>('PATCH', `/v1/boards/${boardId}/comments/${done.id}`, {
      token: dave.token,
      body: { resolved: true },
    });
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(resolved.body.data.resolved_by, dave.userId);
    assert.ok(resolved.body.data.resolved_at);
    assert.equal(resolved.body.data.edited_at, null);
    assert.deepEqual(
      (await list(carol, boardId, '?resolved=true')).data.map((c) => c.id),
      [done.id, reply.id],
    );
    assert.deepEqual(
      (await list(carol, boardId, '?resolved=false')).data.map((c) => c.id),
      [open.id],
    );
    // A reply is not resolved on its own; a viewer resolves nothing.
    expectError(
      await server.request('PATCH', `/v1/boards/${boardId}/comments/${reply.id}`, { token: dave.token, body: { resolved: true } }),
      400,
      'invalid_request',
    );
    expectError(
      await server.request('PATCH', `/v1/boards/${boardId}/comments/${open.id}`, { token: carol.token, body: { resolved: true } }),
      403,
      'forbidden',
    );
    const reopened = await server.request<{ data: CommentBody }>('PATCH', `/v1/boards/${boardId}/comments/${done.id}`, {
      token: bob.token,
      body: { resolved: false },
    });
    assert.equal(reopened.status, 200, reopened.text);
    assert.equal(reopened.body.data.resolved_at, null);
    assert.equal(reopened.body.data.resolved_by, null);
    assert.equal((await list(carol, boardId, '?resolved=true')).data.length, 0);
  });

  test('the author edits and deletes their own; the owner deletes anyone’s; nobody else does', async () => {
    const boardId = await teamBoard();
    const mine = await comment(dave, boardId, { content: 'Frist' });
    const edited = await server.request<{ data: CommentBody }>('PATCH', `/v1/boards/${boardId}/comments/${mine.id}`, {
      token: dave.token,
      body: { content: 'First', mentions: [carol.userId] },
    });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.data.content, 'First');
    assert.deepEqual(edited.body.data.mentions, [carol.userId]);
    assert.ok(edited.body.data.edited_at);
    // A stale If-Match is 412 and writes nothing; the current tag writes.
    const tag = String(edited.headers.get('etag'));
    expectError(
      await server.request('PATCH', `/v1/boards/${boardId}/comments/${mine.id}`, {
        token: dave.token,
        body: { content: 'Stale' },
        headers: { 'if-match': '"stale"' },
      }),
      412,
      'precondition_failed',
    );
    const fresh = await server.request('PATCH', `/v1/boards/${boardId}/comments/${mine.id}`, {
      token: dave.token,
      body: { content: 'First!' },
      headers: { 'if-match': tag },
    });
    assert.equal(fresh.status, 200, fresh.text);

    // The owner and an editor may not edit another's words; an editor may not delete them.
    for (const user of [alice, bob]) {
      expectError(
        await server.request('PATCH', `/v1/boards/${boardId}/comments/${mine.id}`, { token: user.token, body: { content: 'Mine now' } }),
        403,
        'forbidden',
      );
    }
    expectError(await server.request('DELETE', `/v1/boards/${boardId}/comments/${mine.id}`, { token: bob.token }), 403, 'forbidden');
    assert.equal((await allComments(boardId))[0]!.content, 'First!');

    const reply = await comment(bob, boardId, { content: 'A reply', thread_id: mine.id });
    const own = await server.request<{ object: string; data: { id: string; deleted: boolean } }>(
      'DELETE',
      `/v1/boards/${boardId}/comments/${reply.id}`,
      { token: bob.token },
    );
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.body, { object: 'comment', data: { id: reply.id, deleted: true } });
    await comment(bob, boardId, { content: 'Another reply', thread_id: mine.id });
    // The owner deletes Dave's thread, and its replies go with it.
    const moderated = await server.request('DELETE', `/v1/boards/${boardId}/comments/${mine.id}`, { token: alice.token });
    assert.equal(moderated.status, 200, moderated.text);
    assert.deepEqual(await allComments(boardId), []);
    expectError(await server.request('GET', `/v1/boards/${boardId}/comments/${mine.id}`, { token: alice.token }), 404, 'not_found');
  });

  test('a viewer reads and may not write; a public reader reads; a stranger gets 404 on a private board', async () => {
    const boardId = await teamBoard();
    const first = await comment(alice, boardId, { content: 'Hello team' });
    assert.equal((await list(carol, boardId)).data.length, 1);
    expectError(
      await server.request('POST', `/v1/boards/${boardId}/comments`, { token: carol.token, body: { content: 'me too' } }),
      403,
      'forbidden',
    );
    for (const [method, url] of [
      ['GET', `/v1/boards/${boardId}/comments`],
      ['GET', `/v1/boards/${boardId}/comments/${first.id}`],
      ['POST', `/v1/boards/${boardId}/comments`],
      ['PATCH', `/v1/boards/${boardId}/comments/${first.id}`],
      ['DELETE', `/v1/boards/${boardId}/comments/${first.id}`],
      ['POST', `/v1/boards/${boardId}/comments/read`],
    ] as const) {
      const body = method === 'POST' ? (url.endsWith('/read') ? { up_to: new Date().toISOString() } : { content: 'hi' }) : { content: 'x' };
      const res = await server.request(method, url, {
        token: erin.token,
        body: method === 'GET' || method === 'DELETE' ? undefined : body,
      });
      expectError(res, 404, 'not_found', `${method} ${url}`);
      assert.ok(!res.text.includes('Hello team'));
    }
    // A public `view` board: anyone reads its comments, nobody but its people writes.
    const open = await server.makeBoard(alice, { is_public: true, public_access_level: 'view' });
    await comment(alice, open, { content: 'Public words' });
    assert.deepEqual(
      (await list(erin, open)).data.map((c) => c.content),
      ['Public words'],
    );
    expectError(
      await server.request('POST', `/v1/boards/${open}/comments`, { token: erin.token, body: { content: 'hi' } }),
      403,
      'forbidden',
    );
    // A read-only key reads and marks read, but does not write.
    const readKey = (await carol.keyWith(['read'])).raw_key;
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/comments`, { token: readKey })).status, 200);
    const mark = await server.request('POST', `/v1/boards/${boardId}/comments/read`, {
      token: readKey,
      body: { up_to: new Date().toISOString() },
    });
    assert.equal(mark.status, 200, mark.text);
    const daveRead = (await dave.keyWith(['read'])).raw_key;
    expectError(
      await server.request('POST', `/v1/boards/${boardId}/comments`, { token: daveRead, body: { content: 'hi' } }),
      403,
      'forbidden',
    );
  });

  test('mentions must be people who may read the board', async () => {
    const boardId = await teamBoard({ is_public: true, public_access_level: 'view' });
    const before = await allComments(boardId);
    const res = await server.request('POST', `/v1/boards/${boardId}/comments`, {
      token: bob.token,
      body: { content: 'ping', mentions: [carol.userId, erin.userId] },
    });
    expectError(res, 400, 'invalid_request');
    assert.ok((res.body as { message: string }).message.includes(erin.userId), res.text);
    assert.ok(!(res.body as { message: string }).message.includes(carol.userId), res.text);
    const ok = await comment(bob, boardId, { content: 'ping', mentions: [carol.userId, alice.userId, dave.userId] });
    expectError(
      await server.request('PATCH', `/v1/boards/${boardId}/comments/${ok.id}`, { token: bob.token, body: { mentions: [erin.userId] } }),
      400,
      'invalid_request',
    );
    assert.deepEqual(await allComments(boardId), [...before, ok]);
  });

  test('GET /v1/me/mentions: the comments that mention me, on boards I may still read', async () => {
    const boardId = await teamBoard();
    const first = await comment(alice, boardId, { content: 'Carol, look', mentions: [carol.userId] });
    await comment(alice, boardId, { content: 'Nobody mentioned' });
    const second = await comment(bob, boardId, { content: 'Carol and Dave', mentions: [dave.userId, carol.userId] });
    const mentions = async (user: TestUser, query = '') => {
      const res = await server.request<CommentList>('GET', `/v1/me/mentions${query}`, { token: user.token });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const carols = (await mentions(carol)).data.filter((c) => c.board_id === boardId);
    assert.deepEqual(
      carols.map((c) => [c.id, c.unread]),
      [
        [second.id, true],
        [first.id, true],
      ],
    );
    const page = await mentions(carol, '?limit=1');
    assert.equal(page.data.length, 1);
    assert.equal(page.has_more, true);
    assert.equal((await mentions(carol, `?limit=1&cursor=${page.cursor}`)).data[0]!.id, first.id);
    assert.deepEqual(
      (await mentions(erin)).data.filter((c) => c.board_id === boardId),
      [],
    );
    // Removed from the board: its mentions are no longer hers to read.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/members/${carol.userId}`, { token: alice.token })).status, 200);
    assert.deepEqual(
      (await mentions(carol)).data.filter((c) => c.board_id === boardId),
      [],
    );
    assert.equal((await mentions(dave)).data.filter((c) => c.board_id === boardId).length, 1);
  });

  test('unread marks are per person, per board and per thread; own comments are never unread', async () => {
    const boardId = await teamBoard();
    const one = await comment(alice, boardId, { content: 'one' });
    const two = await comment(bob, boardId, { content: 'two' });
    const reply = await comment(bob, boardId, { content: 'reply', thread_id: one.id });
    const unreadOf = async (user: TestUser) => Object.fromEntries((await list(user, boardId)).data.map((c) => [c.content, c.unread]));
    assert.deepEqual(await unreadOf(alice), { one: false, two: true, reply: true });
    assert.deepEqual(await unreadOf(carol), { one: true, two: true, reply: true });
    // Carol reads thread one: its comments are read for her, and for nobody else.
    const mark = await server.request<{ object: string; data: { board_id: string; thread_id: string; read_at: string } }>(
      'POST',
      `/v1/boards/${boardId}/comments/read`,
      { token: carol.token, body: { thread_id: one.id, up_to: reply.created_at } },
    );
    assert.equal(mark.status, 200, mark.text);
    assert.equal(mark.body.object, 'comment_read');
    assert.equal(mark.body.data.thread_id, one.id);
    assert.deepEqual(await unreadOf(carol), { one: false, two: true, reply: false });
    assert.deepEqual(await unreadOf(dave), { one: true, two: true, reply: true });
    // A later comment is unread again; a mark never moves back.
    const later = await comment(alice, boardId, { content: 'later', thread_id: one.id });
    assert.deepEqual(await unreadOf(carol), { one: false, two: true, reply: false, later: true });
    const back = await server.request<{ data: { read_at: string } }>('POST', `/v1/boards/${boardId}/comments/read`, {
      token: carol.token,
      body: { thread_id: one.id, up_to: '2000-01-01T00:00:00.000Z' },
    });
    assert.equal(back.body.data.read_at, reply.created_at);
    // The whole board, up to a time ahead of now (kept as now).
    const all = await server.request<{ data: { read_at: string; thread_id: string | null } }>(
      'POST',
      `/v1/boards/${boardId}/comments/read`,
      { token: carol.token, body: { up_to: '2999-01-01T00:00:00.000Z' } },
    );
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.data.thread_id, null);
    assert.ok(Date.parse(all.body.data.read_at) <= Date.now());
    assert.ok(Date.parse(all.body.data.read_at) >= Date.parse(later.created_at));
    assert.deepEqual(await unreadOf(carol), { one: false, two: false, reply: false, later: false });
    const single = await server.request<{ data: CommentBody }>('GET', `/v1/boards/${boardId}/comments/${two.id}`, { token: dave.token });
    assert.equal(single.body.data.unread, true);
  });

  test('a thread on a card outlives the card, at its last position', async () => {
    const boardId = await teamBoard();
    const card = await server.makeNode(alice, boardId, { position: { x: 300, y: 400 }, data: { text: 'doomed' } });
    const thread = await comment(dave, boardId, { content: 'About this card', node_id: card.id });
    const reply = await comment(bob, boardId, { content: 'Agreed', thread_id: thread.id });
    const deleted = await server.request('DELETE', `/v1/boards/${boardId}/nodes/${card.id}`, { token: bob.token });
    assert.equal(deleted.status, 200, deleted.text);
    const after = await allComments(boardId);
    assert.deepEqual(
      after.map((c) => c.id),
      [thread.id, reply.id],
    );
    assert.equal(after[0]!.node_id, null);
    assert.deepEqual(after[0]!.position, { x: 300, y: 400 });
    assert.equal(after[0]!.content, 'About this card');
    // A batch that deletes cards moves their threads too; deleting the board takes its comments.
    const other = await server.makeNode(alice, boardId, { position: { x: -5, y: 7 } });
    const second = await comment(alice, boardId, { content: 'on other', node_id: other.id });
    const batch = await server.request('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: [{ op: 'delete_node', id: other.id }] },
    });
    assert.equal(batch.status, 200, batch.text);
    const moved = (await allComments(boardId)).find((c) => c.id === second.id)!;
    assert.equal(moved.node_id, null);
    assert.deepEqual(moved.position, { x: -5, y: 7 });
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}`, { token: alice.token })).status, 200);
    const rows = await server.database.db.selectFrom('board_comments').select('id').where('board_id', '=', boardId).execute();
    assert.deepEqual(rows, []);
  });

  test("comment events reach another person's event stream, and a webhook", async () => {
    const boardId = await teamBoard();
    const receiver = await startReceiver();
    const hook = await server.request('POST', '/v1/webhooks', {
      token: alice.token,
      body: { url: receiver.url, board_id: boardId, event_types: ['comment.created', 'comment.updated', 'comment.deleted'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const carolStream = follow(server.url, boardId, carol.token);
    try {
      await carolStream.waitFor((e) => e.type === 'ready');
      const created = await comment(dave, boardId, { content: 'Live words' });
      const event = await carolStream.waitFor((e) => e.type === 'comment.created');
      assert.deepEqual(event.data.data, created);
      assert.equal(event.data.actor_id, dave.userId);
      await server.request('PATCH', `/v1/boards/${boardId}/comments/${created.id}`, { token: bob.token, body: { resolved: true } });
      const updated = await carolStream.waitFor((e) => e.type === 'comment.updated');
      assert.equal((updated.data.data as CommentBody).resolved_by, bob.userId);
      await server.request('DELETE', `/v1/boards/${boardId}/comments/${created.id}`, { token: dave.token });
      const gone = await carolStream.waitFor((e) => e.type === 'comment.deleted');
      assert.deepEqual(gone.data.data, { id: created.id, thread_id: created.id });

      await receiver.waitFor((r) => r.length >= 3);
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { data: unknown } });
      assert.deepEqual(
        bodies.map((b) => b.type),
        ['comment.created', 'comment.updated', 'comment.deleted'],
      );
      assert.deepEqual(bodies[0]!.data.data, created);
      // The event list holds them too.
      const events = await server.request<{ data: { type: string }[] }>('GET', `/v1/boards/${boardId}/events?after=0&limit=500`, {
        token: carol.token,
      });
      assert.deepEqual(
        events.body.data.map((e) => e.type).filter((t) => t.startsWith('comment.')),
        ['comment.created', 'comment.updated', 'comment.deleted'],
      );
    } finally {
      carolStream.close();
    }
  });

  test('bad input gets the error envelope and changes nothing', async () => {
    const boardId = await teamBoard();
    const otherBoard = await server.makeBoard(alice);
    const card = await server.makeNode(alice, boardId);
    const foreignCard = await server.makeNode(alice, otherBoard);
    const thread = await comment(alice, boardId, { content: 'root' });
    const reply = await comment(alice, boardId, { content: 'reply', thread_id: thread.id });
    const foreignThread = await comment(alice, otherBoard, { content: 'elsewhere' });
    const b = `/v1/boards/${boardId}`;
    const before = await allComments(boardId);
    const eventsBefore = await server.request('GET', `${b}/events?after=0&limit=500`, { token: alice.token });
    const bad: [string, string, unknown][] = [
      ['POST', `${b}/comments`, { content: '' }],
      ['POST', `${b}/comments`, { content: '   \n\t ' }],
      ['POST', `${b}/comments`, {}],
      ['POST', `${b}/comments`, { content: 'x'.repeat(10_001) }],
      ['POST', `${b}/comments`, { content: 42 }],
      ['POST', `${b}/comments`, { content: 'hi', node_id: 'not-a-uuid' }],
      ['POST', `${b}/comments`, { content: 'hi', thread_id: 'nope' }],
      ['POST', `${b}/comments`, { content: 'hi', thread_id: foreignThread.id }],
      ['POST', `${b}/comments`, { content: 'hi', thread_id: reply.id }],
      ['POST', `${b}/comments`, { content: 'hi', thread_id: randomUUID() }],
      ['POST', `${b}/comments`, { content: 'hi', node_id: foreignCard.id }],
      ['POST', `${b}/comments`, { content: 'hi', node_id: randomUUID() }],
      ['POST', `${b}/comments`, { content: 'hi', node_id: card.id, position: { x: 1, y: 2 } }],
      ['POST', `${b}/comments`, { content: 'hi', thread_id: thread.id, node_id: card.id }],
      ['POST', `${b}/comments`, { content: 'hi', position: { x: 1 } }],
      ['POST', `${b}/comments`, { content: 'hi', position: { x: 1, y: 1e13 } }],
      ['POST', `${b}/comments`, { content: 'hi', mentions: ['nope'] }],
      ['POST', `${b}/comments`, { content: 'hi', mentions: [bob.userId, bob.userId] }],
      ['POST', `${b}/comments`, { content: 'hi', extra: true }],
      ['PATCH', `${b}/comments/${thread.id}`, {}],
      ['PATCH', `${b}/comments/${thread.id}`, { content: '' }],
      ['PATCH', `${b}/comments/${thread.id}`, { content: ' ' }],
      ['PATCH', `${b}/comments/${thread.id}`, { content: 'x'.repeat(10_001) }],
      ['PATCH', `${b}/comments/${thread.id}`, { resolved: 'yes' }],
      ['PATCH', `${b}/comments/${reply.id}`, { resolved: true }],
      ['POST', `${b}/comments/read`, {}],
      ['POST', `${b}/comments/read`, { up_to: 'yesterday' }],
      ['POST', `${b}/comments/read`, { up_to: new Date().toISOString(), thread_id: foreignThread.id }],
      ['POST', `${b}/comments/read`, { up_to: new Date().toISOString(), thread_id: reply.id }],
      ['GET', `${b}/comments?thread_id=nope`, undefined],
      ['GET', `${b}/comments?resolved=maybe`, undefined],
      ['GET', `${b}/comments?limit=0`, undefined],
      ['GET', `${b}/comments?colour=red`, undefined],
    ];
    for (const [method, url, body] of bad) {
      const res = await server.request(method, url, { token: alice.token, body });
      expectError(res, 400, 'invalid_request', `${method} ${url} ${JSON.stringify(body)?.slice(0, 80)}`);
    }
    // Another board's comment under this board, or an id that is no UUID, is not found (as every path id).
    for (const id of [foreignThread.id, 'not-a-uuid']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await server.request(method, `${b}/comments/${id}`, {
          token: alice.token,
          body: method === 'PATCH' ? { content: 'moved' } : undefined,
        });
        expectError(res, 404, 'not_found', `${method} ${id}`);
      }
    }
    assert.deepEqual(await allComments(boardId), before);
    assert.deepEqual((await server.request('GET', `${b}/events?after=0&limit=500`, { token: alice.token })).body, eventsBefore.body);
    assert.equal((await allComments(otherBoard)).length, 1);
    // Exactly the limit is taken.
    await comment(alice, boardId, { content: 'x'.repeat(10_000) });
  });

  test('a repeated create with the same Idempotency-Key makes one comment', async () => {
    const boardId = await teamBoard();
    const key = randomUUID();
    const send = () =>
      server.request<{ data: CommentBody }>('POST', `/v1/boards/${boardId}/comments`, {
        token: dave.token,
        body: { content: 'Once' },
        headers: { 'idempotency-key': key },
      });
    const first = await send();
    const again = await send();
    assert.equal(first.status, 201, first.text);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal((await allComments(boardId)).length, 1);
  });

  test('MCP: a commenter adds a comment and a viewer lists it, but may not add one', async () => {
    const boardId = await teamBoard();
    const card = await server.makeNode(alice, boardId, { data: { text: 'a card' } });
    const connect = async (user: TestUser) => {
      const client = new Client({ name: 'comments-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${user.token}` } },
        }),
      );
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
      };
      return { client, call };
    };
    const commenter = await connect(dave);
    const viewer = await connect(carol);
    try {
      const added = await commenter.call('add_comment', { board_id: boardId, content: 'From an assistant', node_id: card.id });
      assert.ok(!added.isError, added.text);
      const made = (added.structuredContent as { comment: CommentBody }).comment;
      assert.deepEqual(await allComments(boardId), [made]);
      const listed = await viewer.call('list_comments', { board_id: boardId, node_id: card.id });
      assert.ok(!listed.isError, listed.text);
      assert.match(listed.text, new RegExp(`\\[${made.id}\\] .* on node ${card.id} \\(unread\\): From an assistant`));
      const refused = await viewer.call('add_comment', { board_id: boardId, content: 'me too' });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /does not allow comments/);
      const stranger = await connect(erin);
      const hidden = await stranger.call('list_comments', { board_id: boardId });
      assert.equal(hidden.isError, true);
      assert.match(hidden.text, /not found/);
      await stranger.client.close();
      assert.equal((await allComments(boardId)).length, 1);
    } finally {
      await commenter.client.close();
      await viewer.client.close();
    }
  });
});
