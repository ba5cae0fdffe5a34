// The board-visibility rule has three forms: SQL (boardSeenBy, in every query that reads a board or
// what is on it), JavaScript (canSeeBoard, for rows already in hand, as the embedded node cache
// holds them) and the database function visible_board_version (0016-board-version.ts, before a
// kept list page). All are checked here on real rows of every kind, so they can never drift apart;
// with members (issue 31), the TypeScript form is accessOf, whose permissions.read the SQL forms
// must equal for the owner, each role and a stranger, and whose permissions the API answers.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import type { Principal } from '../src/auth/principal.js';
import { accessOf, boardSeenBy, boardVisibleTo, canSeeBoard, memberRoleOf } from '../src/access/board-access.js';
import { MISSING_ID, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let owner: TestUser;
let other: TestUser;
before(async () => {
  owner = await server.user();
  other = await server.user();
});

test('the SQL and JavaScript forms of the visibility rule agree on private, view and edit boards, for the owner and anyone else', async () => {
  const { db } = server.database;
  const kinds = [{}, { is_public: true, public_access_level: 'view' }, { is_public: true, public_access_level: 'edit' }];
  let seen = 0;
  for (const kind of kinds) {
    const boardId = await server.makeBoard(owner, kind);
    const row = await db.selectFrom('boards').selectAll().where('id', '=', boardId).executeTakeFirstOrThrow();
    for (const user of [owner, other]) {
      const principal: Principal = { userId: user.userId, kind: 'api_key', keyId: 'k', scopes: ['read'] };
      const expected = canSeeBoard(row, principal);
      const { rows } = await sql<{ seen: boolean; visible: boolean; version: number | null }>`
        SELECT ${boardSeenBy(principal, 'b')} AS seen, ${boardVisibleTo(principal, boardId)} AS visible,
          visible_board_version(${boardId}, ${user.userId}, NULL) AS version
        FROM boards b WHERE b.id = ${boardId}`.execute(db);
      assert.equal(rows[0]!.seen, expected, JSON.stringify({ kind, owner: user === owner }));
      assert.equal(rows[0]!.visible, expected);
      assert.equal(rows[0]!.version !== null, expected);
      // And through the API, which must agree with both.
      const res = await server.request('GET', `/v1/boards/${boardId}`, { token: user.token });
      assert.equal(res.status, expected ? 200 : 404);
      if (expected) seen++;
    }
  }
  // The owner sees all three, the other user the two public ones.
  assert.equal(seen, 5);
});

test('for a key not read by the request, the SQL rule and visible_board_version agree on valid, revoked, expired and unknown keys', async () => {
  const { db } = server.database;
  const boardId = await server.makeBoard(owner);
  const valid = await owner.keyWith(['read']);
  const revoked = await owner.keyWith(['read']);
  const expired = await owner.keyWith(['read'], { expires_at: new Date(Date.now() + 60_000).toISOString() });
  await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${revoked.id}`.execute(db);
  await sql`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = ${expired.id}`.execute(db);
  const cases = [
    [valid.id, true],
    [revoked.id, false],
    [expired.id, false],
    [MISSING_ID, false],
  ] as const;
  for (const [keyId, expected] of cases) {
    const principal: Principal = { userId: owner.userId, kind: 'api_key', keyId, scopes: ['read'], unconfirmed: true };
    const { rows } = await sql<{ seen: boolean; version: number | null }>`
      SELECT ${boardSeenBy(principal, 'b')} AS seen, visible_board_version(${boardId}, ${owner.userId}, ${keyId}) AS version
      FROM boards b WHERE b.id = ${boardId}`.execute(db);
    assert.equal(rows[0]!.seen, expected, keyId);
    assert.equal(rows[0]!.version !== null, expected, keyId);
  }
});

test('with members: boardSeenBy, visible_board_version and accessOf agree for the owner, every role and a stranger, and the API answers accessOf', async () => {
  const { db } = server.database;
  const kinds = [{}, { is_public: true, public_access_level: 'view' }, { is_public: true, public_access_level: 'edit' }];
  const roles = ['viewer', 'commenter', 'editor'] as const;
  const members = await Promise.all(roles.map(() => server.user()));
  for (const kind of kinds) {
    const boardId = await server.makeBoard(owner, kind);
    for (const [i, role] of roles.entries()) {
      const res = await server.request('POST', `/v1/boards/${boardId}/members`, {
        token: owner.token,
        body: { user_id: members[i]!.userId, role },
      });
      assert.equal(res.status, 201, res.text);
    }
    for (const user of [owner, other, ...members]) {
      const principal: Principal = { userId: user.userId, kind: 'api_key', keyId: 'k', scopes: ['read'] };
      const { rows } = await sql<{ seen: boolean; version: number | null; member_role: null | 'viewer' | 'commenter' | 'editor' }>`
        SELECT ${boardSeenBy(principal, 'b')} AS seen, visible_board_version(${boardId}, ${user.userId}, NULL) AS version,
          ${memberRoleOf(principal, 'b')} AS member_role
        FROM boards b WHERE b.id = ${boardId}`.execute(db);
      const row = await db.selectFrom('boards').selectAll().where('id', '=', boardId).executeTakeFirstOrThrow();
      const access = accessOf(row, rows[0]!.member_role, principal);
      const label = JSON.stringify({ kind, user: user.userId, role: access.role });
      assert.equal(rows[0]!.seen, access.permissions.read, label);
      assert.equal(rows[0]!.version !== null, access.permissions.read, label);
      // canSeeBoard (no membership in hand) never admits more than the rule.
      if (canSeeBoard(row, principal)) assert.ok(access.permissions.read, label);
      const res = await server.request<{ data: { role: unknown; permissions: unknown } }>('GET', `/v1/boards/${boardId}`, {
        token: user.token,
      });
      assert.equal(res.status, access.permissions.read ? 200 : 404, label);
      if (access.permissions.read) assert.deepEqual({ role: res.body.data.role, permissions: res.body.data.permissions }, access, label);
    }
  }
});
