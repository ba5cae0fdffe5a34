import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { BoardBody, BoardList, Deleted, DuplicateBody, ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, type TestUser, TIMESTAMP, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

describe('boards', () => {
  test('create returns 201 with defaults', async () => {
    const res = await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'Research' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.object, 'board');
    const b = res.body.data;
    assert.equal(b.name, 'Research');
    assert.equal(b.is_public, false);
    assert.equal(b.public_access_level, null);
    assert.deepEqual([b.viewport_x, b.viewport_y, b.viewport_zoom], [0, 0, 1]);
    assert.match(b.created_at, TIMESTAMP);
    assert.equal(b.flow_state, undefined);
  });

  test('get: owner sees flow_state, others 404, public is lightweight', async () => {
    const created = (
      await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'Mine', viewport_zoom: 2 } })
    ).body.data;
    const own = await server.request<BoardBody>('GET', `/v1/boards/${created.id}`, { token: alice.token });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body.data.flow_state, { viewMode: 'canvas', viewport: { x: 0, y: 0, zoom: 2 }, nodes: [], edges: [] });
    const other = await server.request<ErrorBody>('GET', `/v1/boards/${created.id}`, { token: bob.token });
    assert.equal(other.status, 404);
    assert.ok(isErrorEnvelope(other.body, 404));
    assert.equal(other.body.message, 'Board not found');
    const patched = await server.request<BoardBody>('PATCH', `/v1/boards/${created.id}`, { token: alice.token, body: { is_public: true } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.public_access_level, 'view');
    const pub = await server.request<BoardBody>('GET', `/v1/boards/${created.id}`, { token: bob.token });
    assert.equal(pub.status, 200);
    assert.equal(pub.body.data.flow_state, undefined);
    assert.equal(pub.body.data.name, 'Mine');
    // a viewer may not change or delete it
    const bobPatch = await server.request<BoardBody>('PATCH', `/v1/boards/${created.id}`, { token: bob.token, body: { name: 'x' } });
    assert.equal(bobPatch.status, 403);
    const bobDelete = await server.request<Deleted>('DELETE', `/v1/boards/${created.id}`, { token: bob.token });
    assert.equal(bobDelete.status, 403);
  });

  test('patch changes only given fields; validation errors name the field', async () => {
    const b = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'P' } })).body.data;
    const res = await server.request<BoardBody>('PATCH', `/v1/boards/${b.id}`, { token: alice.token, body: { viewport_zoom: 1.5 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'P');
    assert.equal(res.body.data.viewport_zoom, 1.5);
    assert.ok(new Date(res.body.data.updated_at) >= new Date(b.updated_at));
    const bad = await server.request<ErrorBody>('PATCH', `/v1/boards/${b.id}`, { token: alice.token, body: { viewport_zoom: 'big' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_request');
    assert.match(bad.body.message, /viewport_zoom/);
    const unknown = await server.request<ErrorBody>('PATCH', `/v1/boards/${b.id}`, { token: alice.token, body: { nmae: 'typo' } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /nmae/);
    const privLevel = await server.request<BoardBody>('PATCH', `/v1/boards/${b.id}`, {
      token: alice.token,
      body: { public_access_level: 'edit' },
    });
    assert.equal(privLevel.status, 400);
  });

  test('list paginates with exact has_more and checked cursors', async () => {
    const carol = await server.user();
    for (let i = 0; i < 5; i++) await server.request<BoardBody>('POST', '/v1/boards', { token: carol.token, body: { name: `b${i}` } });
    const p1 = await server.request<BoardList>('GET', '/v1/boards?limit=2', { token: carol.token });
    assert.equal(p1.status, 200);
    assert.deepEqual(
      p1.body.data.map((b) => b.name),
      ['b4', 'b3'],
    );
    assert.equal(p1.body.has_more, true);
    assert.deepEqual(Object.keys(p1.body.data[0] ?? {}).sort(), ['created_at', 'id', 'is_public', 'name', 'role', 'updated_at']);
    assert.equal(p1.body.data[0]?.role, 'owner');
    // a board created between pages appears at the front and does not disturb later pages
    await server.request<BoardBody>('POST', '/v1/boards', { token: carol.token, body: { name: 'late' } });
    const p2 = await server.request<BoardList>('GET', `/v1/boards?limit=2&cursor=${p1.body.cursor}`, { token: carol.token });
    assert.deepEqual(
      p2.body.data.map((b) => b.name),
      ['b2', 'b1'],
    );
    assert.equal(p2.body.has_more, true);
    const p3 = await server.request<BoardList>('GET', `/v1/boards?limit=2&cursor=${p2.body.cursor}`, { token: carol.token });
    assert.deepEqual(
      p3.body.data.map((b) => b.name),
      ['b0'],
    );
    assert.equal(p3.body.has_more, false);
    assert.equal(p3.body.cursor, null);
    const asc = await server.request<BoardList>('GET', '/v1/boards?limit=6&order=asc', { token: carol.token });
    assert.deepEqual(
      asc.body.data.map((b) => b.name),
      ['b0', 'b1', 'b2', 'b3', 'b4', 'late'],
    );
    assert.equal(asc.body.has_more, false);
    const garbled = await server.request<BoardList>('GET', '/v1/boards?cursor=nonsense', { token: carol.token });
    assert.equal(garbled.status, 400);
    const foreign = await server.request<BoardList>('GET', `/v1/boards?cursor=${p1.body.cursor}`, { token: alice.token });
    assert.equal(foreign.status, 400);
    const wrongOrder = await server.request<BoardList>('GET', `/v1/boards?order=asc&cursor=${p1.body.cursor}`, { token: carol.token });
    assert.equal(wrongOrder.status, 400);
    for (const limit of ['0', '101', 'x', '1.5']) {
      const res = await server.request<BoardList>('GET', `/v1/boards?limit=${limit}`, { token: carol.token });
      assert.equal(res.status, 400, `limit=${limit}`);
    }
  });

  test('duplicate copies, is private and suffixed; delete is final', async () => {
    const b = (
      await server.request<BoardBody>('POST', '/v1/boards', {
        token: alice.token,
        body: { name: 'Orig', is_public: true, public_access_level: 'edit' },
      })
    ).body.data;
    const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${b.id}/duplicate`, { token: bob.token });
    assert.equal(dup.status, 201);
    assert.equal(dup.body.data.name, 'Orig (Copy)');
    assert.equal(dup.body.data.is_public, false);
    assert.equal(dup.body.data.public_access_level, null);
    const mine = await server.request<BoardBody>('GET', `/v1/boards/${dup.body.data.id}`, { token: bob.token });
    assert.ok(mine.body.data.flow_state);
    const del = await server.request<Deleted>('DELETE', `/v1/boards/${b.id}`, { token: alice.token });
    assert.deepEqual(del.body, { object: 'board', data: { id: b.id, deleted: true } });
    assert.equal((await server.request('GET', `/v1/boards/${b.id}`, { token: alice.token })).status, 404);
    assert.equal((await server.request('DELETE', `/v1/boards/${b.id}`, { token: alice.token })).status, 404);
  });

  test('private boards of others are invisible on every board route', async () => {
    const b = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'Secret' } })).body.data;
    for (const [method, path, body] of [
      ['GET', `/v1/boards/${b.id}`],
      ['PATCH', `/v1/boards/${b.id}`, { name: 'x' }],
      ['POST', `/v1/boards/${b.id}/duplicate`],
      ['DELETE', `/v1/boards/${b.id}`],
    ] as const) {
      const res = await server.request<ErrorBody>(method, path, { token: bob.token, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Board not found');
    }
    const list = await server.request<BoardList>('GET', '/v1/boards?limit=100', { token: bob.token });
    assert.ok(!list.body.data.some((x) => x.id === b.id));
  });
});
