// A board's auto_read setting (issue 29): true by default, set by the owner on create and update,
// answered to a visitor of a public board and in the board.updated event, kept by a duplicate; a
// wrong type is the contract's 400 and changes nothing; a visitor cannot change it.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { BoardBody, DuplicateBody, ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

test('auto_read is true by default, set by the owner, seen by a visitor, kept by a duplicate', async () => {
  const created = await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'Reading' } });
  assert.equal(created.status, 201);
  assert.equal(created.body.data.auto_read, true);
  const id = created.body.data.id;

  const off = await server.request<BoardBody>('PATCH', `/v1/boards/${id}`, {
    token: alice.token,
    body: { auto_read: false, is_public: true, public_access_level: 'edit' },
  });
  assert.equal(off.status, 200);
  assert.equal(off.body.data.auto_read, false);
  assert.equal((await server.request<BoardBody>('GET', `/v1/boards/${id}`, { token: alice.token })).body.data.auto_read, false);

  // Someone else's app follows the setting too: a visitor of the public board reads it.
  const seen = await server.request<BoardBody>('GET', `/v1/boards/${id}`, { token: bob.token });
  assert.equal(seen.status, 200);
  assert.equal(seen.body.data.auto_read, false);
  // Only the owner changes it, even on a board shared with edit access.
  const refused = await server.request<ErrorBody>('PATCH', `/v1/boards/${id}`, { token: bob.token, body: { auto_read: true } });
  assert.equal(refused.status, 403);

  const copy = await server.request<DuplicateBody>('POST', `/v1/boards/${id}/duplicate`, { token: alice.token });
  assert.equal(copy.status, 201);
  assert.equal(copy.body.data.auto_read, false);

  const born = await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'Quiet', auto_read: false } });
  assert.equal(born.body.data.auto_read, false);
});

test('auto_read of another type is a 400 that changes nothing', async () => {
  const id = await server.makeBoard(alice);
  const bad = await server.request<ErrorBody>('PATCH', `/v1/boards/${id}`, {
    token: alice.token,
    body: { auto_read: 'no', name: 'Renamed' },
  });
  assert.equal(bad.status, 400);
  assert.ok(isErrorEnvelope(bad.body, 400));
  const board = (await server.request<BoardBody>('GET', `/v1/boards/${id}`, { token: alice.token })).body.data;
  assert.equal(board.auto_read, true);
  assert.notEqual(board.name, 'Renamed');
});
