// Pages of a board's node and edge lists kept per board version (src/boards/list-cache.ts): the
// cache's own bounds, and through the API that a kept page is never stale (every kind of write shows
// at once) and never shown to someone who may not see the board now.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type KyselyPlugin, sql } from 'kysely';
import type { Principal } from '../src/auth/principal.js';
import { BoardVersions } from '../src/boards/board-versions.js';
import { BoardListCache } from '../src/boards/list-cache.js';
import { ApiError } from '../src/errors.js';
import type { EdgeList, ErrorBody, NodeList } from './helpers/api-types.js';
import { MISSING_ID, type TestUser, useServer } from './helpers/harness.js';

describe('BoardListCache', () => {
  const page = (text: string) => Buffer.from(text);

  test('answers a page only for the version it was kept at', () => {
    const cache = new BoardListCache(1 << 20);
    cache.put('a', 3, page('three'));
    assert.equal(cache.get('a', 3)?.toString(), 'three');
    assert.equal(cache.get('a', 4), undefined);
    assert.equal(cache.get('b', 3), undefined);
    cache.put('a', 4, page('four'));
    assert.equal(cache.get('a', 4)?.toString(), 'four');
    assert.equal(cache.get('a', 3), undefined);
    // A slower read of an older version does not replace the newer page.
    cache.put('a', 2, page('two'));
    assert.equal(cache.get('a', 4)?.toString(), 'four');
    assert.equal(cache.size.pages, 1);
  });

  test('stays within its byte budget, forgetting the least recently used page first', () => {
    // Each page counts its 500 bytes, its key and an overhead of about 100: sixteen fit in 10,000.
    const cache = new BoardListCache(10_000);
    const body = page('x'.repeat(500));
    for (let i = 1; i <= 16; i++) cache.put(`k${i}`, 1, body);
    assert.equal(cache.size.pages, 16);
    assert.ok(cache.get('k1', 1), 'k1 used again: k2 is now the least recently used');
    for (let i = 17; i <= 20; i++) cache.put(`k${i}`, 1, body);
    assert.ok(cache.size.bytes <= 10_000, `${cache.size.bytes} bytes kept`);
    assert.equal(cache.size.pages, 16);
    assert.ok(cache.get('k1', 1));
    for (const gone of ['k2', 'k3', 'k4', 'k5']) assert.equal(cache.get(gone, 1), undefined, gone);
    assert.ok(cache.get('k6', 1));
    assert.ok(cache.get('k20', 1));
  });

  test('keeps no page larger than a sixteenth of the budget', () => {
    const cache = new BoardListCache(16_000);
    cache.put('big', 1, page('x'.repeat(1_000)));
    assert.equal(cache.get('big', 1), undefined);
    assert.equal(cache.size.pages, 0);
  });
});

describe('node and edge lists through the kept pages', () => {
  const server = useServer();
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  const nodes = (token: string, boardId: string, query = '') =>
    server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes${query}`, { token });
  const edges = (token: string, boardId: string, query = '') =>
    server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges${query}`, { token });

  test('a repeated list is the same answer, and every write to the board shows in the next one', async () => {
    const boardId = await server.makeBoard(alice);
    const a = await server.makeNode(alice, boardId, { data: { text: 'a' } });
    const b = await server.makeNode(alice, boardId, { data: { text: 'b' } });
    const first = await nodes(alice.token, boardId);
    const again = await nodes(alice.token, boardId);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
    // What the list says is what the single reads say.
    for (const item of again.body.data) {
      const one = await server.request<{ data: unknown }>('GET', `/v1/boards/${boardId}/nodes/${item.id}`, { token: alice.token });
      assert.deepEqual(one.body.data, item);
    }

    const c = await server.makeNode(alice, boardId, { data: { text: 'c' } });
    assert.deepEqual(
      (await nodes(alice.token, boardId)).body.data.map((n) => n.id),
      [c.id, b.id, a.id],
    );
    const moved = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${b.id}`, {
      token: alice.token,
      body: { position: { x: 7, y: 8 }, data: { text: 'b2' } },
    });
    assert.equal(moved.status, 200, moved.text);
    const afterUpdate = (await nodes(alice.token, boardId)).body.data.find((n) => n.id === b.id);
    assert.deepEqual([afterUpdate?.position_x, afterUpdate?.position_y, afterUpdate?.node_data.text], [7, 8, 'b2']);

    const edge = await server.makeEdge(alice, boardId, a.id, c.id);
    assert.deepEqual(
      (await edges(alice.token, boardId)).body.data.map((e) => e.id),
      [edge.id],
    );
    assert.deepEqual(
      (await edges(alice.token, boardId, `?node_id=${b.id}`)).body.data.map((e) => e.id),
      [],
    );
    // Deleting a node takes its edges with it: both lists change.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${a.id}`, { token: alice.token })).status, 200);
    assert.deepEqual(
      (await nodes(alice.token, boardId)).body.data.map((n) => n.id),
      [c.id, b.id],
    );
    assert.deepEqual((await edges(alice.token, boardId)).body.data, []);

    // A batch of writes is one more version.
    const batch = await server.request('POST', `/v1/boards/${boardId}/batch`, {
      token: alice.token,
      body: { operations: [{ op: 'delete_node', id: c.id }] },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(
      (await nodes(alice.token, boardId)).body.data.map((n) => n.id),
      [b.id],
    );
  });

  test('pages and filters are kept apart, and a new node moves every page', async () => {
    const boardId = await server.makeBoard(alice);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await server.makeNode(alice, boardId, { data: { text: `n${i}` } }));
    const first = await nodes(alice.token, boardId, '?limit=2');
    assert.equal(first.body.has_more, true);
    const second = await nodes(alice.token, boardId, `?limit=2&cursor=${first.body.cursor}`);
    assert.deepEqual(
      second.body.data.map((n) => n.id),
      [made[2]!.id, made[1]!.id],
    );
    assert.deepEqual(
      (await nodes(alice.token, boardId, '?limit=2&order=asc')).body.data.map((n) => n.id),
      [made[0]!.id, made[1]!.id],
    );
    assert.deepEqual((await nodes(alice.token, boardId, '?limit=2&type=video')).body.data, []);
    // The same requests again: each its own page.
    assert.equal((await nodes(alice.token, boardId, `?limit=2&cursor=${first.body.cursor}`)).text, second.text);
    assert.equal((await nodes(alice.token, boardId, '?limit=2')).text, first.text);

    const newest = await server.makeNode(alice, boardId, { data: { text: 'newest' } });
    assert.deepEqual(
      (await nodes(alice.token, boardId, '?limit=2')).body.data.map((n) => n.id),
      [newest.id, made[4]!.id],
    );
    // The old cursor still pages after the node it named.
    assert.deepEqual(
      (await nodes(alice.token, boardId, `?limit=2&cursor=${first.body.cursor}`)).body.data.map((n) => n.id),
      [made[2]!.id, made[1]!.id],
    );
  });

  test('a kept page follows the board into and out of public view, and a revoked key gets nothing from it', async () => {
    const boardId = await server.makeBoard(alice);
    await server.makeNode(alice, boardId);
    const reader = await alice.keyWith(['read']);
    assert.equal((await nodes(reader.raw_key, boardId)).status, 200);
    assert.equal((await nodes(reader.raw_key, boardId)).status, 200);

    const hidden = await nodes(bob.token, boardId);
    assert.equal(hidden.status, 404, hidden.text);
    assert.equal((await edges(bob.token, boardId)).status, 404);

    const share = { is_public: true, public_access_level: 'view' };
    assert.equal((await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: share })).status, 200);
    const shown = await nodes(bob.token, boardId);
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.text, (await nodes(reader.raw_key, boardId)).text);

    assert.equal((await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: false } })).status, 200);
    assert.equal((await nodes(bob.token, boardId)).status, 404);

    // Revoked: the next read is refused, though its page is kept. On PostgreSQL directly in the
    // database, as another instance, the CLI or an operator would; the embedded database has one
    // process, which revokes through the API.
    if (server.database.embedded) {
      assert.equal((await server.request('DELETE', `/v1/me/api-keys/${reader.id}`, { token: alice.token })).status, 200);
    } else {
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${reader.id}`.execute(server.database.db);
    }
    for (const list of [nodes, edges]) {
      const refused = await list(reader.raw_key, boardId);
      assert.equal(refused.status, 401, refused.text);
      assert.equal((refused.body as unknown as ErrorBody).code, 'unauthorized');
    }
  });

  test('board versions read at once are read together, and each caller gets its own answer', async () => {
    const { db } = server.database;
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        if (JSON.stringify(args.node).includes('visible_board_version')) statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const versions = new BoardVersions(db.withPlugin(counter));
    const mine = await server.makeBoard(alice);
    const shared = await server.makeBoard(alice, { is_public: true, public_access_level: 'view' });
    await server.makeNode(alice, shared);
    const revoked = await alice.keyWith(['read']);
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${revoked.id}`.execute(db);
    const seq = async (boardId: string) =>
      (await db.selectFrom('boards').select('event_seq').where('id', '=', boardId).executeTakeFirstOrThrow()).event_seq;

    const as = (user: TestUser, keyId?: string): Principal => ({
      userId: user.userId,
      kind: 'api_key',
      keyId: keyId ?? 'unused',
      scopes: ['read'],
      ...(keyId ? { unconfirmed: true } : {}),
    });
    const cases: Array<[Principal, string, number | string]> = [
      [as(alice), mine, await seq(mine)],
      [as(bob), mine, 'not_found'],
      [as(bob), shared, await seq(shared)],
      [as(alice), shared, await seq(shared)],
      [as(alice, revoked.id), mine, 'unauthorized'],
      [as(alice), MISSING_ID, 'not_found'],
    ];
    const burst = Array.from({ length: 60 }, (_, i) => cases[i % cases.length]!);
    const answers = await Promise.all(
      burst.map(([principal, boardId]) =>
        versions.visibleTo(principal, boardId).catch((error: unknown) => (error instanceof ApiError ? error.code : error)),
      ),
    );
    assert.deepEqual(
      answers,
      burst.map(([, , expected]) => expected),
    );
    // Sixty reads asked for at once: the first goes alone, the rest together in the next statement.
    assert.equal(statements, 2);
  });

  test('a deleted board answers 404, not its kept page', async () => {
    const boardId = await server.makeBoard(alice);
    await server.makeNode(alice, boardId);
    assert.equal((await nodes(alice.token, boardId)).status, 200);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}`, { token: alice.token })).status, 200);
    const gone = await nodes(alice.token, boardId);
    assert.equal(gone.status, 404, gone.text);
    assert.equal((gone.body as unknown as ErrorBody).code, 'not_found');
  });
});
