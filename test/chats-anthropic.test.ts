// Chats against the anthropic provider (LLM_PROVIDER=anthropic, official SDK), served by a fake
// Messages API on loopback that speaks the real wire format (test/helpers/fake-anthropic.ts): JSON
// and streamed replies with the provider's usage, the stream's `error` event, a dropped or cut-short
// stream, HTTP 429/500/401 with the SDK's retries, a stalled provider, client disconnects, the
// request the provider receives (system prompt with the board, alternating turns), and memory.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONDENSE_SYSTEM } from '../src/providers/llm/condense-prompt.js';
import { apiKeyOf, startFakeAnthropic, type FakeAnthropic } from './helpers/fake-anthropic.js';
import { readEvents } from './helpers/fake-openai.js';
import type { BodyOf, ChatBody, ErrorBody, Message, MessageCreated, MessageList } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, type TestServer, type TestUser, TIMESTAMP } from './helpers/harness.js';

let server: TestServer;
let fake: FakeAnthropic;
let alice: TestUser;

const ENV = {
  LLM_PROVIDER: 'anthropic',
  LLM_MODEL: 'claude-fake-1',
  ANTHROPIC_API_KEY: 'sk-ant-test-key',
  // One SDK retry, so a single 429 or 500 before the stream starts is absorbed (retry-after-ms: 1).
  LLM_MAX_RETRIES: '1',
  LLM_TIMEOUT_MS: '1500',
  SSE_KEEPALIVE_MS: '50',
};

before(async () => {
  fake = await startFakeAnthropic();
  server = await startServer({ ...ENV, ANTHROPIC_BASE_URL: fake.url });
  alice = await server.user();
});
after(async () => {
  await server.close();
  await fake.close();
});

const messagesPath = (boardId: string, chatId: string) => `/v1/boards/${boardId}/chats/${chatId}/messages`;

async function makeChat(
  boardId: string,
  body: Record<string, unknown> = {},
  s: TestServer = server,
  user: TestUser = alice,
): Promise<string> {
  const res = await s.request<BodyOf<'/v1/boards/{boardId}/chats', 'post'>>('POST', `/v1/boards/${boardId}/chats`, {
    token: user.token,
    body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function note(boardId: string, data: Record<string, unknown>): Promise<string> {
  return (await server.makeNode(alice, boardId, { data })).id;
}

function postStream(boardId: string, chatId: string, content: string, signal?: AbortSignal) {
  return fetch(`${server.url}${messagesPath(boardId, chatId)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content, stream: true }),
    signal,
  });
}

async function messages(boardId: string, chatId: string, s: TestServer = server, user: TestUser = alice): Promise<Message[]> {
  const res = await s.request<MessageList>('GET', `${messagesPath(boardId, chatId)}?limit=100`, { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Requests to the fake made since `from`, streamed ones only. */
const streamedSince = (from: number) => fake.requests.slice(from).filter((r) => r.body.stream === true);

describe('anthropic: replies', () => {
  test('a JSON reply: content, model and the provider usage (pings skipped); the request is a proper Messages API call', async () => {
    const boardId = await server.makeBoard(alice);
    const chatId = await makeChat(boardId);
    const from = fake.requests.length;
    fake.script({
      kind: 'answer',
      deltas: ['The ', 'answer ', 'is ', '42', '.'],
      usage: { input_tokens: 120, output_tokens: 6, cache_read_input_tokens: 30 },
    });
    const res = await server.request<MessageCreated>('POST', messagesPath(boardId, chatId), {
      token: alice.token,
      body: { content: 'What is the answer?' },
    });
    assert.equal(res.status, 201, res.text);
    const m = res.body.data;
    assert.equal(m.role, 'assistant');
    assert.equal(m.content, 'The answer is 42.');
    assert.equal(m.model, 'claude-fake-1');
    // Cached prompt tokens count as prompt tokens.
    assert.deepEqual(m.metadata?.usage, { prompt_tokens: 150, completion_tokens: 6, total_tokens: 156 });
    assert.equal(m.metadata?.finish_reason, 'stop');
    assert.equal(fake.requests.length, from + 1, 'one upstream request, no retry');
    const { body, headers } = fake.requests.at(-1)!;
    assert.equal(apiKeyOf(headers), 'sk-ant-test-key');
    assert.ok(headers['anthropic-version'], 'anthropic-version header sent');
    assert.equal(body.model, 'claude-fake-1');
    assert.equal(body.stream, true);
    assert.ok(Number.isInteger(body.max_tokens) && body.max_tokens > 0);
    assert.equal(typeof body.system, 'string');
    assert.deepEqual(body.messages, [{ role: 'user', content: 'What is the answer?' }]);
    const chat = await server.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chatId}`, { token: alice.token });
    assert.equal(chat.body.data.metadata?.model, 'claude-fake-1');
    assert.equal(chat.body.data.metadata?.total_tokens, 156);
  });

  test('a streamed reply: deltas concatenate to the stored content; message.complete carries the provider usage', async () => {
    const boardId = await server.makeBoard(alice);
    const chatId = await makeChat(boardId);
    const deltas = ['Stream', 'ed ', 'from ', 'Claude', ', ', 'in ', 'pieces', '.'];
    fake.script({ kind: 'answer', deltas, usage: { input_tokens: 33, output_tokens: 8 }, stopReason: 'max_tokens' });
    const res = await postStream(boardId, chatId, 'Stream it');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    const events = await readEvents(res);
    assert.deepEqual(
      events.map((e) => e.event),
      [...deltas.map(() => 'message.delta'), 'message.complete'],
    );
    const text = events
      .filter((e) => e.event === 'message.delta')
      .map((e) => e.data.content)
      .join('');
    assert.equal(text, deltas.join(''));
    const complete = events.at(-1)!.data;
    assert.equal(complete.message.content, text);
    assert.equal(complete.message.model, 'claude-fake-1');
    assert.match(complete.message.created_at, TIMESTAMP);
    assert.deepEqual(complete.usage, { prompt_tokens: 33, completion_tokens: 8, total_tokens: 41 });
    const stored = (await messages(boardId, chatId)).at(-1);
    assert.ok(stored, 'the reply is stored');
    assert.equal(stored.id, complete.message.id);
    assert.equal(stored.content, text);
    assert.equal(stored.metadata?.finish_reason, 'length', 'max_tokens maps to length');
  });

  for (const [kind, what] of [
    ['error-event', 'an `error` event (overloaded_error) after the stream began'],
    ['fail-mid', 'a connection dropped mid-stream'],
    ['truncated', 'a stream that ends without message_stop'],
  ] as const) {
    test(`${what}: the error event, no assistant message stored, the chat usable again`, async () => {
      const boardId = await server.makeBoard(alice);
      const chatId = await makeChat(boardId);
      const from = fake.requests.length;
      fake.script({ kind, deltas: ['Half', ' of', ' it'] });
      const events = await readEvents(await postStream(boardId, chatId, `break: ${kind}`));
      // It failed after the reply began: the deltas came first, and it was not retried.
      assert.deepEqual(
        events.map((e) => e.event),
        ['message.delta', 'message.delta', 'message.delta', 'error'],
      );
      assert.equal(
        events
          .slice(0, 3)
          .map((e) => e.data.content)
          .join(''),
        'Half of it',
      );
      assert.equal(fake.requests.length, from + 1);
      assert.equal(events.at(-1)!.data.code, 'stream_error');
      if (kind === 'error-event') assert.match(events.at(-1)!.data.message, /overloaded_error/);
      assert.ok(!events.some((e) => e.event === 'message.complete'));
      assert.deepEqual(
        (await messages(boardId, chatId)).map((m) => m.role),
        ['user'],
      );
      // The same failure on a JSON reply is 502 upstream_error.
      fake.script({ kind, deltas: ['Half'] });
      const json = await server.request<ErrorBody>('POST', messagesPath(boardId, chatId), {
        token: alice.token,
        body: { content: 'again, as JSON' },
      });
      assert.equal(json.status, 502, json.text);
      assert.equal(json.body.code, 'upstream_error');
      fake.script({ kind: 'answer', deltas: ['Fine', ' now.'] });
      const ok = await server.request('POST', messagesPath(boardId, chatId), { token: alice.token, body: { content: 'and now?' } });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(
        (await messages(boardId, chatId)).map((m) => [m.role, m.role === 'assistant' ? m.content : '']),
        [
          ['user', ''],
          ['user', ''],
          ['user', ''],
          ['assistant', 'Fine now.'],
        ],
      );
    });
  }

  test('one 429 or 500 before the stream is retried by the SDK (LLM_MAX_RETRIES=1); repeated ones are 502 or the error event, nothing stored', async () => {
    const boardId = await server.makeBoard(alice);
    const chatId = await makeChat(boardId);
    for (const status of [429, 500]) {
      const from = fake.requests.length;
      fake.script({ kind: 'status', status, retryAfterMs: 1 }, { kind: 'answer', deltas: ['Recovered', '.'] });
      const res = await server.request<MessageCreated>('POST', messagesPath(boardId, chatId), {
        token: alice.token,
        body: { content: `retry ${status}` },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.content, 'Recovered.');
      assert.equal(fake.requests.length, from + 2, `${status} then the retry`);
    }
    const before = (await messages(boardId, chatId)).length;
    for (const status of [429, 500]) {
      fake.script({ kind: 'status', status, retryAfterMs: 1 }, { kind: 'status', status, retryAfterMs: 1 });
      const res = await server.request<ErrorBody>('POST', messagesPath(boardId, chatId), {
        token: alice.token,
        body: { content: `fail ${status}` },
      });
      assert.equal(res.status, 502, res.text);
      assert.ok(isErrorEnvelope(res.body, 502));
      assert.equal(res.body.code, 'upstream_error');
      assert.match(res.body.message, new RegExp(`HTTP ${status}`));
    }
    fake.script({ kind: 'status', status: 500, retryAfterMs: 1 }, { kind: 'status', status: 500, retryAfterMs: 1 });
    const events = await readEvents(await postStream(boardId, chatId, 'streamed 500'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['error'],
    );
    assert.equal(events[0]!.data.code, 'stream_error');
    // A 401 is not retried.
    const from = fake.requests.length;
    fake.script({ kind: 'status', status: 401 });
    const denied = await server.request('POST', messagesPath(boardId, chatId), { token: alice.token, body: { content: 'bad key' } });
    assert.equal(denied.status, 502);
    assert.equal(fake.requests.length, from + 1);
    const after = await messages(boardId, chatId);
    assert.equal(after.length, before + 4);
    assert.ok(after.slice(before).every((m) => m.role === 'user'));
  });

  test('a stalled provider times out: error event when streamed, 502 otherwise', async () => {
    const boardId = await server.makeBoard(alice);
    const chatId = await makeChat(boardId);
    fake.script({ kind: 'stall', deltas: ['Slow'] });
    const events = await readEvents(await postStream(boardId, chatId, 'stall'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['message.delta', 'error'],
    );
    assert.match(events[1]!.data.message, /did not answer within 1500 ms/);
    fake.script({ kind: 'stall' });
    const res = await server.request('POST', messagesPath(boardId, chatId), { token: alice.token, body: { content: 'stall again' } });
    assert.equal(res.status, 502);
    assert.ok((await messages(boardId, chatId)).every((m) => m.role === 'user'));
  });

  test('a client that disconnects aborts the upstream request; nothing is stored and the chat is free again', async () => {
    const boardId = await server.makeBoard(alice);
    const chatId = await makeChat(boardId);
    fake.script({ kind: 'answer', deltas: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 20 });
    const upstreamClosed = fake.nextAbort();
    const abortedBefore = fake.aborted;
    const controller = new AbortController();
    const res = await postStream(boardId, chatId, 'long one', controller.signal);
    const events = await readEvents(res, (e) => e.event === 'message.delta');
    assert.equal(events[0]!.event, 'message.delta');
    controller.abort();
    await upstreamClosed;
    assert.equal(fake.aborted, abortedBefore + 1);
    // The lease is released once the abort has propagated; a 409 never reaches the provider.
    fake.script({ kind: 'answer', deltas: ['Next', '.'] });
    let status = 409;
    for (let i = 0; i < 100 && status === 409; i++) {
      const next = await server.request('POST', messagesPath(boardId, chatId), { token: alice.token, body: { content: 'next' } });
      status = next.status;
      if (status === 409) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 201);
    assert.deepEqual(
      (await messages(boardId, chatId)).map((m) => [m.role, m.content]),
      [
        ['user', 'long one'],
        ['user', 'next'],
        ['assistant', 'Next.'],
      ],
    );
  });
});

describe('anthropic: the request the provider receives', () => {
  test("the system prompt holds the board's name, the chat's node and the relevant notes; turns alternate, starting with the user", async () => {
    const boardId = await server.makeBoard(alice, { name: 'Orchard notebook' });
    const nodeId = await note(boardId, { label: 'Pear trees', text: 'The pear trees are pruned in late February.' });
    await note(boardId, { text: 'Apple harvest starts in September, weather permitting.' });
    await note(boardId, { text: 'The tractor needs new tyres.' });
    const chatId = await makeChat(boardId, { node_id: nodeId });
    const from = fake.requests.length;

    fake.script({ kind: 'answer', deltas: ['Late ', 'February.'] });
    const first = await server.request('POST', messagesPath(boardId, chatId), {
      token: alice.token,
      body: { content: 'When are the pear trees pruned?' },
    });
    assert.equal(first.status, 201, first.text);
    const system1: string = streamedSince(from)[0]!.body.system;
    assert.match(system1, /Orchard notebook/);
    assert.match(system1, /Pear trees/);
    assert.match(system1, /pruned in late February/);

    // A failed reply leaves two user turns in a row; the Messages API refuses that, so they are merged.
    fake.script({ kind: 'status', status: 400 });
    assert.equal(
      (await server.request('POST', messagesPath(boardId, chatId), { token: alice.token, body: { content: 'And the apple harvest?' } }))
        .status,
      502,
    );
    fake.script({ kind: 'answer', deltas: ['September.'] });
    const third = await server.request('POST', messagesPath(boardId, chatId), {
      token: alice.token,
      body: { content: 'When does the apple harvest start?' },
    });
    assert.equal(third.status, 201, third.text);
    const last = streamedSince(from).at(-1)!.body;
    assert.match(last.system, /Apple harvest starts in September/);
    const roles = last.messages.map((m: { role: string }) => m.role);
    assert.equal(roles[0], 'user');
    assert.ok(
      roles.every((r: string, i: number) => i === 0 || r !== roles[i - 1]),
      `alternating roles: ${roles}`,
    );
    assert.deepEqual(last.messages.slice(0, 2), [
      { role: 'user', content: 'When are the pear trees pruned?' },
      { role: 'assistant', content: 'Late February.' },
    ]);
    assert.equal(last.messages.at(-1).role, 'user');
    assert.match(last.messages.at(-1).content, /And the apple harvest\?\n\nWhen does the apple harvest start\?$/);
  });
});

describe('anthropic: memory', () => {
  // Its own server with a small context budget; its own embedded database in the wire run too.
  let small: TestServer;
  let user: TestUser;
  before(async () => {
    small = await startServer({
      ...ENV,
      ANTHROPIC_BASE_URL: fake.url,
      LLM_CONTEXT_TOKENS: '400',
      LLM_MAX_TOKENS: '50',
      DATABASE_URL: '',
    });
    user = await small.user();
  });
  after(() => small.close());

  test('a long chat asks the model to condense older turns (non-streamed Messages call) and sends the memory in the system prompt', async () => {
    const boardId = await small.makeBoard(user);
    const chatId = await makeChat(boardId, {}, small, user);
    const from = fake.requests.length;
    fake.plainAnswer = '- The code word for the vault is heliotrope.\n- The user keeps facts in order.';
    for (let i = 0; i < 8; i++) {
      fake.script({ kind: 'answer', deltas: ['Noted: ', 'fact ', `${i}.`] });
      const res = await small.request('POST', messagesPath(boardId, chatId), {
        token: user.token,
        body: { content: `Fact number ${i}: remember ${'lorem ipsum '.repeat(15)}` },
      });
      assert.equal(res.status, 201, res.text);
    }
    const condense = fake.requests.slice(from).filter((r) => r.body.stream !== true);
    assert.ok(condense.length > 0, 'the model was asked to condense');
    assert.equal(condense[0]!.body.system, CONDENSE_SYSTEM);
    assert.equal(condense[0]!.body.messages[0].role, 'user');
    assert.match(condense[0]!.body.messages[0].content, /^User: Fact number 0/);
    const chat = await small.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chatId}`, { token: user.token });
    assert.ok(chat.body.data.memory.includes('The code word for the vault is heliotrope.'), JSON.stringify(chat.body.data.memory));
    const last = streamedSince(from).at(-1)!.body;
    assert.match(last.system, /remember from earlier[\s\S]*heliotrope/);
    assert.ok(last.messages.length < 16, 'older turns are no longer sent verbatim');
    assert.equal(last.messages[0].role, 'user');
    assert.equal((await messages(boardId, chatId, small, user)).length, 16);
  });
});
