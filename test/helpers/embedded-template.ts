// A migrated embedded database to start test servers from. Creating one (PGlite's initdb and every
// migration) costs several times what opening a copy does, and most test servers want nothing but
// an empty, migrated database. The first test process that needs it builds it once in
// node_modules/.cache (the others wait for it), under a name that changes with the migrations and
// the PGlite version; every server then starts on a copy, and so do the databases the crash and
// durability tests hand their child servers (seedEmbeddedDatabase). A database made from nothing
// (initdb in a process of its own, then every migration) is made by `npm run cli` in
// test/cli.test.ts, and by this template's build.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../src/db/database.js';
import { buildOnce, publishBuilt } from './built-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'src/db/migrations');
  for (const name of fs.readdirSync(migrations).sort()) hash.update(name).update(fs.readFileSync(path.join(migrations, name)));
  for (const pkg of ['@electric-sql/pglite', '@electric-sql/pglite-pgvector'])
    hash.update(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

async function buildTemplate(): Promise<string> {
  // Beside the compiled entries (helpers/compiled.ts), not in TMPDIR, which a test run makes its own.
  const dir = path.join(ROOT, 'node_modules', '.cache', `bwk-test-template-${templateKey()}`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  // One process builds it (about 15 s of CPU), the others wait: a run's first processes all need it.
  await buildOnce(dir, async () => {
    const building = fs.mkdtempSync(`${dir}-building-`);
    const database = await openDatabase({ dataDir: building, databaseUrl: undefined, databasePoolMax: 1 });
    await database.close();
    publishBuilt(building, dir);
  });
  return dir;
}

/** Gives an empty DATA_DIR a copy of the migrated template database; leaves one in use alone. */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, 'pg'))) return;
  template ??= buildTemplate();
  fs.cpSync(path.join(await template, 'pg'), path.join(dataDir, 'pg'), { recursive: true });
}
