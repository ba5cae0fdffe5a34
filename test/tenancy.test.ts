// Tenancy on every route, read from the OpenAPI document as scopes.test.ts does for scopes: another
// user, holding every scope, sends a valid request to each route that names one of Alice's
// resources (her private board, its node, edge, chat, asset and vectorize job, her API key, her
// webhook). Each
// answer is 404 `not_found` and carries nothing of hers, and afterwards all of Alice's data is as
// it was. A route added to the document without a request here fails the first test, so every new
// route is covered by the same suite.
//
// The role dimension (issue 31): a viewer, a commenter and an editor of Alice's private board, then
// Alice, its owner, send the same requests. What each route needs is written once (NEEDS, a line per
// route; a route without one fails the suite) and what each role may is the rule of issue 31 (MAY):
// each answer is what they give (allowed, 403, or 404 for another person's own resources), a refused
// request changes nothing, the board's `permissions` say the same, and any member may leave.
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
    // Without the versions the history sweep keeps by itself (once a minute at most).
    history: ((await get(`${b}/history?limit=100`)) as { data: { kind: string }[] }).data.filter((v) => v.kind !== 'auto'),
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

/**
 * What each route that names Alice's resources needs of its caller: a permission of the access rule
 * on her board (`read`, `comment`, `edit`, `upload`, `chat`, `manage`, `delete`: the board's
 * `permissions`, src/access/board-access.ts), or `own`: a resource that is only ever its owner's (an
 * API key, a webhook, a job, a chat), 404 to anyone else; `own-chat`: a message to someone's chat,
 * which needs `chat` before the chat is looked up. Written once, here: a route the OpenAPI document
 * has and this table lacks fails the suite (add its line beside its request in requestFor()).
 */
const NEEDS: Record<string, Need> = {
  'GET /v1/boards/{id}': 'read',
  'PATCH /v1/boards/{id}': 'manage',
  'DELETE /v1/boards/{id}': 'delete',
  'POST /v1/boards/{id}/duplicate': 'read',
  'GET /v1/boards/{boardId}/nodes': 'read',
  'POST /v1/boards/{boardId}/nodes': 'edit',
  'GET /v1/boards/{boardId}/nodes/{id}': 'read',
  'PATCH /v1/boards/{boardId}/nodes/{id}': 'edit',
  'DELETE /v1/boards/{boardId}/nodes/{id}': 'edit',
  'GET /v1/boards/{boardId}/edges': 'read',
  'POST /v1/boards/{boardId}/edges': 'edit',
  'POST /v1/boards/{boardId}/batch': 'edit',
  'GET /v1/boards/{boardId}/edges/{id}': 'read',
  'PATCH /v1/boards/{boardId}/edges/{id}': 'edit',
  'DELETE /v1/boards/{boardId}/edges/{id}': 'edit',
  'GET /v1/boards/{boardId}/events': 'read',
  'GET /v1/boards/{boardId}/export': 'read',
  'PUT /v1/boards/{boardId}/presence': 'read',
  'DELETE /v1/boards/{boardId}/presence/{sessionId}': 'read',
  'DELETE /v1/me/api-keys/{id}': 'own',
  'GET /v1/webhooks/{id}': 'own',
  'DELETE /v1/webhooks/{id}': 'own',
  'GET /v1/webhooks/{id}/deliveries': 'own',
  'GET /v1/boards/{boardId}/documents': 'read',
  'POST /v1/boards/{boardId}/documents': 'edit',
  'POST /v1/boards/{boardId}/documents/batch': 'edit',
  'GET /v1/boards/{boardId}/documents/nodes': 'read',
  'DELETE /v1/boards/{boardId}/documents': 'edit',
  'POST /v1/boards/{boardId}/documents/search': 'read',
  'GET /v1/jobs/{id}': 'own',
  'GET /v1/boards/{boardId}/assets': 'upload',
  'POST /v1/boards/{boardId}/assets': 'upload',
  'DELETE /v1/boards/{boardId}/assets/{id}': 'upload',
  'GET /v1/boards/{boardId}/chats': 'read',
  'POST /v1/boards/{boardId}/chats': 'chat',
  'GET /v1/boards/{boardId}/chats/{chatId}': 'own',
  'PATCH /v1/boards/{boardId}/chats/{chatId}': 'own',
  'DELETE /v1/boards/{boardId}/chats/{chatId}': 'own',
  'GET /v1/boards/{boardId}/chats/{chatId}/messages': 'own',
  'POST /v1/boards/{boardId}/chats/{chatId}/messages': 'own-chat',
  'GET /v1/boards/{boardId}/history': 'read',
  'POST /v1/boards/{boardId}/history': 'manage',
  'GET /v1/boards/{boardId}/history/{versionId}': 'read',
  'POST /v1/boards/{boardId}/history/{versionId}/restore': 'manage',
  'GET /v1/boards/{boardId}/members': 'read',
  'POST /v1/boards/{boardId}/members': 'manage',
  'PATCH /v1/boards/{boardId}/members/{userId}': 'manage',
  // Another member (Carol); a member removing themselves is tested apart, for every role.
  'DELETE /v1/boards/{boardId}/members/{userId}': 'manage',
  'GET /v1/boards/{boardId}/share-links': 'manage',
  'POST /v1/boards/{boardId}/share-links': 'manage',
  'DELETE /v1/boards/{boardId}/share-links/{id}': 'manage',
  'GET /v1/boards/{boardId}/comments': 'read',
  'POST /v1/boards/{boardId}/comments': 'comment',
  // Marking comments read changes only the caller's own read marks.
  'POST /v1/boards/{boardId}/comments/read': 'read',
  'GET /v1/boards/{boardId}/comments/{commentId}': 'read',
  // Alice's own comment: only its author edits it; its author or the board's owner deletes it.
  'PATCH /v1/boards/{boardId}/comments/{commentId}': 'author',
  'DELETE /v1/boards/{boardId}/comments/{commentId}': 'author',
};

type Permission = 'read' | 'comment' | 'edit' | 'upload' | 'chat' | 'manage' | 'delete';
type Need = Permission | 'own' | 'own-chat' | 'author';
type Role = 'viewer' | 'commenter' | 'editor' | 'owner';

/** The rule of issue 31, written here apart from its code: reads viewer+, comments commenter+, content editor+, the rest the owner's. */
const MAY: Record<Role, Record<Permission, boolean>> = {
  viewer: { read: true, comment: false, edit: false, upload: false, chat: false, manage: false, delete: false },
  commenter: { read: true, comment: true, edit: false, upload: false, chat: false, manage: false, delete: false },
  editor: { read: true, comment: true, edit: true, upload: true, chat: true, manage: false, delete: false },
  owner: { read: true, comment: true, edit: true, upload: true, chat: true, manage: true, delete: true },
};

/** The answer the rule gives `role` on a route needing `need`: allowed, or the refusal's status. */
function expected(role: Role, need: Need): 'allowed' | 403 | 404 {
  if (need === 'own') return role === 'owner' ? 'allowed' : 404;
  if (need === 'author') return role === 'owner' ? 'allowed' : 403;
  if (need === 'own-chat') return role === 'owner' ? 'allowed' : MAY[role].chat ? 404 : 403;
  return MAY[role][need] ? 'allowed' : 403;
}

/** Writes the rule allows go one at a time, deletes last, the board's own delete the very last. */
const WRITE_ORDER = ['POST', 'PUT', 'PATCH', 'DELETE'];
const writeRank = (op: { method: string; path: string }) =>
  op.path === '/v1/boards/{id}' && op.method === 'DELETE' ? 99 : WRITE_ORDER.indexOf(op.method);

describe("Alice's board as each role (a non-member is the suite above): every route answers as the rule says", () => {
  test('every route in the OpenAPI document that names a resource has what it needs in NEEDS', () => {
    const missing = operations.filter((op) => !NEEDS[`${op.method} ${op.path}`]).map((op) => `${op.method} ${op.path}`);
    assert.deepEqual(missing, [], "add what these routes need of the caller's role to NEEDS");
  });

  // One app, one board; the owner last, whose allowed writes end with deleting the board. Requests
  // that change nothing (reads, refusals) go in parallel.
  for (const role of ['viewer', 'commenter', 'editor', 'owner'] as const) {
    test(`as ${role}`, async () => {
      let caller = alice;
      if (role !== 'owner') {
        caller = await server.user();
        const added = await server.request('POST', `/v1/boards/${ids.board}/members`, {
          token: alice.token,
          body: { user_id: caller.userId, role },
        });
        assert.equal(added.status, 201, added.text);
      }
      const board = await server.request<{ data: { role: string; permissions: Record<string, boolean> } }>(
        'GET',
        `/v1/boards/${ids.board}`,
        {
          token: caller.token,
        },
      );
      assert.equal(board.body.data.role, role);
      assert.deepEqual(board.body.data.permissions, MAY[role], 'the board answers the rule as permissions');

      // Until the editor's and the owner's allowed writes (deletes among them), Alice's data is whole:
      // what is allowed before them is answered 2xx. The owner comes after the editor's deletes.
      const strictBeforeWrites = role !== 'owner';
      const before = role === 'editor' || role === 'owner' ? undefined : await aliceState();
      const send = async (op: { method: string; path: string }, strict: boolean) => {
        const spec = requestFor(op.method, op.path)!;
        const url = aliceUrl(op.path) + (spec.query ?? '');
        const label = `${role}: ${op.method} ${op.path}`;
        const res: Response = spec.multipart
          ? await postParts(server, caller.token, ids.board, [{ filename: 'x.png', type: 'image/png', data: PNG }])
          : await server.request(op.method, url, { token: caller.token, body: spec.body });
        const need = NEEDS[`${op.method} ${op.path}`]!;
        const answer = expected(role, need);
        if (answer === 'allowed' && strict) {
          assert.ok(res.status >= 200 && res.status < 300, `${label}: ${res.status} ${res.text}`);
        } else if (answer === 'allowed') {
          // Earlier allowed writes (deletes) may have left nothing to act on: never refused by the rule.
          const boardGone = res.status === 404 && /Board not found/.test(res.text);
          assert.ok(![401, 403].includes(res.status) && !boardGone && res.status < 500, `${label}: ${res.status} ${res.text}`);
        } else {
          assert.equal(res.status, answer, `${label}: ${res.text}`);
          assert.ok(isErrorEnvelope(res.body, answer), `${label}: ${res.text}`);
          assert.equal(res.body.code, answer === 403 ? 'forbidden' : 'not_found', label);
          if (answer === 404) assert.ok(!res.text.includes(CANARY), `${label} leaks Alice's text`);
        }
      };
      const allowedWrite = (op: { method: string; path: string }) =>
        op.method !== 'GET' && expected(role, NEEDS[`${op.method} ${op.path}`]!) === 'allowed';
      await Promise.all(operations.filter((op) => !allowedWrite(op)).map((op) => send(op, strictBeforeWrites)));
      for (const op of operations.filter(allowedWrite).sort((a, b) => writeRank(a) - writeRank(b))) {
        await send(op, role === 'viewer' || role === 'commenter');
      }
      if (before) {
        const after = await aliceState();
        if (role === 'commenter') {
          // The commenter's one allowed write is their reply: set it and its event aside.
          const mine = (list: unknown, isMine: (item: Record<string, any>) => boolean) => {
            const data = (list as { data: Record<string, any>[] }).data;
            assert.equal(data.filter(isMine).length, 1, role);
            return { ...(list as object), data: data.filter((item) => !isMine(item)) };
          };
          after.comments = mine(after.comments, (c) => c.author.id === caller.userId);
          after.events = mine(after.events, (e) => e.type === 'comment.created' && e.actor_id === caller.userId);
          after.events = { ...(after.events as object), cursor: (before.events as { cursor: string }).cursor };
          (after.events as { latest_seq: number }).latest_seq -= 1;
        }
        assert.deepEqual(after, before, `${role}: Alice's data changed`);
      }

      if (role !== 'owner') {
        // A member may remove themselves (leave), whatever their role; then the board is 404 to them.
        const left = await server.request('DELETE', `/v1/boards/${ids.board}/members/${caller.userId}`, { token: caller.token });
        assert.equal(left.status, 200, left.text);
        assert.equal((await server.request('GET', `/v1/boards/${ids.board}`, { token: caller.token })).status, 404);
      }
    });
  }
});
