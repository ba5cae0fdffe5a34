// The default, local chat model: a grounded extractive answerer with no network. It quotes the note
// that answers the question (and names it), cites stored document chunks in metadata.sources,
// says plainly when the board holds nothing relevant, and streams like any provider.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOTHING_RELEVANT } from '../src/providers/llm/local.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './helpers/fake-embeddings.js';
import type { BodyOf, DocumentList, JobBody, Message, MessageCreated, ReplyMetadata } from './helpers/api-types.js';
import { startServer, type TestServer, type TestUser, useServer } from './helpers/harness.js';
import { readEvents } from './helpers/fake-openai.js';

const server = useServer();
let alice: TestUser;

before(async () => {
  alice = await server.user();
});

async function note(boardId: string, text: string, label?: string): Promise<string> {
  return (await server.makeNode(alice, boardId, { data: { text, ...(label ? { label } : {}) } })).id;
}

type ChatCreated = BodyOf<'/v1/boards/{boardId}/chats', 'post'>;

/** An assistant message's metadata; fails the test when the message has none. */
function meta(message: Message): ReplyMetadata {
  assert.ok(message.metadata, 'the reply has metadata');
  return message.metadata as ReplyMetadata;
}

async function ask(boardId: string, chatId: string, content: string): Promise<Message> {
  const res = await server.request<MessageCreated>('POST', `/v1/boards/${boardId}/chats/${chatId}/messages`, {
    token: alice.token,
    body: { content },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function chat(boardId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await server.request<ChatCreated>('POST', `/v1/boards/${boardId}/chats`, { token: alice.token, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

describe('local model', () => {
  test('quotes the right note on a board with several notes, names it, and counts tokens', async () => {
    const boardId = await server.makeBoard(alice);
    await note(boardId, 'The quarterly budget review happens every March. Finance owns it.', 'Budget');
    await note(boardId, 'Our office dog is called Biscuit. She likes long walks.', 'Office life');
    await note(boardId, 'Deployments run on Tuesdays after the standup. Rollbacks need two approvals.', 'Release process');
    const chatId = await chat(boardId);
    const reply = await ask(boardId, chatId, 'When do deployments run?');
    assert.equal(reply.model, 'local-extractive-1');
    assert.match(reply.content, /Deployments run on Tuesdays after the standup\./);
    assert.match(reply.content, /Release process/);
    assert.doesNotMatch(reply.content, /Biscuit|budget review/);
    const { usage } = meta(reply);
    assert.ok(Number.isInteger(usage.prompt_tokens) && usage.prompt_tokens > 0);
    assert.ok(Number.isInteger(usage.completion_tokens) && usage.completion_tokens > 0);
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    assert.equal(meta(reply).finish_reason, 'stop');
    const dog = await ask(boardId, chatId, "What is the dog's name?");
    assert.match(dog.content, /Biscuit/);
    assert.doesNotMatch(dog.content, /Tuesdays/);
  });

  test('says plainly when the board holds nothing relevant', async () => {
    const boardId = await server.makeBoard(alice);
    await note(boardId, 'Bananas are yellow.');
    const reply = await ask(boardId, await chat(boardId), 'How do quantum computers factor integers?');
    assert.equal(reply.content, NOTHING_RELEVANT);
    assert.deepEqual(meta(reply).sources, []);
  });

  test("prefers the chat's own node", async () => {
    const boardId = await server.makeBoard(alice);
    const a = await note(boardId, 'Project Alpha ships in June.', 'Alpha');
    await note(boardId, 'Project Beta ships in December.', 'Beta');
    const reply = await ask(boardId, await chat(boardId, { node_id: a }), 'When does the project ship?');
    assert.match(reply.content, /^From the board:\n- "Project Alpha ships in June\."/);
  });

  test('streams deltas that concatenate to the stored reply', async () => {
    const boardId = await server.makeBoard(alice);
    await note(boardId, 'The wifi password is on the fridge.', 'Home');
    const chatId = await chat(boardId);
    const res = await fetch(`${server.url}/v1/boards/${boardId}/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Where is the wifi password?', stream: true }),
    });
    const events = await readEvents(res);
    const text = events
      .filter((e) => e.event === 'message.delta')
      .map((e) => e.data.content)
      .join('');
    assert.ok(events.filter((e) => e.event === 'message.delta').length > 3);
    assert.match(text, /fridge/);
    const complete = events.at(-1)!;
    assert.equal(complete.event, 'message.complete');
    assert.equal(complete.data.message.content, text);
  });

  test('quotes vectorized document chunks and lists their ids in metadata.sources', async () => {
    const boardId = await server.makeBoard(alice);
    const job = await server.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, {
      token: alice.token,
      body: {
        text: 'The reactor coolant pump must be inspected every 90 days. Inspection logs go to the safety office.',
        source: 'Maintenance manual',
      },
    });
    assert.equal(job.status, 202, job.text);
    let status = 'processing';
    for (let i = 0; i < 200 && status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await server.request<JobBody>('GET', `/v1/jobs/${job.body.data.id}`, { token: alice.token })).body.data.status;
    }
    assert.equal(status, 'completed');
    const chunks = await server.request<DocumentList>('GET', `/v1/boards/${boardId}/documents`, { token: alice.token });
    const ids = chunks.body.data.map((c) => c.id);
    const reply = await ask(boardId, await chat(boardId), 'How often is the coolant pump inspected?');
    assert.match(reply.content, /every 90 days/);
    assert.match(reply.content, /Maintenance manual/);
    assert.ok(meta(reply).sources.length > 0);
    for (const id of meta(reply).sources) assert.ok(ids.includes(id));
    assert.equal(meta(reply).retrieval, 'ok');
  });
});

describe('embedding provider down', () => {
  let fake: FakeEmbeddings;
  let withRemote: TestServer;
  let bob: TestUser;

  before(async () => {
    fake = await startFakeEmbeddings(8);
    // Its own embedded database even in the wire run, whose server takes one connection at a time
    // and is held by this file's first server.
    withRemote = await startServer({
      DATABASE_URL: '',
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: fake.url,
      EMBEDDINGS_API_KEY: 'sk-test',
      EMBEDDINGS_MODEL: 'fake-embed',
      EMBEDDINGS_DIMENSIONS: '8',
      JOB_POLL_MS: '50',
    });
    bob = await withRemote.user();
  });
  after(async () => {
    await withRemote.close();
    await fake.close();
  });

  test('the reply is made without retrieved chunks and says so in metadata', async () => {
    const boardId = await withRemote.makeBoard(bob);
    const vectorized = await withRemote.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, {
      token: bob.token,
      body: { text: 'The lighthouse keeper lights the lamp at dusk every evening.' },
    });
    assert.equal(vectorized.status, 202, vectorized.text);
    assert.equal((await withRemote.waitForJob(vectorized.body.data.id, bob.token)).status, 'completed');
    const chat = await withRemote.request<ChatCreated>('POST', `/v1/boards/${boardId}/chats`, { token: bob.token, body: {} });
    const askBob = (content: string) =>
      withRemote.request<MessageCreated>('POST', `/v1/boards/${boardId}/chats/${chat.body.data.id}/messages`, {
        token: bob.token,
        body: { content },
      });

    const up = await askBob('When does the keeper light the lamp?');
    assert.equal(up.status, 201, up.text);
    assert.equal(meta(up.body.data).retrieval, 'ok');
    assert.ok(meta(up.body.data).sources.length > 0, 'with the provider up the chunk is used');

    fake.failing = true;
    try {
      const down = await askBob('When does the keeper light the lamp?');
      assert.equal(down.status, 201, down.text);
      assert.equal(down.body.data.role, 'assistant');
      assert.ok(down.body.data.content.length > 0);
      assert.equal(meta(down.body.data).retrieval, 'unavailable');
      assert.deepEqual(meta(down.body.data).sources, []);
    } finally {
      fake.failing = false;
    }
  });
});
