// The embedded database's threads are kept for the next database a process opens (src/db/embedded.ts):
// a kept thread serves the new database's data and none of the one before, and a database opened
// again on its directory finds what it had.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';

const open = (dataDir: string) => openDatabase({ dataDir, databaseUrl: undefined, databasePoolMax: 1 });
const names = async (database: Awaited<ReturnType<typeof open>>) =>
  (await sql<{ name: string }>`SELECT name FROM thread_marks ORDER BY name`.execute(database.db)).rows.map((r) => r.name);

test('databases opened one after another in a process each see their own data', { skip: !!process.env.TEST_DATABASE_URL }, async () => {
  const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-threads-')));
  try {
    for (const dir of dirs) await seedEmbeddedDatabase(dir);
    for (const [i, dir] of dirs.entries()) {
      const database = await open(dir);
      await sql`CREATE TABLE thread_marks (name text)`.execute(database.db);
      await sql`INSERT INTO thread_marks VALUES (${`database ${i}`})`.execute(database.db);
      assert.deepEqual(await names(database), [`database ${i}`]);
      await database.close();
    }
    // Both again, in the other order, each in a kept thread.
    for (const [i, dir] of [...dirs.entries()].reverse()) {
      const database = await open(dir);
      assert.deepEqual(await names(database), [`database ${i}`]);
      await database.close();
    }
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
