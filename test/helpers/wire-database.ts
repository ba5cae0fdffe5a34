// The wire run's databases. scripts/test-wire.ts runs the test files through runTests
// (helpers/compiled.ts); on a real PostgreSQL server (TEST_POSTGRES_URL, handed to the files as
// TEST_WIRE_POSTGRES_URL so that only the wire run sees it) each file gets a database of its own
// (createWireDatabase, called by the entry of its process: helpers/file-group.ts), and
// TEST_DATABASE_URL points at it while the file loads and runs, so files never see each other's
// rows and the harness, the CLI tests and the child servers all find the same one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const adminUrl = process.env.TEST_WIRE_POSTGRES_URL;

/** True when the wire run goes to a real PostgreSQL server (several connections per pool). */
export const realPostgres = !!adminUrl;
/** True in the wire run, on either server. */
export const wireRun = !!(adminUrl || process.env.TEST_DATABASE_URL);

/**
 * A new database for one test file on the wire run's real PostgreSQL (named after this process,
 * so that scripts/test-wire.ts drops it once the process is gone), its url; undefined otherwise.
 */
export async function createWireDatabase(): Promise<string | undefined> {
  if (!adminUrl) return undefined;
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
  return url.toString();
}
