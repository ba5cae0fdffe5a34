// A representative session against the running service: every route of the OpenAPI document, with
// success and error answers, each answer checked against /v1/openapi.json by an independent
// validator (helpers/openapi-validator.ts). A route the session does not reach with a 2xx (and, when
// it needs credentials, a 4xx) fails the last test, so the document cannot drift from what is sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { postParts } from './helpers/assets.js';
import type { AssetBody, BoardBody, ChatBody, EdgeBody, JobBody, NodeBody } from './helpers/api-types.js';
import { MISSING_ID, useServer, type TestUser } from './helpers/harness.js';
import { type Document, ResponseValidator } from './helpers/openapi-validator.js';

const server = useServer();
let validator: ResponseValidator;
const reached = new Map<string, Set<string>>();
const problems: string[] = [];
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  const doc = await fetch(`${server.url}/v1/openapi.json`);
  validator = new ResponseValidator((await doc.json()) as Document);
  bob = await server.user();
});

after(() => {
  // Printed for whoever reads a failure of the last test.
  if (problems.length > 0) console.error(problems.join('\n'));
});

/** Sends a request through real HTTP and checks the answer against the document. */
async function call<T = unknown>(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; raw?: Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: T; text: string }> {
  const token = options.token === null ? undefined : (options.token ?? alice.token);
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  record(method, path, res.status, res.headers, text);
  const isJson = res.headers.get('content-type')?.startsWith('application/json');
  return { status: res.status, headers: res.headers, body: (isJson ? JSON.parse(text) : undefined) as T, text };
}

function record(method: string, path: string, status: number, headers: Headers, text: string): void {
  const checked = validator.check(method, path, status, headers, text);
  problems.push(...checked.problems);
  if (checked.operation) {
    const classes = reached.get(checked.operation) ?? new Set();
    classes.add(`${String(status)[0]}xx`);
    reached.set(checked.operation, classes);
  }
}

/** A stream's head: its status, headers and first event are checked, then it is closed. */
async function openStream(path: string, token = alice.token): Promise<void> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  controller.abort();
  record('GET', path, res.status, res.headers, new TextDecoder().decode(first.value));
  assert.equal(res.status, 200);
}

const expect = (res: { status: number; text: string }, status: number) => assert.equal(res.status, status, res.text);

test('meta and sign-in', async () => {
  expect(await call('GET', '/v1/openapi.json', { token: null }), 200);
  expect(await call('GET', '/v1/ping', { token: null }), 200);
  expect(await call('GET', '/healthz', { token: null }), 200);
  expect(await call('GET', '/v1/auth/config', { token: null }), 200);
  const email = `session-${Date.now()}@example.com`;
  const signup = await call('POST', '/v1/auth/signup', { token: null, body: { email, password: 'a long enough password' } });
  expect(signup, 201);
  expect(await call('POST', '/v1/auth/signup', { token: null, body: { email, password: 'short' } }), 400);
  const login = await call('POST', '/v1/auth/login', { token: null, body: { email, password: 'a long enough password' } });
  expect(login, 200);
  expect(await call('POST', '/v1/auth/login', { token: null, body: { email, password: 'the wrong password' } }), 401);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  expect(await call('POST', '/v1/auth/refresh', { token: null, headers: { cookie } }), 200);
  expect(await call('POST', '/v1/auth/refresh', { token: null, headers: { cookie: 'bw_refresh=not-a-token' } }), 401);
  expect(await call('POST', '/v1/auth/logout', { token: null, headers: { cookie } }), 204);
  expect(await call('GET', '/v1/me'), 200);
  expect(await call('GET', '/v1/me', { token: null }), 401);
  expect(await call('GET', '/v1/me/usage'), 200);
  expect(await call('GET', '/v1/me/usage', { token: null }), 401);
});

test('API keys', async () => {
  const made = await call<{ data: { id: string } }>('POST', '/v1/me/api-keys', { body: { name: 'session', scopes: ['read'] } });
  expect(made, 201);
  expect(await call('POST', '/v1/me/api-keys', { body: { name: 'session', scopes: ['everything'] } }), 400);
  expect(await call('GET', '/v1/me/api-keys'), 200);
  expect(await call('GET', '/v1/me/api-keys?limit=0'), 400);
  expect(await call('DELETE', `/v1/me/api-keys/${made.body.data.id}`), 200);
  expect(await call('DELETE', `/v1/me/api-keys/${MISSING_ID}`), 404);
});

test('webhooks', async () => {
  // Only board.deleted, which this session never sends: no delivery is attempted.
  const made = await call<{ data: { id: string } }>('POST', '/v1/webhooks', {
    body: { url: 'https://hooks.example.com/session', event_types: ['board.deleted'] },
  });
  expect(made, 201);
  expect(await call('POST', '/v1/webhooks', { body: { url: 'http://hooks.example.com/session' } }), 400);
  expect(await call('GET', '/v1/webhooks'), 200);
  expect(await call('GET', '/v1/webhooks?limit=0'), 400);
  expect(await call('GET', `/v1/webhooks/${made.body.data.id}`), 200);
  expect(await call('GET', `/v1/webhooks/${MISSING_ID}`), 404);
  expect(await call('GET', `/v1/webhooks/${made.body.data.id}/deliveries`), 200);
  expect(await call('GET', `/v1/webhooks/${MISSING_ID}/deliveries`), 404);
  expect(await call('DELETE', `/v1/webhooks/${made.body.data.id}`), 200);
  expect(await call('DELETE', `/v1/webhooks/${MISSING_ID}`), 404);
});

test('boards, nodes, edges, events and presence', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Session', is_public: true, public_access_level: 'edit' } });
  expect(board, 201);
  const b = `/v1/boards/${board.body.data.id}`;
  expect(await call('POST', '/v1/boards', { body: { name: '' } }), 400);
  expect(await call('GET', '/v1/boards'), 200);
  expect(await call('GET', '/v1/boards?cursor=nonsense'), 400);
  const note = await call<NodeBody>('POST', `${b}/nodes`, { body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'one' } } });
  expect(note, 201);
  const other = await call<NodeBody>('POST', `${b}/nodes`, {
    body: { type: 'url', position: { x: 9, y: 9 }, data: { url: 'https://example.com' } },
  });
  expect(other, 201);
  expect(await call('POST', `${b}/nodes`, { body: { type: 'nothing', position: { x: 0, y: 0 } } }), 400);
  expect(await call('GET', `${b}/nodes`), 200);
  expect(await call('GET', `${b}/nodes?type=wrong`), 400);
  const n = `${b}/nodes/${note.body.data.id}`;
  expect(await call('GET', n), 200);
  expect(await call('GET', `${b}/nodes/${MISSING_ID}`), 404);
  expect(await call('PATCH', n, { body: { position: { x: 5, y: 5 } } }), 200);
  expect(await call('PATCH', n, { body: {} }), 400);
  const edge = await call<EdgeBody>('POST', `${b}/edges`, {
    body: { source_node_id: note.body.data.id, target_node_id: other.body.data.id, data: { label: 'to' } },
  });
  expect(edge, 201);
  expect(await call('POST', `${b}/edges`, { body: { source_node_id: note.body.data.id, target_node_id: MISSING_ID } }), 400);
  expect(await call('GET', `${b}/edges`), 200);
  expect(await call('GET', `${b}/edges?node_id=x`), 400);
  const e = `${b}/edges/${edge.body.data.id}`;
  expect(await call('GET', e), 200);
  expect(await call('GET', `${b}/edges/${MISSING_ID}`), 404);
  expect(await call('PATCH', e, { body: { type: 'curved' } }), 200);
  expect(await call('PATCH', e, { body: { nothing: 1 } }), 400);

  // The board as its owner reads it (flow_state, assembled by hand) and as another user.
  expect(await call('GET', b), 200);
  expect(await call('GET', b, { token: bob.token }), 200);
  expect(await call('GET', `/v1/boards/${MISSING_ID}`), 404);
  expect(await call('PATCH', b, { body: { viewport_zoom: 2 } }), 200);
  expect(await call('PATCH', b, { token: bob.token, body: { name: 'not mine' } }), 403);

  expect(await call('GET', `${b}/events?after=0`), 200);
  expect(await call('GET', `${b}/events?limit=9999`), 400);
  await openStream(`${b}/events`);
  await openStream(`${b}/events?after=1`);
  expect(await call('PUT', `${b}/presence`, { body: { session_id: 'session-tab-1', cursor: { x: 1, y: 2 } } }), 200);
  expect(await call('PUT', `${b}/presence`, { body: { session_id: 'no' } }), 400);
  expect(await call('DELETE', `${b}/presence/session-tab-1`), 200);
  expect(await call('DELETE', `/v1/boards/${MISSING_ID}/presence/session-tab-1`), 404);

  expect(await call('DELETE', e), 200);
  expect(await call('DELETE', e), 200); // deleted already: a repeated delete succeeds
  expect(await call('DELETE', `${b}/edges/${MISSING_ID}`), 404);
  expect(await call('DELETE', n), 200);
  expect(await call('DELETE', `${b}/nodes/${MISSING_ID}`), 404);
  const batch = await call('POST', `${b}/batch`, {
    body: {
      operations: [
        { op: 'create_node', ref: 'x', type: 'note', position: { x: 1, y: 1 }, data: { text: 'x' } },
        { op: 'delete_node', id: other.body.data.id },
      ],
    },
  });
  expect(batch, 200);
  expect(await call('POST', `${b}/batch`, { body: { operations: [{ op: 'delete_edge', id: MISSING_ID }] } }), 404);
  const exported = await call('GET', `${b}/export?format=jsoncanvas`);
  expect(exported, 200);
  expect(await call('GET', `${b}/export?format=pdf`), 400);
  expect(await call('POST', '/v1/boards/import?name=Imported', { body: exported.body }), 201);
  expect(await call('POST', '/v1/boards/import', { body: { nodes: [{ id: 'a', type: 'text' }] } }), 400);
  const copy = await call<BoardBody>('POST', `${b}/duplicate`);
  expect(copy, 201);
  expect(await call('POST', `/v1/boards/${MISSING_ID}/duplicate`), 404);
  expect(await call('DELETE', `/v1/boards/${copy.body.data.id}`), 200);
  expect(await call('DELETE', `/v1/boards/${copy.body.data.id}`), 404);
});

test('documents, jobs and search', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Documents' } });
  const b = `/v1/boards/${board.body.data.id}`;
  const note = await call<NodeBody>('POST', `${b}/nodes`, { body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'tides' } } });
  const job = await call<JobBody>('POST', `${b}/documents`, { body: { text: 'The tides follow the moon.', node_id: note.body.data.id } });
  expect(job, 202);
  expect(await call('POST', `${b}/documents`, { body: { text: '   ' } }), 400);
  expect(await call('POST', `${b}/documents/batch`, { body: { documents: [{ text: 'The moon pulls the sea.' }] } }), 202);
  expect(await call('POST', `${b}/documents/batch`, { body: { documents: [{ text: 'fine' }, { text: '   ' }] } }), 400);
  await server.waitForJob(job.body.data.id, alice.token);
  expect(await call('GET', `/v1/jobs/${job.body.data.id}`), 200);
  expect(await call('GET', `/v1/jobs/${job.body.data.id}`, { token: bob.token }), 404);
  expect(await call('GET', `${b}/documents`), 200);
  expect(await call('GET', `${b}/documents?limit=1000`), 400);
  expect(await call('GET', `${b}/documents/nodes`), 200);
  expect(await call('GET', `${b}/documents/nodes`, { token: bob.token }), 404);
  expect(await call('POST', `${b}/documents/search`, { body: { query: 'moon tides' } }), 200);
  expect(await call('POST', `${b}/documents/search`, { body: { query: 'moon', mode: 'telepathy' } }), 400);
  expect(await call('POST', '/v1/documents/search', { body: { query: 'moon tides', board_ids: [board.body.data.id] } }), 200);
  expect(await call('POST', '/v1/documents/search', { body: { query: 'moon', board_ids: [] } }), 400);
  expect(await call('DELETE', `${b}/documents?node_id=${note.body.data.id}`), 200);
  expect(await call('DELETE', `${b}/documents`), 400);
});

test('assets', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Assets' } });
  const boardId = board.body.data.id;
  const pdf = await PDFDocument.create();
  pdf.addPage([200, 200]);
  const bytes = Buffer.from(await pdf.save());
  const uploaded = await postParts(server, alice.token, boardId, [{ filename: 'page.pdf', type: 'application/pdf', data: bytes }]);
  assert.equal(uploaded.status, 201, uploaded.text);
  record('POST', `/v1/boards/${boardId}/assets`, uploaded.status, uploaded.headers, uploaded.text);
  const refused = await postParts(server, alice.token, boardId, [
    { filename: 'x.svg', type: 'image/svg+xml', data: Buffer.from('<svg/>') },
  ]);
  record('POST', `/v1/boards/${boardId}/assets`, refused.status, refused.headers, refused.text);
  assert.equal(refused.status, 415, refused.text);
  const asset = (uploaded.body as AssetBody).data;
  expect(await call('GET', `/v1/boards/${boardId}/assets`), 200);
  expect(await call('GET', `/v1/boards/${boardId}/assets`, { token: bob.token }), 404);
  const file = new URL(asset.url);
  expect(await call('GET', `${file.pathname}${file.search}`, { token: null }), 200);
  expect(await call('GET', `${file.pathname}?token=wrong`, { token: null }), 404);
  expect(await call('DELETE', `/v1/boards/${boardId}/assets/${asset.id}`), 200);
  expect(await call('DELETE', `/v1/boards/${boardId}/assets/${asset.id}`), 404);
});

test('chats', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Chats' } });
  const b = `/v1/boards/${board.body.data.id}`;
  await call('POST', `${b}/nodes`, { body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'The launch moved to March 3.' } } });
  const chat = await call<ChatBody>('POST', `${b}/chats`, { body: { title: 'Launch' } });
  expect(chat, 201);
  expect(await call('POST', `${b}/chats`, { body: { title: 5 } }), 400);
  const c = `${b}/chats/${chat.body.data.id}`;
  expect(await call('GET', `${b}/chats`), 200);
  expect(await call('GET', `${b}/chats?order=sideways`), 400);
  expect(await call('GET', c), 200);
  expect(await call('GET', `${b}/chats/${MISSING_ID}`), 404);
  expect(await call('PATCH', c, { body: { title: 'Launch date' } }), 200);
  expect(await call('PATCH', c, { body: {} }), 400);
  expect(await call('POST', `${c}/messages`, { body: { content: 'When is the launch?' } }), 201);
  expect(await call('POST', `${c}/messages`, { body: { content: 'And again, streamed?', stream: true } }), 200);
  expect(await call('POST', `${c}/messages`, { body: { content: '' } }), 400);
  expect(await call('GET', `${c}/messages`), 200);
  expect(await call('GET', `${b}/chats/${MISSING_ID}/messages`), 404);
  expect(await call('DELETE', c), 200);
  expect(await call('DELETE', c), 404);
});

test('mcp', async () => {
  const accept = { accept: 'application/json, text/event-stream' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'session', version: '1.0.0' } },
  };
  expect(await call('POST', '/v1/mcp', { body: initialize, headers: accept }), 200);
  expect(await call('POST', '/v1/mcp', { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: accept }), 202);
  expect(await call('POST', '/v1/mcp', { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers: accept }), 200);
  expect(await call('POST', '/v1/mcp', { body: { id: 3 }, headers: accept }), 400);
  expect(await call('POST', '/v1/mcp', { body: initialize, headers: { accept: 'text/html' } }), 406);
  expect(await call('POST', '/v1/mcp', { token: null, body: initialize, headers: accept }), 401);
});

test('history', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'History' } });
  const b = `/v1/boards/${board.body.data.id}`;
  await call('POST', `${b}/nodes`, { body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'kept' } } });
  const version = await call<{ data: { id: string } }>('POST', `${b}/history`, { body: { name: 'First' } });
  expect(version, 201);
  expect(await call('POST', `${b}/history`, { body: { name: '' } }), 400);
  expect(await call('GET', `${b}/history`), 200);
  expect(await call('GET', `${b}/history?order=sideways`), 400);
  const v = `${b}/history/${version.body.data.id}`;
  expect(await call('GET', v), 200);
  expect(await call('GET', `${b}/history/${MISSING_ID}`), 404);
  expect(await call('POST', `${v}/restore`, { body: {} }), 200);
  expect(await call('POST', `${v}/restore`, { body: { node_ids: [] } }), 400);
});

test('members and share links', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Team' } });
  const b = `/v1/boards/${board.body.data.id}`;
  expect(await call('GET', b), 200);
  expect(await call('GET', '/v1/boards?access=shared'), 200);
  expect(await call('GET', '/v1/boards?access=nobody'), 400);
  expect(await call('POST', `${b}/members`, { body: { user_id: bob.userId, role: 'viewer' } }), 201);
  expect(await call('POST', `${b}/members`, { body: { user_id: bob.userId, role: 'viewer' } }), 409);
  expect(await call('POST', `${b}/members`, { body: { role: 'viewer' } }), 400);
  expect(await call('GET', `${b}/members`), 200);
  expect(await call('GET', `${b}/members?order=sideways`), 400);
  expect(await call('PATCH', `${b}/members/${bob.userId}`, { body: { role: 'editor' } }), 200);
  expect(await call('PATCH', `${b}/members/${bob.userId}`, { body: { role: 'owner' } }), 400);
  const link = await call<{ data: { id: string; token: string } }>('POST', `${b}/share-links`, { body: { role: 'commenter' } });
  expect(link, 201);
  expect(await call('POST', `${b}/share-links`, { body: {} }), 400);
  expect(await call('GET', `${b}/share-links`), 200);
  expect(await call('GET', `${b}/share-links?limit=0`), 400);
  const carol = await server.user();
  expect(await call('POST', '/v1/share-links/accept', { token: carol.token, body: { token: link.body.data.token } }), 200);
  expect(await call('DELETE', `${b}/share-links/${link.body.data.id}`), 200);
  expect(await call('DELETE', `${b}/share-links/${MISSING_ID}`), 404);
  expect(await call('POST', '/v1/share-links/accept', { token: carol.token, body: { token: link.body.data.token } }), 404);
  expect(await call('DELETE', `${b}/members/${bob.userId}`), 200);
  expect(await call('DELETE', `${b}/members/${bob.userId}`), 404);
});

test('comments', async () => {
  const board = await call<BoardBody>('POST', '/v1/boards', { body: { name: 'Talk' } });
  const b = `/v1/boards/${board.body.data.id}`;
  const node = await call<{ data: { id: string } }>('POST', `${b}/nodes`, {
    body: { type: 'note', position: { x: 0, y: 0 }, data: { text: 'discussed' } },
  });
  const thread = await call<{ data: { id: string } }>('POST', `${b}/comments`, {
    body: { content: 'On the card', node_id: node.body.data.id },
  });
  expect(thread, 201);
  expect(await call('POST', `${b}/comments`, { body: { content: 'A point', position: { x: 1, y: 2 } } }), 201);
  const reply = await call<{ data: { id: string } }>('POST', `${b}/comments`, {
    body: { content: 'A reply', thread_id: thread.body.data.id },
  });
  expect(reply, 201);
  expect(await call('POST', `${b}/comments`, { body: { content: '' } }), 400);
  expect(await call('GET', `${b}/comments`), 200);
  expect(await call('GET', `${b}/comments?resolved=false&node_id=${node.body.data.id}`), 200);
  expect(await call('GET', `${b}/comments?limit=0`), 400);
  const c = `${b}/comments/${thread.body.data.id}`;
  expect(await call('GET', c), 200);
  expect(await call('GET', `${b}/comments/${MISSING_ID}`), 404);
  expect(await call('PATCH', c, { body: { resolved: true } }), 200);
  expect(await call('PATCH', c, { body: {} }), 400);
  expect(await call('POST', `${b}/comments/read`, { body: { up_to: new Date().toISOString() } }), 200);
  expect(await call('POST', `${b}/comments/read`, { body: { up_to: 'now' } }), 400);
  expect(await call('GET', '/v1/me/mentions'), 200);
  expect(await call('GET', '/v1/me/mentions?limit=0'), 400);
  expect(await call('DELETE', `${b}/comments/${reply.body.data.id}`), 200);
  expect(await call('DELETE', `${b}/comments/${reply.body.data.id}`), 404);
});

test('every answer matched the document, and every route was reached', () => {
  assert.deepEqual(problems, []);
  const missing: string[] = [];
  for (const { key, secured } of validator.operations()) {
    const classes = reached.get(key) ?? new Set();
    if (!classes.has('2xx')) missing.push(`${key}: no 2xx`);
    if (secured && !classes.has('4xx')) missing.push(`${key}: no 4xx`);
  }
  assert.deepEqual(missing, [], 'add requests for these routes to the session');
});
