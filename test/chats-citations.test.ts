// Citations in chat replies (markers `[n]` resolved in metadata.sources and metadata.citations, each
// with the exact quote from its chunk) for the local answerer, an OpenAI-compatible model (fake,
// markers it writes itself, the ones naming no passage dropped) and Anthropic (fake, its citations
// feature: documents with citations enabled, streamed citations_delta events); and chats limited
// to a selection of nodes (node_ids on the chat and on a message).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from './helpers/fake-anthropic.js';
import { readEvents, startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.js';
import type { BodyOf, DocumentList, JobBody, Message, MessageCreated, MessageList, ReplyMetadata } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, type TestServer, type TestUser } from './helpers/harness.js';

let local: TestServer;
let openai: TestServer;
let anthropic: TestServer;
let fakeOpenAi: FakeOpenAi;
let fakeAnthropic: FakeAnthropic;

before(async () => {
  fakeOpenAi = await startFakeOpenAi();
  fakeAnthropic = await startFakeAnthropic();
  [local, openai, anthropic] = await Promise.all([
    startServer(),
    startServer({ LLM_PROVIDER: 'openai', LLM_MODEL: 'gpt-fake', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fakeOpenAi.url}/v1` }),
    startServer({
      LLM_PROVIDER: 'anthropic',
      LLM_MODEL: 'claude-fake-1',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: fakeAnthropic.url,
    }),
  ]);
});
after(async () => {
  await Promise.all([local?.close(), openai?.close(), anthropic?.close()]);
  await fakeOpenAi?.close();
  await fakeAnthropic?.close();
});

const meta = (m: Message) => m.metadata as ReplyMetadata;

/** A note, vectorized with its own text (its chunks name it). */
async function searchableNote(s: TestServer, user: TestUser, boardId: string, text: string, label: string): Promise<string> {
  const { id } = await s.makeNode(user, boardId, { data: { text, label } });
  const job = await s.request<JobBody>('POST', `/v1/boards/${boardId}/documents`, { token: user.token, body: { text, node_id: id } });
  assert.equal(job.status, 202, job.text);
  assert.equal((await s.waitForJob(job.body.data.id, user.token)).status, 'completed');
  return id;
}

async function chunksOf(s: TestServer, user: TestUser, boardId: string) {
  const res = await s.request<DocumentList>('GET', `/v1/boards/${boardId}/documents?limit=100`, { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function newChat(s: TestServer, user: TestUser, boardId: string, body: Record<string, unknown> = {}) {
  return s.request<BodyOf<'/v1/boards/{boardId}/chats', 'post'>>('POST', `/v1/boards/${boardId}/chats`, { token: user.token, body });
}

async function ask(s: TestServer, user: TestUser, boardId: string, chatId: string, body: Record<string, unknown>) {
  return s.request<MessageCreated>('POST', `/v1/boards/${boardId}/chats/${chatId}/messages`, { token: user.token, body });
}

/** Every marker of the content names a citation, every citation is named, and each quote stands in its chunk. */
async function assertCitationsHold(s: TestServer, user: TestUser, boardId: string, reply: Message) {
  const { sources, citations } = meta(reply);
  assert.equal(citations.length, sources.length, 'citations aligned with sources');
  const markers = new Set([...reply.content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  assert.deepEqual([...markers].sort(), citations.map((c) => c.n).sort(), 'each marker resolves, each citation is marked');
  const chunks = new Map((await chunksOf(s, user, boardId)).map((c) => [c.id, c]));
  for (const [i, c] of citations.entries()) {
    assert.equal(c.n, i + 1);
    assert.equal(c.chunk_id, sources[i]);
    const chunk = chunks.get(c.chunk_id);
    assert.ok(chunk, 'the citation names a chunk of the board');
    assert.equal(c.node_id, chunk.node_id);
    assert.ok(c.quote.length > 0 && chunk.content.includes(c.quote), `the quote "${c.quote}" stands in its chunk`);
    const start = (chunk.metadata as { char_start?: number }).char_start;
    if (typeof start === 'number') {
      assert.equal(c.char_start, start + chunk.content.indexOf(c.quote));
      assert.equal(c.char_end, c.char_start! + c.quote.length);
    }
  }
}

describe('local answerer', () => {
  let alice: TestUser;
  before(async () => {
    alice = await local.user();
  });

  test('marks each quote with [n], resolved in sources and citations with the exact quote', async () => {
    const boardId = await local.makeBoard(alice);
    const pumps = await searchableNote(
      local,
      alice,
      boardId,
      'The reactor coolant pump must be inspected every 90 days.\nInspection logs go to the safety office.',
      'Maintenance',
    );
    await searchableNote(local, alice, boardId, 'Our office dog is called Biscuit.', 'Office');
    const chat = await newChat(local, alice, boardId);
    const reply = await ask(local, alice, boardId, chat.body.data.id, { content: 'How often is the coolant pump inspected?' });
    assert.equal(reply.status, 201, reply.text);
    const message = reply.body.data;
    assert.match(message.content, /every 90 days\." \(Maintenance\) \[1\]/);
    assert.equal(meta(message).citations[0]!.node_id, pumps);
    assert.equal(meta(message).citations[0]!.quote, 'The reactor coolant pump must be inspected every 90 days.');
    await assertCitationsHold(local, alice, boardId, message);
  });

  test('streamed: the deltas hold the markers, message.complete carries the citations', async () => {
    const boardId = await local.makeBoard(alice);
    await searchableNote(local, alice, boardId, 'Zinc lozenges shorten colds by a day. Vitamin C does little.', 'Colds');
    const chat = await newChat(local, alice, boardId);
    const res = await fetch(`${local.url}/v1/boards/${boardId}/chats/${chat.body.data.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Do zinc lozenges shorten colds?', stream: true }),
    });
    const events = await readEvents(res);
    const text = events
      .filter((e) => e.event === 'message.delta')
      .map((e) => e.data.content)
      .join('');
    const complete = events.at(-1)!;
    assert.equal(complete.event, 'message.complete');
    assert.equal(complete.data.message.content, text);
    assert.match(text, /\[1\]/);
    assert.equal(complete.data.message.metadata.citations[0].quote, 'Zinc lozenges shorten colds by a day.');
    const stored = await local.request<MessageList>('GET', `/v1/boards/${boardId}/chats/${chat.body.data.id}/messages`, {
      token: alice.token,
    });
    assert.deepEqual(stored.body.data.at(-1)!.metadata, complete.data.message.metadata);
  });
});

describe('chats limited to a selection (node_ids)', () => {
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    [alice, bob] = await Promise.all([local.user(), local.user()]);
  });

  test('a chat with node_ids draws only on those nodes; a message with node_ids on its own for that turn', async () => {
    const boardId = await local.makeBoard(alice);
    const garden = await searchableNote(local, alice, boardId, 'The garden tomatoes need water every morning.', 'Garden');
    const roof = await searchableNote(local, alice, boardId, 'The roof tiles need water tight sealing every autumn.', 'Roof');
    const created = await newChat(local, alice, boardId, { node_ids: [garden, garden] });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.node_ids, [garden], 'stored once each');
    const chatId = created.body.data.id;

    const first = await ask(local, alice, boardId, chatId, { content: 'What needs water every autumn on the roof?' });
    assert.equal(first.status, 201, first.text);
    assert.doesNotMatch(first.body.data.content, /roof tiles/i);
    assert.ok(meta(first.body.data).citations.every((c) => c.node_id === garden));

    const turn = await ask(local, alice, boardId, chatId, { content: 'What needs water every autumn on the roof?', node_ids: [roof] });
    assert.equal(turn.status, 201, turn.text);
    assert.match(turn.body.data.content, /roof tiles/);
    assert.ok(meta(turn.body.data).citations.length > 0);
    assert.ok(meta(turn.body.data).citations.every((c) => c.node_id === roof));

    const read = await local.request<BodyOf<'/v1/boards/{boardId}/chats/{chatId}', 'get'>>('GET', `/v1/boards/${boardId}/chats/${chatId}`, {
      token: alice.token,
    });
    assert.deepEqual(read.body.data.node_ids, [garden], "a message's node_ids do not change the chat's");
  });

  test('node_ids naming a node of another board, none, or too many: 400, and nothing is stored', async () => {
    const boardId = await local.makeBoard(alice);
    const mine = (await local.makeNode(alice, boardId, { data: { text: 'here' } })).id;
    const otherBoard = await local.makeBoard(bob);
    const elsewhere = (await local.makeNode(bob, otherBoard, { data: { text: 'there' } })).id;
    const ids = Array.from({ length: 101 }, () => crypto.randomUUID());
    for (const node_ids of [[elsewhere], [], ids, ['not-a-uuid']]) {
      const res = await newChat(local, alice, boardId, { node_ids });
      assert.ok(isErrorEnvelope(res.body, 400), res.text);
    }
    const list = await local.request<BodyOf<'/v1/boards/{boardId}/chats', 'get'>>('GET', `/v1/boards/${boardId}/chats`, {
      token: alice.token,
    });
    assert.equal(list.body.data.length, 0);

    const chatId = (await newChat(local, alice, boardId, { node_ids: [mine] })).body.data.id;
    for (const node_ids of [[elsewhere], [mine, elsewhere], []]) {
      const res = await ask(local, alice, boardId, chatId, { content: 'hello', node_ids });
      assert.ok(isErrorEnvelope(res.body, 400), res.text);
    }
    const messages = await local.request<MessageList>('GET', `/v1/boards/${boardId}/chats/${chatId}/messages`, { token: alice.token });
    assert.equal(messages.body.data.length, 0, 'a refused message is not stored');
    // Another user's chat id with valid node ids stays "not found", not "invalid".
    const theirs = await ask(local, bob, boardId, chatId, { content: 'hello', node_ids: [mine] });
    assert.ok(isErrorEnvelope(theirs.body, 404), theirs.text);
  });
});

describe('OpenAI-compatible model', () => {
  test('numbered excerpts in the prompt; its markers renumbered, the ones naming no passage dropped, in deltas and content alike', async () => {
    const alice = await openai.user();
    const boardId = await openai.makeBoard(alice);
    await searchableNote(openai, alice, boardId, 'Coolant pumps are inspected every 90 days by the night shift.', 'Pumps');
    await searchableNote(openai, alice, boardId, 'Inspection logs are filed with the safety office each Friday.', 'Logs');
    const chatId = (await newChat(openai, alice, boardId)).body.data.id;
    fakeOpenAi.script({
      kind: 'answer',
      deltas: ['Pumps are checked every 90 days ', '[', '2]', '[7]. Logs go to the safety', ' office [1].'],
    });
    const from = fakeOpenAi.requests.length;
    const res = await fetch(`${openai.url}/v1/boards/${boardId}/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'How often are pumps inspected and where do logs go?', stream: true }),
    });
    const events = await readEvents(res);
    const deltas = events.filter((e) => e.event === 'message.delta').map((e) => e.data.content as string);
    const message = events.at(-1)!.data.message as Message;
    assert.equal(deltas.join(''), message.content);
    assert.ok(!deltas.some((d) => d.includes('[7')), 'the bad marker never reaches the client');
    assert.equal(message.content, 'Pumps are checked every 90 days [1]. Logs go to the safety office [2].');

    const system: string = fakeOpenAi.requests[from]!.body.messages[0].content;
    const numbered = new Map([...system.matchAll(/^\[(\d+)\] \((.*?)\) (.*)$/gm)].map((m) => [Number(m[1]), m[3]!]));
    assert.equal(numbered.size, 2, 'both excerpts numbered in the prompt');
    assert.match(system, /square brackets/);
    const chunks = await chunksOf(openai, alice, boardId);
    const idOf = (content: string) => chunks.find((c) => c.content === content)!.id;
    const { sources, citations } = meta(message);
    assert.deepEqual(sources, [idOf(numbered.get(2)!), idOf(numbered.get(1)!)], 'sources in the order cited');
    assert.match(citations[0]!.quote, /^\S/);
    await assertCitationsHold(openai, alice, boardId, message);
  });
});

describe('Anthropic citations', () => {
  test('chunks go as documents with citations enabled; each cited block ends with its marker and quotes cited_text', async () => {
    const alice = await anthropic.user();
    const boardId = await anthropic.makeBoard(alice);
    const text = 'Coolant pumps are inspected every 90 days. The night shift does it.';
    const pumps = await searchableNote(anthropic, alice, boardId, text, 'Pumps');
    const chatId = (await newChat(anthropic, alice, boardId)).body.data.id;
    const from = fakeAnthropic.requests.length;
    fakeAnthropic.script({
      kind: 'cited',
      blocks: [
        { text: 'According to the board, ' },
        { text: 'pumps are inspected every 90 days', cite: { document: 0, start: 0, end: 43 } },
        { text: '.' },
      ],
    });
    const reply = await ask(anthropic, alice, boardId, chatId, { content: 'How often are the pumps inspected?' });
    assert.equal(reply.status, 201, reply.text);
    const body = fakeAnthropic.requests[from]!.body;
    const last = body.messages.at(-1);
    const documents = last.content.filter((b: { type: string }) => b.type === 'document');
    assert.equal(documents.length, 1);
    assert.deepEqual(documents[0].citations, { enabled: true });
    assert.deepEqual(documents[0].source, { type: 'text', media_type: 'text/plain', data: text });
    assert.equal(last.content.at(-1).text, 'How often are the pumps inspected?');
    assert.doesNotMatch(body.system, /Relevant document excerpts/, 'the excerpts are not sent twice');

    const message = reply.body.data;
    assert.equal(message.content, 'According to the board, pumps are inspected every 90 days [1].');
    const [citation] = meta(message).citations;
    assert.equal(citation!.quote, 'Coolant pumps are inspected every 90 days.');
    assert.equal(citation!.node_id, pumps);
    await assertCitationsHold(anthropic, alice, boardId, message);
  });
});
