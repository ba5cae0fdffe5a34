// Named prepared statements on a real PostgreSQL (src/db/prepared-pool.ts): a schema change under a
// kept plan (a rolling deploy's migration) and a connection that lost its statements (a proxy that
// does not keep them) are recovered, not answered with an error on every later request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { PreparedStatementPool } from '../src/db/prepared-pool.js';
import { realPostgres } from './helpers/wire-database.js';

describe('named prepared statements', { skip: realPostgres ? false : 'needs a real PostgreSQL server (TEST_POSTGRES_URL)' }, () => {
  let pool: pg.Pool;
  before(async () => {
    pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 });
    await pool.query('CREATE TABLE prepared_probe (id int PRIMARY KEY, word text)');
    await pool.query(`INSERT INTO prepared_probe VALUES (1, 'one')`);
  });
  after(async () => {
    await pool.query('DROP TABLE IF EXISTS prepared_probe');
    await pool.end();
  });

  const read = async (prepared: PreparedStatementPool): Promise<{ id: number }> => {
    const client = await prepared.connect();
    try {
      return (await client.query<{ id: number }>('SELECT * FROM prepared_probe WHERE id = $1', [1])).rows[0]!;
    } finally {
      client.release();
    }
  };

  test('a column added under a kept plan: the statement is prepared again on the new schema', async () => {
    const prepared = new PreparedStatementPool(pool);
    assert.deepEqual(await read(prepared), { id: 1, word: 'one' });
    await pool.query('ALTER TABLE prepared_probe ADD COLUMN extra int');
    assert.deepEqual(await read(prepared), { id: 1, word: 'one', extra: null });
    assert.deepEqual(await read(prepared), { id: 1, word: 'one', extra: null });
  });

  test('a connection that lost its statements: naming them stops, and the statement is answered', async () => {
    const reasons: string[] = [];
    const prepared = new PreparedStatementPool(pool, (reason) => reasons.push(reason));
    await read(prepared);
    // What a transaction-pooling proxy does to a client: the next statement reaches a server
    // connection that never saw the Parse.
    await pool.query('DEALLOCATE ALL');
    assert.equal((await read(prepared)).id, 1);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]!, /does not exist/);
    assert.equal((await read(prepared)).id, 1);
  });
});
