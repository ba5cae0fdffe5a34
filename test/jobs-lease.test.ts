// Job leases: a job whose worker died is claimed again once its lease runs out, and one interrupted
// too often fails with an error saying so (never stuck in processing).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId, now } from '../src/lib/ids.js';
import { startServer } from './helpers/harness.js';

describe('leases', () => {
  test('a job whose worker died is taken up again after its lease; past max attempts it fails', async () => {
    const server = await startServer({ JOB_POLL_MS: '50', JOB_LEASE_SECONDS: '5', JOB_MAX_ATTEMPTS: '2' });
    try {
      const user = await server.user();
      const board = await server.makeBoard(user);
      const db = server.database.db;
      // Two jobs as a crashed worker left them: claimed, lease already run out.
      const insert = async (attempts: number) => {
        const id = newId();
        await db
          .insertInto('jobs')
          .values({
            id,
            user_id: user.userId,
            board_id: board,
            type: 'document_process',
            status: 'processing',
            result: null,
            error: null,
            payload: JSON.stringify({ boardId: board, nodeId: null, text: 'Recovered text.', source: 'text', sourceType: 'text' }),
            attempts,
            lease_until: new Date(Date.now() - 1000),
            created_at: now(),
            updated_at: now(),
          })
          .execute();
        return id;
      };
      const recovered = await insert(1);
      const exhausted = await insert(2);
      const a = await server.waitForJob(recovered, user.token);
      assert.equal(a.status, 'completed');
      assert.deepEqual(a.result, { chunks: 1 });
      const b = await server.waitForJob(exhausted, user.token);
      assert.equal(b.status, 'failed');
      assert.match(b.error ?? '', /interrupted 2 times/);
      const rows = await db.selectFrom('jobs').select(['payload', 'lease_until']).where('id', 'in', [recovered, exhausted]).execute();
      assert.ok(
        rows.every((r) => r.payload === null && r.lease_until === null),
        'finished jobs drop their payload and lease',
      );
    } finally {
      await server.close();
    }
  });
});
