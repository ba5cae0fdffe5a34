// Tenancy on every route, read from the OpenAPI document as scopes.test.ts does for scopes: another
// user, holding every scope, sends a valid request to each route that names one of Alice's
// resources (her private board, its node, edge, chat, asset and vectorize job, her API key, her
// webhook). Each
// answer is 404 `not_found` and carries nothing of hers, and afterwards all of Alice's data is as
// it was. A route added to the document without a request here fails the first test, so every new
// route is covered by the same suite.
//
// The role dimension (issue 31): a member of Alice's board as viewer, commenter and editor sends the
// same requests; each route is refused (403) or answered as the access rule's permissions for that
// role say (src/access/board-access.ts), Alice's own resources stay 404, and a refused request
// changes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { AssetBody, ChatBody, JobBody, OpenApiDocument, WebhookCreated } from './helpers/api-types.js';
import { PNG, postParts } from './helpers/assets.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';

/** Text only Alice's board holds: no answer to another user may contain it. */
const CANARY = 'zanzibarquokka';

const server = useServer({ JOB_POLL_MS: '50' });
let alice: TestUser;
let bob: TestUser;
/** A viewer of Alice's board: the member the member routes name. */
let carol: TestUser;
const ids = {} as Record<
  'board' | 'node' | 'node2' | 'edge' | 'chat' | 'asset' | 'job' | 'key' | 'webhook' | 'version' | 'shareLink' | 'comment',
  string
>;
let operations: { method: string; path: string }[];

/** A request each route would accept from Alice (so a refusal is about whose data it is, not its shape). */
function requestFor(method: string, path: string): { body?: unknown; query?: string; multipart?: boolean } | undefined {
  const bodies: Record<string, { body?: unknown; query?: string; multipart?: boolean }> = {
    'GET /v1/boards/{id}': {},
    'PATCH /v1/boards/{id}': { body: { name: 'taken over' } },
    'DELETE /v1/boards/{id}': {},
    'POST /v1/boards/{id}/duplicate': { body: {} },
    'GET /v1/boards/{boardId}/nodes': {},
    'POST /v1/boards/{boardId}/nodes': { body: { id: randomUUID(), type: 'note', position: { x: 0, y: 0 }, data: { text: 'planted' } } },
    'GET /v1/boards/{boardId}/nodes/{id}': {},
    'PATCH /v1/boards/{boardId}/nodes/{id}': { body: { data: { text: 'changed' } } },
    'DELETE /v1/boards/{boardId}/nodes/{id}': {},
    'GET /v1/boards/{boardId}/edges': {},
    'POST /v1/boards/{boardId}/edges': { body: { id: randomUUID(), source_node_id: ids.node, target_node_id: ids.node2 } },
    'POST /v1/boards/{boardId}/batch': {
      body: {
        operations: [
          { op: 'update_node', id: ids.node, data: { text: 'changed' } },
          { op: 'delete_edge', id: ids.edge },
        ],
      },
    },
    'GET /v1/boards/{boardId}/edges/{id}': {},
    'PATCH /v1/boards/{boardId}/edges/{id}': { body: { type: 'changed' } },
    'DELETE /v1/boards/{boardId}/edges/{id}': {},
    'GET /v1/boards/{boardId}/events': {},
    'GET /v1/boards/{boardId}/export': { query: '?format=jsoncanvas' },
    'PUT /v1/boards/{boardId}/presence': { body: { session_id: 'tenancy-session' } },
    'DELETE /v1/boards/{boardId}/presence/{sessionId}': {},
    'DELETE /v1/me/api-keys/{id}': {},
    'GET /v1/webhooks/{id}': {},
    'DELETE /v1/webhooks/{id}': {},
    'GET /v1/webhooks/{id}/deliveries': {},
    'GET /v1/boards/{boardId}/documents': {},
    'POST /v1/boards/{boardId}/documents': { body: { text: 'planted text' } },
    'POST /v1/boards/{boardId}/documents/batch': { body: { documents: [{ text: 'planted text' }] } },
    'GET /v1/boards/{boardId}/documents/nodes': {},
    'DELETE /v1/boards/{boardId}/documents': { query: `?node_id=${ids.node}` },
    'POST /v1/boards/{boardId}/documents/search': { body: { query: CANARY } },
    'GET /v1/jobs/{id}': {},
    'GET /v1/boards/{boardId}/assets': {},
    'POST /v1/boards/{boardId}/assets': { multipart: true },
    'DELETE /v1/boards/{boardId}/assets/{id}': {},
    'GET /v1/boards/{boardId}/chats': {},
    'POST /v1/boards/{boardId}/chats': { body: {} },
    'GET /v1/boards/{boardId}/chats/{chatId}': {},
    'PATCH /v1/boards/{boardId}/chats/{chatId}': { body: { title: 'changed' } },
    'DELETE /v1/boards/{boardId}/chats/{chatId}': {},
    'GET /v1/boards/{boardId}/chats/{chatId}/messages': {},
    'POST /v1/boards/{boardId}/chats/{chatId}/messages': { body: { content: `What is ${CANARY}?` } },
    'GET /v1/boards/{boardId}/history': {},
    'POST /v1/boards/{boardId}/history': { body: { name: 'taken over' } },
    'GET /v1/boards/{boardId}/history/{versionId}': {},
    'POST /v1/boards/{boardId}/history/{versionId}/restore': { body: {} },
    'GET /v1/boards/{boardId}/members': {},
    'POST /v1/boards/{boardId}/members': { body: { user_id: bob.userId, role: 'editor' } },
    'PATCH /v1/boards/{boardId}/members/{userId}': { body: { role: 'editor' } },
    'DELETE /v1/boards/{boardId}/members/{userId}': {},
    'GET /v1/boards/{boardId}/share-links': {},
    'POST /v1/boards/{boardId}/share-links': { body: { role: 'editor' } },
    'DELETE /v1/boards/{boardId}/share-links/{id}': {},
    'GET /v1/boards/{boardId}/comments': {},
    'POST /v1/boards/{boardId}/comments': { body: { content: 'planted', thread_id: ids.comment } },
    'POST /v1/boards/{boardId}/comments/read': { body: { up_to: new Date().toISOString() } },
    'GET /v1/boards/{boardId}/comments/{commentId}': {},
    'PATCH /v1/boards/{boardId}/comments/{commentId}': { body: { content: 'changed' } },
    'DELETE /v1/boards/{boardId}/comments/{commentId}': {},
  };
  return bodies[`${method} ${path}`];
}

/** The path with Alice's ids: `{id}` is the resource the path ends in. */
function aliceUrl(path: string): string {
  const idOf = (): string => {
    if (path.startsWith('/v1/me/api-keys')) return ids.key;
    if (path.startsWith('/v1/webhooks')) return ids.webhook;
    if (path.startsWith('/v1/jobs')) return ids.job;
    if (path.includes('/nodes/')) return ids.node;
    if (path.includes('/edges/')) return ids.edge;
    if (path.includes('/assets/')) return ids.asset;
    if (path.includes('/share-links/')) return ids.shareLink;
    return ids.board;
  };
  return path
    .replace('{boardId}', ids.board)
    .replace('{userId}', carol.userId)
    .replace('{chatId}', ids.chat)
    .replace('{versionId}', ids.version)
    .replace('{commentId}', ids.comment)
    .replace('{sessionId}', 'tenancy-session')
    .replace('{id}', idOf());
}

/** Everything of Alice's the routes above could touch, as she reads it. */
async function aliceState() {
  const get = async (url: string) => {
    const res = await server.request('GET', url, { token: alice.token });
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    return res.body;
  };
  const b = `/v1/boards/${ids.board}`;
  return {
    board: await get(b),
    nodes: await get(`${b}/nodes?limit=100`),
    edges: await get(`${b}/edges?limit=100`),
    events: await get(`${b}/events?limit=500`),
    documents: await get(`${b}/documents?limit=100`),
    assets: await get(`${b}/assets?limit=100`),
    chats: await get(`${b}/chats?limit=100`),
    history: await get(`${b}/history?limit=100`),
    messages: await get(`${b}/chats/${ids.chat}/messages?limit=100`),
    // Without last_used_at, which Alice's own reads here move (at most once a minute).
    keys: ((await get('/v1/me/api-keys?limit=100')) as { data: Record<string, unknown>[] }).data.map(({ last_used_at: _, ...key }) => key),
    webhooks: await get('/v1/webhooks?limit=100'),
    deliveries: await get(`/v1/webhooks/${ids.webhook}/deliveries?limit=100`),
    job: await get(`/v1/jobs/${ids.job}`),
    boards: await get('/v1/boards?limit=100'),
    members: await get(`${b}/members?limit=100`),
    shareLinks: await get(`${b}/share-links?limit=100`),
    comments: await get(`${b}/comments?limit=100`),
  };
}

before(async () => {
  alice = await server.user();
  bob = await server.user();
  carol = await server.user();
  ids.board = await server.makeBoard(alice);
  const b = `/v1/boards/${ids.board}`;
  const member = await server.request('POST', `${b}/members`, { token: alice.token, body: { user_id: carol.userId, role: 'viewer' } });
  assert.equal(member.status, 201, member.text);
  const link = await server.request<{ data: { id: string } }>('POST', `${b}/share-links`, { token: alice.token, body: { role: 'viewer' } });
  assert.equal(link.status, 201, link.text);
  ids.shareLink = link.body.data.id;
  const note = async (text: string) => (await server.makeNode(alice, ids.board, { data: { text } })).id;
  ids.node = await note(`Notes on the ${CANARY}.`);
  ids.node2 = await note('A second note.');
  ids.edge = (await server.makeEdge(alice, ids.board, ids.node, ids.node2)).id;
  const job = await server.request<JobBody>('POST', `${b}/documents`, {
    token: alice.token,
    body: { node_id: ids.node, text: `The ${CANARY} is small.` },
  });
  assert.equal(job.status, 202, job.text);
  ids.job = job.body.data.id;
  assert.equal((await server.waitForJob(ids.job, alice.token)).status, 'completed');
  const asset: Response<AssetBody> = await postParts(server, alice.token, ids.board, [
    { filename: `${CANARY}.png`, type: 'image/png', data: PNG },
  ]);
  assert.equal(asset.status, 201, asset.text);
  ids.asset = asset.body.data.id;
  const chat = await server.request<ChatBody>('POST', `${b}/chats`, { token: alice.token, body: { title: `About the ${CANARY}` } });
  assert.equal(chat.status, 201, chat.text);
  ids.chat = chat.body.data.id;
  const message = await server.request('POST', `${b}/chats/${ids.chat}/messages`, {
    token: alice.token,
    body: { content: `What is the ${CANARY}?` },
  });
  assert.equal(message.status, 201, message.text);
  ids.key = (await alice.keyWith(['read'], { name: CANARY })).id;
  // Only board.deleted, which nothing here sends: no delivery is ever attempted.
  const webhook = await server.request<WebhookCreated>('POST', '/v1/webhooks', {
    token: alice.token,
    body: { url: `https://${CANARY}.example.com/hook`, board_id: ids.board, event_types: ['board.deleted'] },
  });
  assert.equal(webhook.status, 201, webhook.text);
  ids.webhook = webhook.body.data.id;
  const version = await server.request<{ data: { id: string } }>('POST', `${b}/history`, { token: alice.token, body: { name: CANARY } });
  assert.equal(version.status, 201, version.text);
  ids.version = version.body.data.id;
  const comment = await server.request<{ data: { id: string } }>('POST', `${b}/comments`, {
    token: alice.token,
    body: { content: `What about the ${CANARY}?`, node_id: ids.node },
  });
  assert.equal(comment.status, 201, comment.text);
  ids.comment = comment.body.data.id;

  const doc = await server.request<OpenApiDocument>('GET', '/v1/openapi.json');
  operations = [];
  for (const [path, item] of Object.entries(doc.body.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method) && !isPublic && path.includes('{'))
        operations.push({ method: method.toUpperCase(), path });
    }
  }
});

describe("another user on every route that names Alice's resources", () => {
  test('every such route in the OpenAPI document has a request here', () => {
    assert.ok(operations.length >= 25, `${operations.length} routes`);
    const missing = operations.filter((op) => !requestFor(op.method, op.path)).map((op) => `${op.method} ${op.path}`);
    assert.deepEqual(missing, [], 'add a valid request for these routes to requestFor()');
  });

  test("is answered 404 with nothing of Alice's, and changes nothing", async () => {
    const before = await aliceState();
    // Bob holds every scope, through a key and through a JWT.
    for (const token of [bob.token, await bob.jwt()]) {
      for (const op of operations) {
        const spec = requestFor(op.method, op.path)!;
        const url = aliceUrl(op.path) + (spec.query ?? '');
        const label = `${op.method} ${url.replace(/[0-9a-f-]{36}/g, ':id')}`;
        const res: Response = spec.multipart
          ? await postParts(server, token, ids.board, [{ filename: 'x.png', type: 'image/png', data: PNG }])
          : await server.request(op.method, url, { token, body: spec.body });
        assert.equal(res.status, 404, `${label}: ${res.status} ${res.text}`);
        assert.ok(isErrorEnvelope(res.body, 404), `${label}: not an error envelope: ${res.text}`);
        assert.equal(res.body.code, 'not_found', label);
        assert.ok(!res.text.includes(CANARY), `${label} leaks Alice's text: ${res.text}`);
        for (const id of Object.values(ids)) assert.ok(!res.text.includes(id), `${label} names one of Alice's ids: ${res.text}`);
      }
    }
    assert.deepEqual(await aliceState(), before, "Alice's data changed");
    // Her key still works: revoking someone else's key did nothing.
    assert.equal((await server.request('GET', '/v1/boards', { token: alice.token })).status, 200);
  });

  test("Alice's node and edge ids, as client-chosen ids on Bob's own board, are one 409 that tells nothing", async () => {
    const before = await aliceState();
    const board = await server.makeBoard(bob);
    const [x, y] = [(await server.makeNode(bob, board)).id, (await server.makeNode(bob, board)).id];
    const b = `/v1/boards/${board}`;
    const note = { type: 'note', position: { x: 0, y: 0 }, data: { text: 'planted' } };
    const messages = new Set<string>();
    for (const id of [ids.node, ids.node2, ids.edge]) {
      for (const [url, body] of [
        [`${b}/nodes`, { ...note, id }],
        [`${b}/edges`, { id, source_node_id: x, target_node_id: y }],
        [`${b}/batch`, { operations: [{ op: 'create_node', id, ...note }] }],
        [`${b}/batch`, { operations: [{ op: 'create_edge', id, source_node_id: x, target_node_id: y }] }],
      ] as const) {
        const res = await server.request('POST', url, { token: bob.token, body });
        assert.equal(res.status, 409, `${url}: ${res.text}`);
        assert.ok(isErrorEnvelope(res.body, 409), res.text);
        assert.equal(res.body.code, 'conflict');
        messages.add(res.body.message.replace(/^operations\[0\]: /, ''));
        assert.ok(!res.text.includes(CANARY), res.text);
        for (const alices of Object.values(ids)) assert.ok(!res.text.includes(alices), `${url} names one of Alice's ids: ${res.text}`);
      }
    }
    // The same answer as an id of Bob's own that is taken.
    const own = await server.request('POST', `${b}/nodes`, { token: bob.token, body: { ...note, id: x } });
    assert.ok(isErrorEnvelope(own.body, 409), own.text);
    messages.add(own.body.message);
    assert.equal(messages.size, 1, [...messages].join(' | '));
    // A delete of Alice's node under Bob's board is a 404, not a repeated delete.
    assert.equal((await server.request('DELETE', `${b}/nodes/${ids.node}`, { token: bob.token })).status, 404);
    assert.deepEqual(await aliceState(), before, "Alice's data changed");
  });

  test("Bob's own lists hold nothing of Alice's", async () => {
    for (const url of ['/v1/boards?limit=100', '/v1/me/api-keys?limit=100', '/v1/webhooks?limit=100', '/v1/me']) {
      const res = await server.request('GET', url, { token: bob.token });
      assert.equal(res.status, 200, res.text);
      assert.ok(!res.text.includes(CANARY), url);
      for (const id of Object.values(ids)) assert.ok(!res.text.includes(id), `${url} names one of Alice's ids`);
    }
  });
});

/** What a route needs, by the access rule's permissions; `hers`: a resource of Alice's own (404 to anyone else). */
function neededFor(
  method: string,
  path: string,
): 'read' | 'comment' | 'edit' | 'upload' | 'chat' | 'manage' | 'author' | 'hers' | 'hers-chat' {
  if (path.startsWith('/v1/me/') || path.startsWith('/v1/webhooks') || path.startsWith('/v1/jobs')) return 'hers';
  // Comments: a reader reads and marks read, a commenter writes; Alice's own comment is hers to edit or delete.
  if (path.includes('/comments')) {
    if (method === 'GET' || path.endsWith('/comments/read')) return 'read';
    return path.includes('{commentId}') ? 'author' : 'comment';
  }
  if (path.includes('{chatId}')) return method === 'POST' ? 'hers-chat' : 'hers';
  if (path.includes('/share-links') || (path.includes('/members') && method !== 'GET')) return 'manage';
  if (path === '/v1/boards/{id}' && method !== 'GET') return 'manage';
  // Naming a version is the owner's; restoring one is an edit.
  if (path === '/v1/boards/{boardId}/history' && method === 'POST') return 'manage';
  if (path.includes('/assets')) return 'upload';
  if (path.endsWith('/chats')) return method === 'GET' ? 'read' : 'chat';
  if (method === 'GET' || path.includes('/presence') || path.endsWith('/duplicate') || path.endsWith('/documents/search')) return 'read';
  return 'edit';
}

const PERMISSIONS = {
  viewer: { read: true, comment: false, edit: false, upload: false, chat: false, manage: false, author: false },
  commenter: { read: true, comment: true, edit: false, upload: false, chat: false, manage: false, author: false },
  editor: { read: true, comment: true, edit: true, upload: true, chat: true, manage: false, author: false },
} as const;

describe("a member of Alice's board, as each role, on every route that names her resources", () => {
  // The editor last: the editor's allowed writes change Alice's board.
  for (const role of ['viewer', 'commenter', 'editor'] as const) {
    test(`as ${role}: allowed as the role's permissions say, else 403; Alice's own resources 404`, async () => {
      const member = await server.user();
      const added = await server.request('POST', `/v1/boards/${ids.board}/members`, {
        token: alice.token,
        body: { user_id: member.userId, role },
      });
      assert.equal(added.status, 201, added.text);
      const board = await server.request<{ data: { role: string; permissions: Record<string, boolean> } }>(
        'GET',
        `/v1/boards/${ids.board}`,
        {
          token: member.token,
        },
      );
      assert.equal(board.body.data.role, role);
      for (const [name, allowed] of Object.entries(PERMISSIONS[role])) {
        if (name !== 'author') assert.equal(board.body.data.permissions[name], allowed, name);
      }
      const before = role === 'editor' ? undefined : await aliceState();
      for (const op of operations) {
        const spec = requestFor(op.method, op.path)!;
        const url = aliceUrl(op.path) + (spec.query ?? '');
        const label = `${role}: ${op.method} ${op.path}`;
        const res: Response = spec.multipart
          ? await postParts(server, member.token, ids.board, [{ filename: 'x.png', type: 'image/png', data: PNG }])
          : await server.request(op.method, url, { token: member.token, body: spec.body });
        const needed = neededFor(op.method, op.path);
        const status =
          needed === 'hers' ? 404 : needed === 'hers-chat' ? (PERMISSIONS[role].chat ? 404 : 403) : PERMISSIONS[role][needed] ? 'ok' : 403;
        if (status === 'ok') {
          // Allowed: never refused. (The editor's earlier deletes may leave a later request nothing to act on.)
          assert.ok(![401, 403].includes(res.status) && res.status < 500, `${label}: ${res.status} ${res.text}`);
        } else {
          assert.equal(res.status, status, `${label}: ${res.text}`);
          assert.ok(isErrorEnvelope(res.body, status), `${label}: ${res.text}`);
        }
        if (needed === 'hers' || needed === 'hers-chat') assert.ok(!res.text.includes(CANARY), `${label} leaks Alice's text`);
      }
      if (before) {
        const after = await aliceState();
        if (role === 'commenter') {
          // The commenter's allowed comment is the one change: their reply, and its event.
          const mine = (list: unknown, isMine: (item: Record<string, any>) => boolean) => {
            const data = (list as { data: Record<string, any>[] }).data;
            assert.equal(data.filter(isMine).length, 1, role);
            return { ...(list as object), data: data.filter((item) => !isMine(item)) };
          };
          after.comments = mine(after.comments, (c) => c.author.id === member.userId);
          after.events = mine(after.events, (e) => e.type === 'comment.created' && e.actor_id === member.userId);
          after.events = { ...(after.events as object), cursor: (before.events as { cursor: string }).cursor };
          (after.events as { latest_seq: number }).latest_seq -= 1;
        }
        assert.deepEqual(after, before, role);
      }
    });
  }
});
