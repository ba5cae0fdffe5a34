// One embedded database per test process, kept running between the servers that take turns on it.
// Starting an embedded database (a copy of the template, PGlite's PostgreSQL started in a thread,
// the migrations checked) cost a test server most of its start; the suite starts a few hundred. A
// server the harness starts with no database of its own named (no DATA_DIR, no DATABASE_URL) takes
// this one when no other server holds it, and when it closes the database is made as a fresh copy
// of the template is: the session reset (DISCARD ALL: prepared statements, settings, LISTENs,
// advisory locks), every table written to emptied (TRUNCATE, so the tables' sizes are a new
// table's too, as the planner sees them) and every sequence set back. A server started while it is held gets a
// database of its own, as before. TEST_KEEP_DATABASE=0 gives every server its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { seedEmbeddedDatabase } from './embedded-template.js';
import { afterProcess } from './file-group.js';

interface Kept {
  database: EmbeddedPostgres;
  dataDir: string;
  /** The statements that make the database as the template's copy was, one after the other. */
  reset: string[];
  held: boolean;
}

let kept: Promise<Kept> | undefined;

export const keepDatabase = process.env.TEST_KEEP_DATABASE !== '0';

/** Runs statements one after the other on a connection of their own; resolves with the last one's rows. */
async function run<T extends pg.QueryResultRow>(database: EmbeddedPostgres, ...statements: string[]): Promise<T[]> {
  const client = new pg.Client(database.connection);
  await client.connect();
  try {
    let rows: T[] = [];
    for (const text of statements) rows = (await client.query<T>(text)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

async function start(): Promise<Kept> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-kept-'));
  await seedEmbeddedDatabase(dataDir);
  const database = await startEmbeddedPostgres(dataDir);
  // What the template holds: its tables (but the migrations' own) and its sequences as they are.
  const tables = await run<{ name: string }>(
    database,
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely\\_migration%' ORDER BY 1`,
  );
  const sequences = await run<{ name: string; value: string; called: boolean }>(
    database,
    `SELECT format('%I.%I', schemaname, sequencename) AS name, coalesce(last_value, start_value)::text AS value, last_value IS NOT NULL AS called
     FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`,
  );
  // A table the migrations fill would have to be filled again: none does, and this says so if one ever does.
  const filled = await run<{ name: string }>(
    database,
    tables.map((t) => `SELECT '${t.name}' AS name WHERE EXISTS (SELECT FROM ${t.name})`).join(' UNION ALL '),
  );
  if (filled.length > 0)
    throw new Error(`kept-database.ts: the template's tables ${filled.map((t) => t.name).join(', ')} have rows; reset them too`);
  // DISCARD ALL alone: it cannot run in the transaction that statements sent together make. The
  // tables written to are emptied (a table's file is empty until then), with those that refer to them.
  const reset = [
    'DISCARD ALL',
    `DO $$
     DECLARE written text;
     BEGIN
       SELECT string_agg(name, ', ') INTO written FROM unnest(ARRAY[${tables.map((t) => `'${t.name}'`).join(', ')}]) AS name
       WHERE pg_relation_size(name::regclass) > 0;
       IF written IS NOT NULL THEN EXECUTE 'TRUNCATE ' || written || ' CASCADE'; END IF;
     END $$;
     ${sequences.map((s) => `SELECT setval('${s.name}', ${s.value}, ${s.called});`).join('\n')}`,
  ];
  return { database, dataDir, reset, held: false };
}

afterProcess(async () => {
  const current = await kept?.catch(() => undefined);
  kept = undefined;
  if (!current) return;
  await current.database.stop();
  fs.rmSync(current.dataDir, { recursive: true, force: true });
});

/**
 * For openDatabase: the kept database when no server holds it (closing the server's database
 * resets it and hands it back), else a database of the server's own in `dataDir`.
 */
export async function keptOrOwnDatabase(dataDir: string): Promise<EmbeddedPostgres> {
  kept ??= start();
  const current = await kept;
  if (current.held) {
    await seedEmbeddedDatabase(dataDir);
    return startEmbeddedPostgres(dataDir);
  }
  current.held = true;
  let released: Promise<void> | undefined;
  return {
    connection: current.database.connection,
    stop() {
      // The server's connection has closed by now (its pool first, then this), so this one is served.
      released ??= run(current.database, ...current.reset).then(() => {
        current.held = false;
      });
      return released;
    },
  };
}
