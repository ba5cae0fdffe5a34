// The board-visibility rule has two forms, SQL (boardSeenBy, in every query that reads a board or
// what is on it) and JavaScript (canSeeBoard, for rows already in hand, as the embedded node cache
// holds them). Both are checked here on real rows of every kind, so the two can never drift apart.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import type { Principal } from '../src/auth/principal.js';
import { boardSeenBy, boardVisibleTo, canSeeBoard } from '../src/boards/access.js';
import { type TestUser, useServer } from './helpers/harness.js';

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
      const { rows } = await sql<{ seen: boolean; visible: boolean }>`
        SELECT ${boardSeenBy(principal, 'b')} AS seen, ${boardVisibleTo(principal, boardId)} AS visible FROM boards b WHERE b.id = ${boardId}`.execute(
        db,
      );
      assert.equal(rows[0]!.seen, expected, JSON.stringify({ kind, owner: user === owner }));
      assert.equal(rows[0]!.visible, expected);
      // And through the API, which must agree with both.
      const res = await server.request('GET', `/v1/boards/${boardId}`, { token: user.token });
      assert.equal(res.status, expected ? 200 : 404);
      if (expected) seen++;
    }
  }
  // The owner sees all three, the other user the two public ones.
  assert.equal(seen, 5);
});
