// A PostgreSQL server of a test's own, for the fault tests that stop and start it: made with
// scripts/postgres-test-server.sh (initdb in a temporary directory, loopback, pgvector), so it needs
// the same PostgreSQL 15 binaries as the wire run's shared server, which the tests must never stop.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/postgres-test-server.sh');

export interface PostgresCluster {
  /** A database of its own on the server, for the service under test. */
  databaseUrl: string;
  /** The server's admin url (database `postgres`). */
  adminUrl: string;
  /** Stops the server as an operator's restart does (`pg_ctl stop -m fast`), keeping its data. */
  down(): Promise<void>;
  /** Starts it again on the same port and data. */
  up(): Promise<void>;
  /** Ends every session on the service's database, as a failover or `pg_terminate_backend` does; resolves with how many. */
  terminateSessions(): Promise<number>;
  /** Stops the server and removes its directory. */
  remove(): Promise<void>;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const { stdout } = await run('bash', [SCRIPT, 'start']);
  const dir = /TEST_POSTGRES_DIR=(\S+)/.exec(stdout)?.[1];
  const adminUrl = /TEST_POSTGRES_URL=(\S+)/.exec(stdout)?.[1];
  if (!dir || !adminUrl) throw new Error(`postgres-test-server.sh start printed no server:\n${stdout}`);
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query('CREATE DATABASE service'));
  const url = new URL(adminUrl);
  url.pathname = '/service';
  return {
    databaseUrl: url.toString(),
    adminUrl,
    down: async () => void (await run('bash', [SCRIPT, 'down', dir])),
    up: async () => void (await run('bash', [SCRIPT, 'up', dir])),
    terminateSessions: () =>
      admin(async (client) => {
        const { rows } = await client.query(
          "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS ended FROM pg_stat_activity WHERE datname = 'service' AND pid <> pg_backend_pid()",
        );
        return Number(rows[0].ended);
      }),
    remove: async () => void (await run('bash', [SCRIPT, 'stop', dir])),
  };
}
