// Chats and messages against the openai provider, served by a fake OpenAI-compatible server on
// loopback: CRUD, privacy and scopes, JSON and streamed replies, failures, timeouts, client
// disconnects, the one-reply-at-a-time lease, idempotency of streamed posts, and the prompt.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type {
  BodyOf,
  ChatBody,
  ChatList,
  Deleted,
  ErrorBody,
  Message,
  MessageCreated,
  MessageList,
  NodeBody,
} from './helpers/api-types.js';
import { isErrorEnvelope, MISSING_ID, startServer, type TestServer, type TestUser, TIMESTAMP } from './helpers/harness.js';
import { readEvents, startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.js';

let server: TestServer;
let fake: FakeOpenAi;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  fake = await startFakeOpenAi();
  server = await startServer({
    LLM_PROVIDER: 'openai',
    LLM_MODEL: 'fake-gpt',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: 'sk-test',
    LLM_MAX_RETRIES: '0',
    LLM_TIMEOUT_MS: '1500',
    SSE_KEEPALIVE_MS: '50',
  });
  alice = await server.user();
  bob = await server.user();
});
after(async () => {
  await server.close();
  await fake.close();
});

const CHAT_FIELDS = ['created_at', 'id', 'last_message_at', 'node_id', 'node_ids', 'title', 'updated_at'];

async function makeChat(user: TestUser, boardId: string, body: Record<string, unknown> = {}) {
  const res = await server.request<BodyOf<'/v1/boards/{boardId}/chats', 'post'>>('POST', `/v1/boards/${boardId}/chats`, {
    token: user.token,
    body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

const messagesPath = (boardId: string, chatId: string) => `/v1/boards/${boardId}/chats/${chatId}/messages`;

function postStream(
  user: TestUser,
  boardId: string,
  chatId: string,
  content: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(`${server.url}${messagesPath(boardId, chatId)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ content, stream: true }),
    signal,
  });
}

async function messages(user: TestUser, boardId: string, chatId: string): Promise<Message[]> {
  const res = await server.request<MessageList>('GET', `${messagesPath(boardId, chatId)}?limit=100`, { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('chats: CRUD', () => {
  test('create with defaults, list without memory, get with memory and metadata, rename, delete with its messages', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    assert.deepEqual(Object.keys(chat).sort(), [...CHAT_FIELDS, 'memory', 'metadata'].sort());
    assert.equal(chat.title, 'New chat');
    assert.equal(chat.node_id, null);
    assert.equal(chat.last_message_at, null);
    assert.match(chat.created_at, TIMESTAMP);

    const list = await server.request<ChatList>('GET', `/v1/boards/${boardId}/chats`, { token: alice.token });
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body.data[0] ?? {}).sort(), CHAT_FIELDS);

    const got = await server.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chat.id}`, { token: alice.token });
    assert.deepEqual(got.body.data.memory, []);
    assert.equal(got.body.data.metadata, null);

    const renamed = await server.request<ChatBody>('PATCH', `/v1/boards/${boardId}/chats/${chat.id}`, {
      token: alice.token,
      body: { title: 'Renamed' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.data.title, 'Renamed');

    const sent = await server.request('POST', messagesPath(boardId, chat.id), { token: alice.token, body: { content: 'hi' } });
    assert.equal(sent.status, 201, sent.text);
    const del = await server.request<Deleted>('DELETE', `/v1/boards/${boardId}/chats/${chat.id}`, { token: alice.token });
    assert.deepEqual(del.body, { object: 'chat', data: { id: chat.id, deleted: true } });
    const count = await server.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('chat_id', '=', chat.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
    assert.equal((await server.request('GET', `/v1/boards/${boardId}/chats/${chat.id}`, { token: alice.token })).status, 404);
  });

  test('title and node_id are checked; a node of another board is refused', async () => {
    const boardId = await server.makeBoard(alice);
    const other = await server.makeBoard(alice);
    const node = await server.request<NodeBody>('POST', `/v1/boards/${other}/nodes`, {
      token: alice.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'x' } },
    });
    for (const body of [
      { title: '' },
      { title: 'x'.repeat(201) },
      { title: 5 },
      { node_id: node.body.data.id },
      { node_id: 'nope' },
      { extra: 1 },
    ]) {
      const res = await server.request<ChatBody>('POST', `/v1/boards/${boardId}/chats`, { token: alice.token, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(isErrorEnvelope(res.body, 400));
    }
    const ok = await makeChat(alice, other, { title: 'About the note', node_id: node.body.data.id });
    assert.equal(ok.node_id, node.body.data.id);
    for (const body of [{ content: '' }, { content: 'x'.repeat(32_001) }, { content: 'x', stream: 'yes' }, {}]) {
      const res = await server.request('POST', messagesPath(other, ok.id), { token: alice.token, body });
      assert.equal(res.status, 400, res.text);
    }
  });

  test('deleting the node keeps the chat with node_id null', async () => {
    const boardId = await server.makeBoard(alice);
    const node = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'x' } },
    });
    const chat = await makeChat(alice, boardId, { node_id: node.body.data.id });
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${node.body.data.id}`, { token: alice.token })).status, 200);
    const got = await server.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chat.id}`, { token: alice.token });
    assert.equal(got.body.data.node_id, null);
  });
});

describe('chats: privacy and scopes', () => {
  test("another user's chat is 404 on every route, even on a public board; a viewer may hold their own chats there", async () => {
    const boardId = await server.makeBoard(alice, { is_public: true });
    const chat = await makeChat(alice, boardId);
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/boards/${boardId}/chats/${chat.id}`],
      ['PATCH', `/v1/boards/${boardId}/chats/${chat.id}`, { title: 'mine' }],
      ['DELETE', `/v1/boards/${boardId}/chats/${chat.id}`],
      ['GET', messagesPath(boardId, chat.id)],
      ['POST', messagesPath(boardId, chat.id), { content: 'hi' }],
    ];
    for (const [method, path, body] of routes) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.message, 'Chat not found');
    }
    const own = await makeChat(bob, boardId, { title: 'Bob on Alice board' });
    const bobList = await server.request<ChatList>('GET', `/v1/boards/${boardId}/chats`, { token: bob.token });
    assert.deepEqual(
      bobList.body.data.map((c) => c.id),
      [own.id],
    );
    const aliceList = await server.request<ChatList>('GET', `/v1/boards/${boardId}/chats`, { token: alice.token });
    assert.deepEqual(
      aliceList.body.data.map((c) => c.id),
      [chat.id],
    );
  });

  test("a private board of another user is 'Board not found' on every chat route; a read key cannot post", async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    for (const [method, path, body] of [
      ['POST', `/v1/boards/${boardId}/chats`, {}],
      ['GET', `/v1/boards/${boardId}/chats`],
      ['GET', `/v1/boards/${boardId}/chats/${chat.id}`],
      ['POST', messagesPath(boardId, chat.id), { content: 'hi' }],
      ['GET', messagesPath(MISSING_ID, chat.id)],
    ] as [string, string, unknown?][]) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Board not found');
    }
    // The chat under another board of its owner is not found either.
    const other = await server.makeBoard(alice);
    assert.equal(
      (await server.request<ErrorBody>('GET', `/v1/boards/${other}/chats/${chat.id}`, { token: alice.token })).body.message,
      'Chat not found',
    );
    const read = await alice.keyWith(['read']);
    const denied = await server.request<ErrorBody>('POST', messagesPath(boardId, chat.id), {
      token: read.raw_key,
      body: { content: 'hi' },
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'Missing required scope: write');
    assert.equal((await server.request('GET', messagesPath(boardId, chat.id), { token: read.raw_key })).status, 200);
  });
});

describe('messages: replies', () => {
  test('a JSON reply: 201 message envelope with usage, finish_reason and sources; both messages stored in order', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'answer', deltas: ['The ', 'answer', '.'], usage: { prompt_tokens: 42, completion_tokens: 3 } });
    const res = await server.request<MessageCreated>('POST', messagesPath(boardId, chat.id), {
      token: alice.token,
      body: { content: 'What is it?' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.object, 'message');
    const m = res.body.data;
    assert.deepEqual(Object.keys(m).sort(), ['content', 'created_at', 'id', 'metadata', 'model', 'role']);
    assert.equal(m.role, 'assistant');
    assert.equal(m.content, 'The answer.');
    assert.equal(m.model, 'fake-gpt');
    assert.deepEqual(m.metadata?.usage, { prompt_tokens: 42, completion_tokens: 3, total_tokens: 45 });
    assert.equal(m.metadata?.finish_reason, 'stop');
    assert.deepEqual(m.metadata?.sources, []);
    const sent = fake.requests.at(-1)!.body;
    assert.equal(sent.stream, true);
    assert.deepEqual(sent.stream_options, { include_usage: true });
    assert.equal(sent.messages[0].role, 'system');
    assert.deepEqual(sent.messages.at(-1), { role: 'user', content: 'What is it?' });
    const list = await messages(alice, boardId, chat.id);
    assert.deepEqual(
      list.map((x) => [x.role, x.content, x.model, x.metadata === null]),
      [
        ['user', 'What is it?', null, true],
        ['assistant', 'The answer.', 'fake-gpt', false],
      ],
    );
    const got = await server.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chat.id}`, { token: alice.token });
    assert.equal(got.body.data.last_message_at, m.created_at);
    assert.equal(got.body.data.metadata?.model, 'fake-gpt');
  });

  test('a streamed reply: deltas concatenate to the stored content, then message.complete', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    const deltas = ['Stream', 'ing ', 'works', ' fine', '.'];
    fake.script({ kind: 'answer', deltas, usage: { prompt_tokens: 7, completion_tokens: 5 } });
    const res = await postStream(alice, boardId, chat.id, 'Stream please');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    assert.ok(res.headers.get('ratelimit-limit'), 'rate-limit headers on a streamed reply');
    const events = await readEvents(res);
    const names = events.map((e) => e.event);
    assert.deepEqual(names, [...deltas.map(() => 'message.delta'), 'message.complete']);
    const text = events
      .filter((e) => e.event === 'message.delta')
      .map((e) => e.data.content)
      .join('');
    assert.equal(text, deltas.join(''));
    const complete = events.at(-1)!.data;
    assert.deepEqual(Object.keys(complete).sort(), ['message', 'usage']);
    assert.deepEqual(Object.keys(complete.message).sort(), ['content', 'created_at', 'id', 'metadata', 'model', 'role']);
    assert.equal(complete.message.content, text);
    assert.equal(complete.message.role, 'assistant');
    assert.match(complete.message.created_at, TIMESTAMP);
    assert.deepEqual(complete.usage, { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    const stored = (await messages(alice, boardId, chat.id)).at(-1);
    assert.equal(stored?.id, complete.message.id);
    assert.equal(stored?.content, text);
  });

  test('a stream that fails mid-way ends with the error event and stores no assistant message; the chat stays usable', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'fail-mid', deltas: ['Half', ' an'] });
    const events = await readEvents(await postStream(alice, boardId, chat.id, 'Break'));
    assert.equal(events.at(-1)!.event, 'error');
    assert.equal(events.at(-1)!.data.code, 'stream_error');
    assert.equal(typeof events.at(-1)!.data.message, 'string');
    assert.ok(!events.some((e) => e.event === 'message.complete'));
    assert.deepEqual(
      (await messages(alice, boardId, chat.id)).map((m) => m.role),
      ['user'],
    );
    const again = await server.request('POST', messagesPath(boardId, chat.id), { token: alice.token, body: { content: 'Again' } });
    assert.equal(again.status, 201, again.text);
  });

  test('a stream that ends without its finish chunk and [DONE] is an error, never a stored partial reply', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'truncated', deltas: ['Cut', ' short'] });
    const events = await readEvents(await postStream(alice, boardId, chat.id, 'Truncate'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['message.delta', 'message.delta', 'error'],
    );
    assert.equal(events.at(-1)!.data.code, 'stream_error');
    assert.deepEqual(
      (await messages(alice, boardId, chat.id)).map((m) => m.role),
      ['user'],
    );
  });

  test('provider 429 and 500 are 502 upstream_error for a JSON reply, with nothing stored', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    for (const status of [429, 500]) {
      fake.script({ kind: 'status', status });
      const res = await server.request('POST', messagesPath(boardId, chat.id), { token: alice.token, body: { content: `try ${status}` } });
      assert.equal(res.status, 502, res.text);
      assert.ok(isErrorEnvelope(res.body, 502));
      assert.equal(res.body.code, 'upstream_error');
    }
    fake.script({ kind: 'status', status: 500 });
    const events = await readEvents(await postStream(alice, boardId, chat.id, 'streamed 500'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['error'],
    );
    assert.ok((await messages(alice, boardId, chat.id)).every((m) => m.role === 'user'));
  });

  test('a stalled provider times out: error event when streamed, 502 otherwise', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'stall', deltas: ['Slow'] });
    const events = await readEvents(await postStream(alice, boardId, chat.id, 'stall'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['message.delta', 'error'],
    );
    assert.match(events[1]!.data.message, /did not answer within 1500 ms/);
    fake.script({ kind: 'stall' });
    const res = await server.request('POST', messagesPath(boardId, chat.id), { token: alice.token, body: { content: 'stall again' } });
    assert.equal(res.status, 502);
    assert.ok((await messages(alice, boardId, chat.id)).every((m) => m.role === 'user'));
  });

  test('a client that disconnects aborts the upstream request; nothing is stored and the chat is free again', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'answer', deltas: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 20 });
    const upstreamClosed = fake.nextAbort();
    const controller = new AbortController();
    const res = await postStream(alice, boardId, chat.id, 'long one', {}, controller.signal);
    const events = await readEvents(res, (e) => e.event === 'message.delta');
    assert.equal(events[0]!.event, 'message.delta');
    controller.abort();
    await upstreamClosed; // the fake server saw its request closed
    // The lease is released once the abort has propagated: a new message then succeeds.
    let status = 409;
    for (let i = 0; i < 100 && status === 409; i++) {
      const res2 = await server.request('POST', messagesPath(boardId, chat.id), { token: alice.token, body: { content: 'next' } });
      status = res2.status;
      if (status === 409) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 201);
    assert.deepEqual(
      (await messages(alice, boardId, chat.id)).map((m) => m.role),
      ['user', 'user', 'assistant'],
    );
  });

  test('a second message while a reply is generated is 409 conflict', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    fake.script({ kind: 'answer', deltas: ['a', 'b', 'c', 'd', 'e'], delayMs: 100 });
    const first = postStream(alice, boardId, chat.id, 'first');
    const res = await first;
    const second = await server.request<ErrorBody>('POST', messagesPath(boardId, chat.id), {
      token: alice.token,
      body: { content: 'second' },
    });
    assert.equal(second.status, 409, second.text);
    assert.equal(second.body.code, 'conflict');
    const events = await readEvents(res);
    assert.equal(events.at(-1)!.event, 'message.complete');
    assert.deepEqual(
      (await messages(alice, boardId, chat.id)).map((m) => m.content),
      ['first', 'abcde'],
    );
  });

  test('an Idempotency-Key on a JSON reply replays the first answer; the model is asked once', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    const key = { 'idempotency-key': `json-${chat.id}` };
    fake.script({ kind: 'answer', deltas: ['only ', 'once'] });
    const asked = fake.requests.length;
    const post = () =>
      server.request<MessageCreated>('POST', messagesPath(boardId, chat.id), {
        token: alice.token,
        headers: key,
        body: { content: 'hello' },
      });
    const first = await post();
    assert.equal(first.status, 201, first.text);
    const retry = await post();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    assert.equal(fake.requests.length, asked + 1);
    assert.deepEqual(
      (await messages(alice, boardId, chat.id)).map((m) => m.content),
      ['hello', 'only once'],
    );
  });

  test('an Idempotency-Key on a streamed post is spent once: a retry is 409, not a replay', async () => {
    const boardId = await server.makeBoard(alice);
    const chat = await makeChat(alice, boardId);
    const key = { 'idempotency-key': `k-${chat.id}` };
    const events = await readEvents(await postStream(alice, boardId, chat.id, 'once', key));
    assert.equal(events.at(-1)!.event, 'message.complete');
    const retry = await postStream(alice, boardId, chat.id, 'once', key);
    assert.equal(retry.status, 409);
    assert.equal((await retry.json()).code, 'conflict');
    assert.equal((await messages(alice, boardId, chat.id)).length, 2);
  });
});

describe('messages: context', () => {
  test("the chat's node and the board's notes reach the system prompt", async () => {
    const boardId = await server.makeBoard(alice, { name: 'Garden plans' });
    const node = await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Tomatoes need full sun.', label: 'Tomatoes' } },
    });
    await server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
      token: alice.token,
      body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Basil grows well beside tomatoes.' } },
    });
    const chat = await makeChat(alice, boardId, { node_id: node.body.data.id });
    const res = await server.request('POST', messagesPath(boardId, chat.id), {
      token: alice.token,
      body: { content: 'What grows beside tomatoes?' },
    });
    assert.equal(res.status, 201);
    const system = fake.requests.at(-1)!.body.messages[0].content as string;
    assert.match(system, /Garden plans/);
    assert.match(system, /Tomatoes need full sun/);
    assert.match(system, /Basil grows well beside tomatoes/);
  });
});
