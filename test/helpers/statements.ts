// The statements requests run against the service's pool, counted rather than timed: each one is a
// round trip, and on the embedded database a turn of its single thread.
import assert from 'node:assert/strict';
import type { PostgresPoolClient } from 'kysely';
import type { TestServer } from './harness.js';

/**
 * The statements the requests run while `work` runs (those outside a request are not theirs), less
 * the announcement of committed changes to other instances on PostgreSQL (events/announcer.ts: one
 * statement after the commit, shared by the writes committed meanwhile; none on the embedded
 * database, which one process serves), of which there is at most one.
 */
export async function requestStatements(server: TestServer, work: () => Promise<void>): Promise<string[]> {
  const pool = server.database.fairPool;
  const connect = pool.connect.bind(pool);
  const seen: string[] = [];
  pool.connect = async (): Promise<PostgresPoolClient> => {
    const client = await connect();
    const inRequest = pool.current() !== undefined;
    return {
      release: () => client.release(),
      query: ((text: unknown, ...rest: unknown[]) => {
        if (inRequest) seen.push(typeof text === 'string' ? text : String((text as { text?: string }).text));
        return (client.query as (...args: unknown[]) => unknown)(text, ...rest);
      }) as PostgresPoolClient['query'],
    };
  };
  try {
    await work();
  } finally {
    pool.connect = connect;
  }
  const announcements = seen.filter((statement) => /\bpg_notify\(/.test(statement));
  assert.ok(announcements.length <= 1, announcements.join('\n---\n'));
  return seen.filter((statement) => !announcements.includes(statement));
}
