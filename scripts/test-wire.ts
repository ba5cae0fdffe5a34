// Runs the test suite a second time against PGlite served over the PostgreSQL wire protocol by
// @electric-sql/pglite-socket on a TCP port, so the service reaches it exactly as it reaches a
// production PostgreSQL: through DATABASE_URL and node-postgres.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const db = await PGlite.create({ extensions: { vector } });
const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
await server.start();
const address = server.getServerConn();
// Every test file, or the ones named on the command line.
const named = process.argv.slice(2);
const files =
  named.length > 0
    ? named
    : fs
        .readdirSync('test')
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`);
console.log(`wire-protocol run against postgres://${address} (${files.length} files)`);

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=300000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: `postgres://postgres@${address}/postgres` },
});
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
await server.stop();
await db.close();
process.exit(code);
