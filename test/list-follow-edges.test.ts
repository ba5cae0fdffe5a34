// Kept edge pages brought forward by this instance's own changes, as node pages are
// (src/boards/list-cache.ts, follow-changes.ts): after every change of a long random series, every
// kept edge page answers what the database holds; a read after an edge change made here is the kept
// page brought forward (not read again); another user and a revoked key are refused it. And a
// followed page keeps its answers at the versions before the last two commits it followed, for a read
// whose version was read just before them.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { BoardListCache, type Follow } from '../src/boards/list-cache.js';
import type { EdgeList, ErrorBody } from './helpers/api-types.js';
import { type TestUser, useServer } from './helpers/harness.js';
import { seededRandom as random } from './helpers/seeded-random.js';
import { expectedPage, type PageSpec } from './helpers/expected-page.js';

type Spec = PageSpec & { nodeId?: string };

describe('BoardListCache: the answer before a followed commit', () => {
  const appendAll: Follow<string> = (value, changes) => `${value}+${changes.length}`;

  test('a read of a version before the last two commits gets the page of that version, an older one nothing', () => {
    const cache = new BoardListCache(1 << 20);
    cache.put('k', 5, Buffer.from('five'), undefined, { board: 'b', value: 'five', follow: appendAll });
    cache.apply('b', [{ first: 6, changes: [{ type: 'node.updated', data: {} }] }]);
    // The new version's bytes are made on its first read (from the value); the old one's are kept.
    assert.deepEqual(cache.find('k', 6), { body: undefined, tag: undefined, value: 'five+1' });
    assert.equal(cache.find('k', 5)?.body?.toString(), 'five');
    cache.fill('k', 6, Buffer.from('six'));
    assert.equal(cache.get('k', 6)?.toString(), 'six');
    cache.apply('b', [
      {
        first: 7,
        changes: [
          { type: 'node.updated', data: {} },
          { type: 'node.updated', data: {} },
        ],
      },
    ]);
    assert.equal(cache.find('k', 8)?.value, 'five+1+2');
    assert.equal(cache.get('k', 6)?.toString(), 'six', 'the version before this commit');
    assert.equal(cache.find('k', 7), undefined, 'a version inside a commit was never seen');
    assert.equal(cache.get('k', 5)?.toString(), 'five', 'two commits ago');
    cache.apply('b', [{ first: 9, changes: [{ type: 'node.updated', data: {} }] }]);
    assert.equal(cache.find('k', 9)?.value, 'five+1+2+1');
    assert.equal(cache.find('k', 8)?.value, 'five+1+2');
    assert.equal(cache.get('k', 6)?.toString(), 'six');
    assert.equal(cache.find('k', 5), undefined, 'three commits ago');
  });

  test('a commit that cannot be followed keeps no answer beside the kept one', () => {
    const cache = new BoardListCache(1 << 20);
    cache.put('k', 5, Buffer.from('five'), undefined, { board: 'b', value: 'five', follow: () => undefined });
    cache.apply('b', [{ first: 6, changes: [{ type: 'node.deleted', data: { id: 'x' } }] }]);
    assert.equal(cache.get('k', 5)?.toString(), 'five');
    assert.equal(cache.find('k', 6), undefined);
  });
});

describe('kept edge pages follow the changes made through this instance', () => {
  const server = useServer();
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  const get = (token: string, path: string) => server.request<EdgeList>('GET', path, { token });

  /** The page as the database holds it now, read directly (not through the service). */
  const expected = (boardId: string, spec: Spec) =>
    expectedPage(
      server.database.db,
      sql`SELECT id, board_id, source_node_id, target_node_id, edge_type, edge_data, created_at, updated_at FROM edges`,
      sql`board_id = ${boardId} ${spec.nodeId ? sql`AND (source_node_id = ${spec.nodeId} OR target_node_id = ${spec.nodeId})` : sql``}`,
      `edges:${boardId}:${spec.nodeId ?? '*'}`,
      spec,
    );

  test('every kept edge page answers what the database holds after each change of a random series', async () => {
    const boardId = await server.makeBoard(alice);
    const nodesPath = `/v1/boards/${boardId}/nodes`;
    const base = `/v1/boards/${boardId}/edges`;
    const rand = random(Number(process.env.LIST_FOLLOW_SEED ?? 32));
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]!;
    const nodeIds: string[] = [];
    for (let i = 0; i < 8; i++) nodeIds.push((await server.makeNode(alice, boardId, { data: { text: `n${i}` } })).id);
    // The filtered list's node is never deleted, so its page is followed through the whole series.
    const hub = nodeIds[0]!;
    const liveNodes = async () =>
      (await sql<{ id: string }>`SELECT id FROM nodes WHERE board_id = ${boardId}`.execute(server.database.db)).rows.map((r) => r.id);
    const liveEdges = async () =>
      (await sql<{ id: string }>`SELECT id FROM edges WHERE board_id = ${boardId}`.execute(server.database.db)).rows.map((r) => r.id);
    const newEdge = async () => {
      const present = await liveNodes();
      const source = rand() < 0.4 ? hub : pick(present);
      return { source_node_id: source, target_node_id: pick(present), type: rand() < 0.5 ? 'default' : 'link', data: { w: rand() } };
    };
    for (let i = 0; i < 9; i++) {
      const body = await newEdge();
      await server.makeEdge(alice, boardId, body.source_node_id, body.target_node_id, { data: body.data });
    }

    const firstPage = (await get(alice.token, `${base}?limit=3`)).body;
    const third = firstPage.data[2]!;
    const pages: Spec[] = [
      { query: '?limit=3', limit: 3, order: 'desc' },
      { query: '?limit=3&order=asc', limit: 3, order: 'asc' },
      { query: `?limit=2&node_id=${hub.toUpperCase()}`, limit: 2, order: 'desc', nodeId: hub },
      { query: '?limit=100', limit: 100, order: 'desc' },
      { query: `?limit=3&cursor=${firstPage.cursor}`, limit: 3, order: 'desc', after: { created_at: third.created_at, id: third.id } },
    ];
    const check = async (step: string) => {
      for (const spec of pages) {
        const res = await get(alice.token, `${base}${spec.query}`);
        assert.equal(res.status, 200, `${step}, ${spec.query}: ${res.text}`);
        assert.deepEqual(res.body, await expected(boardId, spec), `${step}, ${spec.query}`);
      }
    };
    // Read twice: the second is the kept answer; from here every change meets kept pages.
    await check('kept');
    await check('kept again');

    for (let step = 0; step < 40; step++) {
      const edges = await liveEdges();
      const op = edges.length < 4 ? 0 : Math.floor(rand() * 7);
      let what: string;
      let res: { status: number; text: string };
      if (op === 0) {
        what = 'create';
        res = await server.request('POST', base, { token: alice.token, body: await newEdge() });
      } else if (op === 1) {
        const id = pick(edges);
        what = `edit ${id}`;
        res = await server.request('PATCH', `${base}/${id}`, { token: alice.token, body: { data: { label: `edit ${step}` } } });
      } else if (op === 2) {
        const id = pick(edges);
        what = `retype ${id}`;
        res = await server.request('PATCH', `${base}/${id}`, { token: alice.token, body: { type: `t${step}` } });
      } else if (op === 3) {
        const id = pick(edges);
        what = `delete ${id}`;
        res = await server.request('DELETE', `${base}/${id}`, { token: alice.token });
      } else if (op === 4) {
        // A node's deletion deletes its edges: recorded as edge.deleted each.
        const present = (await liveNodes()).filter((id) => id !== hub);
        if (present.length < 3) continue;
        const id = pick(present);
        what = `delete node ${id}`;
        res = await server.request('DELETE', `${nodesPath}/${id}`, { token: alice.token });
      } else if (op === 5) {
        // A node change leaves the edge pages as they are.
        const id = pick(await liveNodes());
        what = `edit node ${id}`;
        res = await server.request('PATCH', `${nodesPath}/${id}`, { token: alice.token, body: { data: { text: `node ${step}` } } });
      } else {
        const edit = pick(edges);
        const gone = pick(edges.filter((id) => id !== edit));
        const made = await newEdge();
        what = `batch: create, edit ${edit}, delete ${gone}, a new node and an edge to it`;
        res = await server.request('POST', `/v1/boards/${boardId}/batch`, {
          token: alice.token,
          body: {
            operations: [
              { op: 'create_edge', ...made },
              { op: 'create_node', ref: 'n', type: 'note', position: { x: step, y: 0 }, data: { text: `new ${step}` } },
              { op: 'create_edge', source_node_id: hub, target_ref: 'n' },
              { op: 'update_edge', id: edit, data: { label: `batch ${step}` } },
              { op: 'delete_edge', id: gone },
            ],
          },
        });
      }
      assert.ok(res.status < 300, `${what}: ${res.status} ${res.text}`);
      await check(`step ${step}: ${what}`);
    }
  });

  test('a read after an edge change made here is the kept page brought forward, not read again', async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/edges`;
    const n = await server.makeNode(alice, boardId, { data: { text: 'n' } });
    const a = await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'a' } });
    const b = await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'b' } });
    const labels = async (limit: number) => (await get(alice.token, `${base}?limit=${limit}`)).body.data.map((e) => e.edge_data.label);
    assert.deepEqual(await labels(5), ['b', 'a']);
    // Written behind the service's back: no change recorded, so no version raised. Every write of
    // the service is recorded; this one only shows whether the next read reads the database.
    await sql`UPDATE edges SET edge_data = '{"label":"unrecorded"}' WHERE id = ${a.id}`.execute(server.database.db);
    const edited = await server.request('PATCH', `${base}/${b.id}`, { token: alice.token, body: { data: { label: 'b2' } } });
    assert.equal(edited.status, 200, edited.text);
    // The kept page took the edit of b; a reading of the database would have shown a's unrecorded label.
    assert.deepEqual(await labels(5), ['b2', 'a']);
    assert.deepEqual(await labels(6), ['b2', 'unrecorded']);
  });

  test("a node's deletion past a full page ends its has_more; one from the page moves the next edge up", async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/edges`;
    const [m, n] = [
      await server.makeNode(alice, boardId, { data: { text: 'm' } }),
      await server.makeNode(alice, boardId, { data: { text: 'n' } }),
    ];
    await server.makeEdge(alice, boardId, m.id, m.id, { data: { label: 'a' } });
    const b = await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'b' } });
    await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'c' } });
    const page = async () => {
      const res = await get(alice.token, `${base}?limit=2`);
      return { labels: res.body.data.map((e) => e.edge_data.label), has_more: res.body.has_more };
    };
    assert.deepEqual(await page(), { labels: ['c', 'b'], has_more: true });
    // Deleting m deletes a (an edge.deleted of its own), the only edge after the page.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${m.id}`, { token: alice.token })).status, 200);
    assert.deepEqual(await page(), { labels: ['c', 'b'], has_more: false });
    // Written behind the service's back (no version raised): shows whether the next read reads the database.
    await sql`UPDATE edges SET edge_data = '{"label":"unrecorded"}' WHERE id = ${b.id}`.execute(server.database.db);
    const d = await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'd' } });
    assert.deepEqual(await page(), { labels: ['d', 'c'], has_more: true });
    assert.equal((await server.request('DELETE', `${base}/${d.id}`, { token: alice.token })).status, 200);
    // b moved up from the rows kept after the page, as it was when kept.
    assert.deepEqual(await page(), { labels: ['c', 'b'], has_more: false });
  });

  test("an edge page brought forward is still refused to another user's key and to a revoked key", async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/edges`;
    const reader = await alice.keyWith(['read']);
    const n = await server.makeNode(alice, boardId, { data: { text: 'n' } });
    const a = await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'a' } });
    assert.equal((await get(reader.raw_key, `${base}?limit=5`)).status, 200);
    await server.makeEdge(alice, boardId, n.id, n.id, { data: { label: 'b' } });
    const edited = await server.request('PATCH', `${base}/${a.id}`, { token: alice.token, body: { data: { label: 'a2' } } });
    assert.equal(edited.status, 200);
    assert.deepEqual(
      (await get(reader.raw_key, `${base}?limit=5`)).body.data.map((e) => e.edge_data.label),
      ['b', 'a2'],
    );
    const hidden = await get(bob.token, `${base}?limit=5`);
    assert.equal(hidden.status, 404, hidden.text);
    if (server.database.embedded) {
      assert.equal((await server.request('DELETE', `/v1/me/api-keys/${reader.id}`, { token: alice.token })).status, 200);
    } else {
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${reader.id}`.execute(server.database.db);
    }
    const refused = await get(reader.raw_key, `${base}?limit=5`);
    assert.equal(refused.status, 401, refused.text);
    assert.equal((refused.body as unknown as ErrorBody).code, 'unauthorized');
  });
});
