// The wire run's migrated template database on a real PostgreSQL server. Migrating a new database
// took about 2.5 s of the server's time, copying a migrated one (CREATE DATABASE … TEMPLATE) under
// one: scripts/test-wire.ts makes the template once, under a name that changes with the migrations,
// and every test file's database (wire-database.ts) is a copy of it. Runs sharing a server share it;
// it is not named like the test databases, which a later run removes once their process is gone.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function migrationsKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'src/db/migrations');
  for (const name of fs.readdirSync(migrations).sort()) hash.update(name).update(fs.readFileSync(path.join(migrations, name)));
  return hash.digest('hex').slice(0, 16);
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The name of a migrated template database on the server at `adminUrl`, made first if missing. */
export async function wireTemplate(adminUrl: string): Promise<string> {
  const name = `bwk_template_${migrationsKey()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = async (database: string) =>
      (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
    if (await exists(name)) return name;
    // Built under a name of this process's and renamed when done, so no run copies a half-migrated one.
    const building = `${name}_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${building}"`);
    const database = await openDatabase({ databaseUrl: databaseUrl(adminUrl, building), databasePoolMax: 1, dataDir: '' });
    await database.close();
    // A database with sessions cannot be renamed or copied; the pool may still be ending its own.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [building]);
    if (await exists(name)) await admin.query(`DROP DATABASE "${building}" WITH (FORCE)`);
    else await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    return name;
  } finally {
    await admin.end();
  }
}
