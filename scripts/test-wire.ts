// Runs the test suite a second time through node-postgres, so the service reaches its database
// exactly as it reaches a production PostgreSQL: through DATABASE_URL.
//
// With TEST_POSTGRES_URL (an admin url of a PostgreSQL 15+ server with pgvector; CI starts one with
// scripts/postgres-test-server.sh) each test file gets a database of its own on that server (a copy
// of a migrated template: test/helpers/wire-template.ts), the service a pool of several connections,
// and the files run side by side. Without it, the run goes to PGlite served over the wire protocol
// by @electric-sql/pglite-socket on a TCP port: one connection, one shared database, one file at a
// time.
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { runTests } from '../test/helpers/compiled.js';
import { wireSelection } from '../test/helpers/wire-files.js';
import { wireTemplate } from '../test/helpers/wire-template.js';

// Which files: test/helpers/wire-files.ts (those that reach no database, and those named with a
// reason, are left to the embedded run). Named on the command line, a file runs all the same.
const named = process.argv.slice(2);
const selection = wireSelection();
// A stale or needless name in the list stops the run, so the list stays the one reviewed.
if (named.length === 0 && selection.problems.length > 0) {
  console.error(`test/helpers/wire-files.ts: EMBEDDED_ONLY: ${selection.problems.join('; ')}`);
  process.exit(2);
}
const files = named.length > 0 ? named : selection.run;
if (named.length === 0)
  console.log(
    `${selection.noDatabase.length + selection.listed.length} files left to the embedded run: ${selection.noDatabase.length} reach no database, ${selection.listed.length} named (docs/testing.md)`,
  );

/** Whether process `pid` runs on this machine (signal 0 checks without sending anything). */
function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const postgresUrl = process.env.TEST_POSTGRES_URL;
let code: number;
if (postgresUrl) {
  // Databases left by an earlier run on the same server: test/helpers/wire-database.ts names each
  // after its test process, so one whose process is gone is left over (another run's, still going,
  // is not: two runs may share a server).
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'bwk\\_test\\_%'");
  for (const { datname } of rows) {
    // IF EXISTS: another run starting on the same server may have dropped it a moment ago.
    if (!processAlive(Number(/^bwk_test_(\d+)_/.exec(datname)?.[1])))
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
  const { rows: version } = await admin.query<{ server_version: string }>('SHOW server_version');
  await admin.end();
  console.log(`wire-protocol run against PostgreSQL ${version[0]?.server_version} (${files.length} files, a database each)`);
  // Under its own name, so the embedded run of `npm test` never goes there even when TEST_POSTGRES_URL
  // is exported in the shell that runs both.
  const template = await wireTemplate(postgresUrl);
  code = await runTests(
    files,
    { TEST_WIRE_POSTGRES_URL: postgresUrl, TEST_WIRE_TEMPLATE: template },
    Number(process.env.TEST_CONCURRENCY ?? 2),
  );
} else {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const address = server.getServerConn();
  console.log(`wire-protocol run against PGlite at postgres://${address} (${files.length} files; set TEST_POSTGRES_URL for a real server)`);
  code = await runTests(files, { TEST_DATABASE_URL: `postgres://postgres@${address}/postgres` }, 1);
  await server.stop();
  await db.close();
}
process.exit(code);
