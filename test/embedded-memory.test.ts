// The embedded database's memory settings (issue 32: the service at rest under 300 MiB). The
// resident memory itself is measured by hand (BENCHMARKS.md "Embedded service memory"), never
// asserted; what sets it is checked here: the buffer pool of the embedded PostgreSQL, whose shared
// memory is resident from the start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useServer } from './helpers/harness.js';
import { wireRun } from './helpers/wire-database.js';

describe('the embedded database', { skip: wireRun ? 'the embedded database only' : false }, () => {
  const server = useServer();

  test('its PostgreSQL runs with 16 MB of shared buffers', async () => {
    const { rows } = await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(server.database.db);
    assert.equal(rows[0]?.shared_buffers, '16MB');
  });
});
