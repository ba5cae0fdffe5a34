// A note edit's round trips to the database (issue 32): a PATCH of one node's text runs five
// statements (BEGIN; the board's lock with the node's read; the update; the recording of its event,
// webhooks outbox and the owner's stored bytes; COMMIT), counted at the service's pool, not timed
// (eight before: the node was read twice, and the owner's bytes apart).
// Each statement is a round trip, and on the embedded database a turn of its single thread: one
// added back makes every edit dearer, so the count is pinned here. The guarantees the statements
// carry are tested where they live (etag.test.ts, events.test.ts, webhooks.test.ts, quotas.test.ts,
// client-ids.test.ts); the ones the merged statements touch are checked here as well.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ErrorBody, NodeBody } from './helpers/api-types.js';
import { type TestUser, useServer } from './helpers/harness.js';
import { requestStatements } from './helpers/statements.js';

const QUOTA = 20_000;
const server = useServer({ USER_MAX_STORED_BYTES: String(QUOTA) });
let alice: TestUser;
let token: string;
let boardId: string;

before(async () => {
  alice = await server.user();
  // A JWT: its user is known after the first request, so no statement authenticates the edits on
  // either database (an API key is read per write request on PostgreSQL, auth/authenticator.ts).
  token = await alice.jwt();
  boardId = await server.makeBoard(alice);
  assert.equal((await server.request('GET', `/v1/boards/${boardId}`, { token })).status, 200);
});

const statementsOf = (work: () => Promise<void>) => requestStatements(server, work);

const patch = (id: string, body: unknown, ifMatch?: string) =>
  server.request<NodeBody>('PATCH', `/v1/boards/${boardId}/nodes/${id}`, {
    token,
    body,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });

const kind = (statement: string) => statement.trim().split(/\s+/)[0]!.toLowerCase();

describe('a note edit', () => {
  test('a PATCH of its text with If-Match is five statements, its event and answer as before', async () => {
    const node = await server.makeNode(alice, boardId, { data: { text: 'first' } });
    const read = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token });
    const tag = read.headers.get('etag')!;
    let res!: Awaited<ReturnType<typeof patch>>;
    const statements = await statementsOf(async () => {
      res = await patch(node.id, { data: { text: 'first, and longer' } }, tag);
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.node_data.text, 'first, and longer');
    assert.deepEqual(statements.map(kind), ['begin', 'select', 'update', 'select', 'commit'], statements.join('\n---\n'));
    // The answer's tag is the tag a read gives, and the next edit with it passes.
    const again = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token });
    assert.equal(again.headers.get('etag'), res.headers.get('etag'));
    assert.deepEqual(again.body.data, res.body.data);
    const events = await server.database.db
      .selectFrom('board_events')
      .select(['type', 'data'])
      .where('board_id', '=', boardId)
      .orderBy('seq', 'desc')
      .limit(1)
      .execute();
    assert.equal(events[0]?.type, 'node.updated');
    assert.deepEqual(JSON.parse(JSON.stringify(events[0]?.data)), JSON.parse(JSON.stringify(res.body.data)));
  });

  test('a stale If-Match is 412 after two statements and a rollback; a repeated edit writes nothing', async () => {
    const node = await server.makeNode(alice, boardId, { data: { text: 'one' } });
    const first = await patch(node.id, { data: { text: 'two' } });
    assert.equal(first.status, 200);
    const stale = '"AAAAAAAAAAAAAAAAAAAAAA"';
    let refused!: Awaited<ReturnType<typeof patch>>;
    const statements = await statementsOf(async () => {
      refused = await patch(node.id, { data: { text: 'three' } }, stale);
    });
    assert.equal(refused.status, 412, refused.text);
    assert.equal((refused.body as unknown as ErrorBody).code, 'precondition_failed');
    assert.deepEqual(statements.map(kind), ['begin', 'select', 'rollback'], statements.join('\n---\n'));
    // The edit repeated with the tag it was made on (its answer lost): answered, nothing written.
    const seq = async () =>
      (await server.database.db.selectFrom('boards').select('event_seq').where('id', '=', boardId).executeTakeFirstOrThrow()).event_seq;
    const before = await seq();
    let repeated!: Awaited<ReturnType<typeof patch>>;
    const again = await statementsOf(async () => {
      repeated = await patch(node.id, { data: { text: 'two' } }, stale);
    });
    assert.equal(repeated.status, 200, repeated.text);
    assert.deepEqual(repeated.body.data, first.body.data);
    assert.equal(repeated.headers.get('etag'), first.headers.get('etag'));
    assert.deepEqual(again.map(kind), ['begin', 'select', 'commit'], again.join('\n---\n'));
    assert.equal(await seq(), before);
  });

  test('a missing node is 404 Node, a missing board 404 Board, a board seen but not editable 403', async () => {
    const missing = await patch('00000000-0000-4000-8000-000000000000', { data: { text: 'x' } });
    assert.equal(missing.status, 404);
    assert.match((missing.body as unknown as ErrorBody).message, /Node/);
    const node = await server.makeNode(alice, boardId, { data: { text: 'mine' } });
    const noBoard = await server.request('PATCH', `/v1/boards/00000000-0000-4000-8000-000000000000/nodes/${node.id}`, {
      token,
      body: { data: { text: 'x' } },
    });
    assert.equal(noBoard.status, 404);
    assert.match((noBoard.body as ErrorBody).message, /Board/);
    // Another user's private board: not found; a public board that is view-only: forbidden.
    const bob = await server.user();
    const hidden = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: bob.token,
      body: { data: { text: 'x' } },
    });
    assert.equal(hidden.status, 404);
    assert.match((hidden.body as ErrorBody).message, /Board/);
    const shown = await server.request('PATCH', `/v1/boards/${boardId}`, { token, body: { is_public: true } });
    assert.equal(shown.status, 200, shown.text);
    const viewOnly = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${node.id}`, {
      token: bob.token,
      body: { data: { text: 'x' } },
    });
    assert.equal(viewOnly.status, 403, viewOnly.text);
    assert.equal((await server.request('PATCH', `/v1/boards/${boardId}`, { token, body: { is_public: false } })).status, 200);
    const after = await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${node.id}`, { token });
    assert.equal(after.body.data.node_data.text, 'mine');
  });

  test('an edit that takes the owner past the stored-bytes quota is refused and changes nothing; one that shrinks passes', async () => {
    const board = await server.makeBoard(alice);
    const node = await server.makeNode(alice, board, { data: { text: 'small' } });
    const grow = await server.request('PATCH', `/v1/boards/${board}/nodes/${node.id}`, {
      token,
      body: { data: { text: 'x'.repeat(QUOTA) } },
    });
    assert.equal(grow.status, 409, grow.text);
    assert.match((grow.body as ErrorBody).message, /USER_MAX_STORED_BYTES/);
    const now = await server.request<NodeBody>('GET', `/v1/boards/${board}/nodes/${node.id}`, { token });
    assert.equal(now.body.data.node_data.text, 'small');
    const fits = await server.request('PATCH', `/v1/boards/${board}/nodes/${node.id}`, {
      token,
      body: { data: { text: 'x'.repeat(100) } },
    });
    assert.equal(fits.status, 200, fits.text);
    const shrink = await server.request('PATCH', `/v1/boards/${board}/nodes/${node.id}`, { token, body: { data: { text: 'x' } } });
    assert.equal(shrink.status, 200, shrink.text);
  });
});
