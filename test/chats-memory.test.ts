// Chat memory: with a small LLM_CONTEXT_TOKENS, older turns are condensed into `memory` (here by the
// fake OpenAI-compatible model) and no longer sent verbatim, while the prompt carries the memory.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BodyOf, ChatBody, MessageList } from './helpers/api-types.js';
import { startServer, type TestServer } from './helpers/harness.js';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.js';

let server: TestServer;
let fake: FakeOpenAi;

before(async () => {
  fake = await startFakeOpenAi();
  server = await startServer({
    LLM_PROVIDER: 'openai',
    LLM_MODEL: 'fake-gpt',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: 'sk-test',
    LLM_MAX_RETRIES: '0',
    LLM_CONTEXT_TOKENS: '400',
    LLM_MAX_TOKENS: '50',
  });
});
after(async () => {
  await server.close();
  await fake.close();
});

test('a long chat condenses older turns into memory; the prompt holds memory and stays within budget', async () => {
  const user = await server.user();
  const boardId = await server.makeBoard(user);
  const chatRes = await server.request<BodyOf<'/v1/boards/{boardId}/chats', 'post'>>('POST', `/v1/boards/${boardId}/chats`, {
    token: user.token,
    body: {},
  });
  const chatId = chatRes.body.data.id;
  fake.fallback = { kind: 'answer', deltas: ['Noted: ', 'the ', 'code ', 'word ', 'is ', 'kept.'] };
  for (let i = 0; i < 8; i++) {
    const res = await server.request('POST', `/v1/boards/${boardId}/chats/${chatId}/messages`, {
      token: user.token,
      body: { content: `Fact number ${i}: the code word ${i} is ${'lorem ipsum '.repeat(15)}` },
    });
    assert.equal(res.status, 201, res.text);
  }
  const chat = await server.request<ChatBody>('GET', `/v1/boards/${boardId}/chats/${chatId}`, { token: user.token });
  assert.ok(chat.body.data.memory.length > 0, 'memory grew');
  assert.ok(
    fake.requests.some((r) => !r.body.stream),
    'the model was asked to condense',
  );
  const last = fake.requests.filter((r) => r.body.stream).at(-1)!.body;
  assert.match(last.messages[0].content, /remember from earlier/);
  assert.ok(last.messages.length < 16, 'older turns are no longer sent verbatim');
  // Everything ever said is still listed.
  const messages = await server.request<MessageList>('GET', `/v1/boards/${boardId}/chats/${chatId}/messages?limit=100`, {
    token: user.token,
  });
  assert.equal(messages.body.data.length, 16);
});
