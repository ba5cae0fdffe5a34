// The benchmarks' PostgreSQL runs (BENCH_DATABASE_URL): a database they empty first, its version,
// and a wait for autovacuum after a large import.
import pg from 'pg';

const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Drops everything in the bench's PostgreSQL database (the server's migrations then start afresh). */
export async function emptyDatabase(url: string): Promise<void> {
  await withClient(url, (client) => client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
}

/**
 * Waits (up to two minutes) until no autovacuum worker runs on the database: after a large import
 * PostgreSQL vacuums and analyzes the new rows, and searches measured meanwhile share the cores with
 * it. Answers the seconds waited.
 */
export async function autovacuumSettled(url: string): Promise<number> {
  const started = Date.now();
  await withClient(url, async (client) => {
    while (Date.now() - started < 120_000) {
      await sleep(2000);
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()",
      );
      if (rows[0]!.n === 0) break;
    }
  });
  return Math.round((Date.now() - started) / 1000);
}

export async function serverVersion(url: string): Promise<string> {
  const { rows } = await withClient(url, (client) =>
    client.query<{ pg: string; vector: string }>(
      "SELECT current_setting('server_version') AS pg, coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), (SELECT default_version FROM pg_available_extensions WHERE name = 'vector')) AS vector",
    ),
  );
  return `${rows[0]!.pg} with pgvector ${rows[0]!.vector}`;
}

/** The url of another database on the same server as `url`. */
export function databaseUrl(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

/** Creates a fresh database beside `url`'s (dropping one of that name first); answers its url. */
export async function freshDatabase(url: string, database: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
  await withClient(url, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${database}`);
  });
  return databaseUrl(url, database);
}

export async function dropDatabase(url: string, database: string): Promise<void> {
  await withClient(url, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
}
