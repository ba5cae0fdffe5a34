// Kept node pages and single nodes brought forward by this instance's own changes
// (src/boards/list-cache.ts, follow-changes.ts): after every change of a long random series, every
// kept page and node answers what the database holds; a read after a change made here is the kept
// page brought forward (not read again); and the guarantees of the kept pages hold on it: another
// user's private board is 404, a revoked key is 401.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ErrorBody, NodeList } from './helpers/api-types.js';
import { type TestUser, useServer } from './helpers/harness.js';
import { seededRandom as random } from './helpers/seeded-random.js';
import { expectedPage, type PageSpec } from './helpers/expected-page.js';

type Spec = PageSpec & { type?: string };

describe('kept node pages follow the changes made through this instance', () => {
  const server = useServer();
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    alice = await server.user();
    bob = await server.user();
  });

  const get = (token: string, path: string) => server.request<NodeList>('GET', path, { token });

  /** The page as the database holds it now, read directly (not through the service). */
  const expected = (boardId: string, spec: Spec) =>
    expectedPage(
      server.database.db,
      sql`SELECT id, node_type, position_x, position_y, node_data, parent_node_id, created_at, updated_at FROM nodes`,
      sql`board_id = ${boardId} ${spec.type ? sql`AND node_type = ${spec.type}` : sql``}`,
      `nodes:${boardId}:${spec.type ?? '*'}`,
      spec,
    );

  test('every kept page and node answers what the database holds after each change of a random series', async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/nodes`;
    const rand = random(Number(process.env.LIST_FOLLOW_SEED ?? 32));
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]!;
    let counter = 0;
    const newNode = () =>
      rand() < 0.7
        ? { type: 'note', position: { x: counter, y: 0 }, data: { text: `note ${counter++}` } }
        : { type: 'url', position: { x: counter, y: 1 }, data: { url: `https://example.com/${counter++}` } };
    for (let i = 0; i < 9; i++) await server.makeNode(alice, boardId, newNode() as never);

    const firstPage = (await get(alice.token, `${base}?limit=3`)).body;
    const third = firstPage.data[2]!;
    const pages: Spec[] = [
      { query: '?limit=3', limit: 3, order: 'desc' },
      { query: '?limit=3&order=asc', limit: 3, order: 'asc' },
      { query: '?limit=2&type=url', limit: 2, order: 'desc', type: 'url' },
      { query: '?limit=100', limit: 100, order: 'desc' },
      { query: `?limit=3&cursor=${firstPage.cursor}`, limit: 3, order: 'desc', after: { created_at: third.created_at, id: third.id } },
    ];
    const ids = async () =>
      (await sql<{ id: string }>`SELECT id FROM nodes WHERE board_id = ${boardId}`.execute(server.database.db)).rows.map((r) => r.id);

    const check = async (step: string) => {
      for (const spec of pages) {
        const res = await get(alice.token, `${base}${spec.query}`);
        assert.equal(res.status, 200, `${step}, ${spec.query}: ${res.text}`);
        assert.deepEqual(res.body, await expected(boardId, spec), `${step}, ${spec.query}`);
      }
      const all = (await expected(boardId, { query: '', limit: 1000, order: 'desc' })).data as Array<{ id: string }>;
      for (const node of all) {
        const one = await server.request<{ data: unknown }>('GET', `${base}/${node.id}`, { token: alice.token });
        assert.equal(one.status, 200, `${step}, node ${node.id}: ${one.text}`);
        assert.deepEqual(one.body.data, node, `${step}, node ${node.id}`);
      }
    };
    // Read twice: the second is the kept answer; from here every change meets kept pages.
    await check('kept');
    await check('kept again');

    for (let step = 0; step < 40; step++) {
      const present = await ids();
      const op = present.length < 4 ? 0 : Math.floor(rand() * 6);
      let what: string;
      let res: { status: number; text: string };
      if (op === 0) {
        what = 'create';
        res = await server.request('POST', base, { token: alice.token, body: newNode() });
      } else if (op === 1) {
        const id = pick(present);
        what = `edit ${id}`;
        res = await server.request('PATCH', `${base}/${id}`, { token: alice.token, body: { data: { label: `edit ${step}` } } });
      } else if (op === 2) {
        const id = pick(present);
        what = `move ${id}`;
        res = await server.request('PATCH', `${base}/${id}`, { token: alice.token, body: { position: { x: step, y: -step } } });
      } else if (op === 3) {
        const [child, parent] = [pick(present), pick(present)];
        what = `parent ${child} under ${parent}`;
        res = await server.request('PATCH', `${base}/${child}`, {
          token: alice.token,
          body: { parent_node_id: child === parent ? null : parent },
        });
        if (res.status === 400) continue; // a cycle, refused: nothing changed
      } else if (op === 4) {
        // Deleting a node detaches its children: their changes are recorded with the deletion.
        const id = pick(present);
        what = `delete ${id}`;
        res = await server.request('DELETE', `${base}/${id}`, { token: alice.token });
      } else {
        const edit = pick(present);
        const gone = pick(present.filter((id) => id !== edit));
        what = `batch: edit ${edit}, delete ${gone}`;
        res = await server.request('POST', `/v1/boards/${boardId}/batch`, {
          token: alice.token,
          body: {
            operations: [
              { op: 'create_node', ref: 'a', ...newNode() },
              { op: 'create_node', ref: 'b', ...newNode(), parent_ref: 'a' },
              { op: 'update_node', id: edit, data: { label: `batch ${step}` } },
              { op: 'delete_node', id: gone },
            ],
          },
        });
      }
      assert.ok(res.status < 300, `${what}: ${res.status} ${res.text}`);
      await check(`step ${step}: ${what}`);
    }
  });

  test('a read after a change made here is the kept page brought forward, not read again', async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/nodes`;
    const a = await server.makeNode(alice, boardId, { data: { text: 'a' } });
    const b = await server.makeNode(alice, boardId, { data: { text: 'b' } });
    const texts = async () => (await get(alice.token, `${base}?limit=5`)).body.data.map((n) => n.node_data.text);
    assert.deepEqual(await texts(), ['b', 'a']);
    // Written behind the service's back: no change recorded, so no version raised. Every write of
    // the service is recorded; this one only shows whether the next read reads the database.
    await sql`UPDATE nodes SET node_data = '{"text":"unrecorded"}' WHERE id = ${a.id}`.execute(server.database.db);
    const edited = await server.request('PATCH', `${base}/${b.id}`, { token: alice.token, body: { data: { text: 'b2' } } });
    assert.equal(edited.status, 200, edited.text);
    // The kept page took the edit of b; a reading of the database would have shown a's unrecorded text.
    assert.deepEqual(await texts(), ['b2', 'a']);
    assert.deepEqual(
      (await get(alice.token, `${base}?limit=6`)).body.data.map((n) => n.node_data.text),
      ['b2', 'unrecorded'],
    );
  });

  test('a deletion past a full page ends its has_more; one from the page is followed by the next row moving up', async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/nodes`;
    const [a, b, c] = [
      await server.makeNode(alice, boardId, { data: { text: 'a' } }),
      await server.makeNode(alice, boardId, { data: { text: 'b' } }),
      await server.makeNode(alice, boardId, { data: { text: 'c' } }),
    ];
    const page = async () => {
      const res = await get(alice.token, `${base}?limit=2`);
      return { texts: res.body.data.map((n) => n.node_data.text), has_more: res.body.has_more };
    };
    assert.deepEqual(await page(), { texts: ['c', 'b'], has_more: true });
    // The only node after the page goes: nothing follows the page any more.
    assert.equal((await server.request('DELETE', `${base}/${a.id}`, { token: alice.token })).status, 200);
    assert.deepEqual(await page(), { texts: ['c', 'b'], has_more: false });

    await server.makeNode(alice, boardId, { data: { text: 'd' } });
    const e = await server.makeNode(alice, boardId, { data: { text: 'e' } });
    assert.deepEqual(await page(), { texts: ['e', 'd'], has_more: true });
    // Written behind the service's back (no version raised): shows whether the next read reads the database.
    await sql`UPDATE nodes SET node_data = '{"text":"unrecorded"}' WHERE id = ${c.id}`.execute(server.database.db);
    assert.equal((await server.request('DELETE', `${base}/${e.id}`, { token: alice.token })).status, 200);
    // c moved up from the rows kept after the page, as it was when kept.
    assert.deepEqual(await page(), { texts: ['d', 'c'], has_more: true });
    assert.equal((await server.request('DELETE', `${base}/${b.id}`, { token: alice.token })).status, 200);
    assert.deepEqual(await page(), { texts: ['d', 'c'], has_more: false });
  });

  test("a page brought forward is still refused to another user's key and to a revoked key", async () => {
    const boardId = await server.makeBoard(alice);
    const base = `/v1/boards/${boardId}/nodes`;
    const reader = await alice.keyWith(['read']);
    const a = await server.makeNode(alice, boardId, { data: { text: 'a' } });
    assert.equal((await get(reader.raw_key, `${base}?limit=5`)).status, 200);
    assert.equal((await get(reader.raw_key, `${base}/${a.id}`)).status, 200);
    await server.makeNode(alice, boardId, { data: { text: 'b' } });
    const edited = await server.request('PATCH', `${base}/${a.id}`, { token: alice.token, body: { data: { text: 'a2' } } });
    assert.equal(edited.status, 200);
    const read = await get(reader.raw_key, `${base}?limit=5`);
    assert.deepEqual(
      read.body.data.map((n) => n.node_data.text),
      ['b', 'a2'],
    );
    for (const path of [`${base}?limit=5`, `${base}/${a.id}`]) {
      const hidden = await get(bob.token, path);
      assert.equal(hidden.status, 404, hidden.text);
    }
    if (server.database.embedded) {
      assert.equal((await server.request('DELETE', `/v1/me/api-keys/${reader.id}`, { token: alice.token })).status, 200);
    } else {
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${reader.id}`.execute(server.database.db);
    }
    for (const path of [`${base}?limit=5`, `${base}/${a.id}`]) {
      const refused = await get(reader.raw_key, path);
      assert.equal(refused.status, 401, refused.text);
      assert.equal((refused.body as unknown as ErrorBody).code, 'unauthorized');
    }
  });
});
