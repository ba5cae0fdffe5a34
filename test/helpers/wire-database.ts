// The wire run's database for this test file. scripts/test-wire.ts runs every file in a process of
// its own; on a real PostgreSQL server (TEST_POSTGRES_URL, handed to the files as
// TEST_WIRE_POSTGRES_URL so that only the wire run sees it) the first import here creates a database
// for this process and points TEST_DATABASE_URL at it, so files running side by side never see each
// other's rows and the harness, the CLI tests and the child servers all find the same one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const adminUrl = process.env.TEST_WIRE_POSTGRES_URL;

/** True when the wire run goes to a real PostgreSQL server (several connections per pool). */
export const realPostgres = !!adminUrl;
/** True in the wire run, on either server. */
export const wireRun = !!(adminUrl || process.env.TEST_DATABASE_URL);

if (adminUrl && !process.env.TEST_DATABASE_URL) {
  const name = `bwk_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // A copy of the migrated template scripts/test-wire.ts names (wire-template.ts), else empty.
    const template = process.env.TEST_WIRE_TEMPLATE;
    await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.env.TEST_DATABASE_URL = url.toString();
}
