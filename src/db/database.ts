// Opens the database: PostgreSQL at DATABASE_URL, or the embedded PGlite under DATA_DIR. Both are
// reached through node-postgres and Kysely, so every query has exactly one code path; migrations
// are applied at start.
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, type Migration } from 'kysely';
import type { Config } from '../config.js';
import type { Database, Db } from './schema.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded.js';
import { PreparedStatementPool } from './prepared-pool.js';
import { FairPool } from './fair-pool.js';
import { clientNotifications, poolNotifications, type Notifications } from './notifications.js';
import * as m0001 from './migrations/0001-core.js';
import * as m0002 from './migrations/0002-documents-jobs.js';
import * as m0003 from './migrations/0003-assets.js';
import * as m0004 from './migrations/0004-chats.js';
import * as m0005 from './migrations/0005-accounts.js';
import * as m0006 from './migrations/0006-chunk-sets.js';
import * as m0007 from './migrations/0007-lexical.js';
import * as m0008 from './migrations/0008-term-index.js';
import * as m0009 from './migrations/0009-job-turns.js';
import * as m0010 from './migrations/0010-board-totals.js';
import * as m0011 from './migrations/0011-board-events.js';
import * as m0012 from './migrations/0012-webhooks.js';
import * as m0013 from './migrations/0013-chunk-set-text-hash.js';
import * as m0014 from './migrations/0014-record-function.js';
import * as m0015 from './migrations/0015-announce-after-commit.js';
import * as m0016 from './migrations/0016-board-version.js';
import * as m0017 from './migrations/0017-presence-sessions.js';
import * as m0018 from './migrations/0018-client-ids.js';
import * as m0019 from './migrations/0019-user-usage.js';
import * as m0020 from './migrations/0020-job-finished-index.js';
import * as m0021 from './migrations/0021-chat-node-ids.js';
import * as m0022 from './migrations/0022-board-auto-read.js';
import * as m0023 from './migrations/0023-board-history.js';
import * as m0024 from './migrations/0024-board-members.js';
import * as m0025 from './migrations/0025-board-comments.js';
import * as m0026 from './migrations/0026-live-set-indexes.js';
import * as m0027 from './migrations/0027-hidden-sets-index.js';

const migrations: Record<string, Migration> = {
  '0001-core': m0001,
  '0002-documents-jobs': m0002,
  '0003-assets': m0003,
  '0004-chats': m0004,
  '0005-accounts': m0005,
  '0006-chunk-sets': m0006,
  '0007-lexical': m0007,
  '0008-term-index': m0008,
  '0009-job-turns': m0009,
  '0010-board-totals': m0010,
  '0011-board-events': m0011,
  '0012-webhooks': m0012,
  '0013-chunk-set-text-hash': m0013,
  '0014-record-function': m0014,
  '0015-announce-after-commit': m0015,
  '0016-board-version': m0016,
  '0017-presence-sessions': m0017,
  '0018-client-ids': m0018,
  '0019-user-usage': m0019,
  '0020-job-finished-index': m0020,
  '0021-chat-node-ids': m0021,
  '0022-board-auto-read': m0022,
  '0023-board-history': m0023,
  '0024-board-members': m0024,
  '0025-board-comments': m0025,
  '0026-live-set-indexes': m0026,
  '0027-hidden-sets-index': m0027,
};

// Keep int8 (counts) as numbers: our counts are far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  embedded: boolean;
  /** The connections shared fairly between callers (fair-pool.ts): the app names each request's caller. */
  fairPool: FairPool;
  /** LISTEN/NOTIFY on this database (notifications.ts). */
  notifications: Notifications;
  close(): Promise<void>;
}

/**
 * Opens the database `config` names. `startEmbedded` starts the embedded one (the tests pass one that
 * hands out a database kept running between their servers: test/helpers/kept-database.ts).
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePoolMax' | 'dataDir'> &
    Partial<Pick<Config, 'databasePreparedStatements' | 'databaseConnectionsPerUser' | 'heavyWork'>>,
  startEmbedded: (dataDir: string) => Promise<EmbeddedPostgres> = startEmbeddedPostgres,
): Promise<DatabaseHandle> {
  const embedded = config.databaseUrl === undefined ? await startEmbedded(config.dataDir) : undefined;
  const pool = new pg.Pool({
    ...(embedded ? { ...embedded.connection, max: 1 } : { connectionString: config.databaseUrl, max: config.databasePoolMax }),
    // A request that cannot get a connection in this time fails with 503 instead of hanging.
    connectionTimeoutMillis: 30_000,
    idleTimeoutMillis: embedded ? 0 : 30_000,
  });
  // A client that loses its server (a restart, a failover, pg_terminate_backend) emits 'error'. The
  // pool listens only while a client is idle; one lent to a request, even one held inside a
  // transaction between two statements, has no listener of the pool's, and an unheard 'error' ends
  // the process. The failure reaches its caller anyway (the statement in flight rejects, and the
  // next one finds the client not queryable: 503 `unavailable`), and the pool drops a client that
  // can no longer query when it is released, so both listeners only keep the process alive.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // Before the first connection, which the embedded database's notifications arrive on.
  const notifications = embedded ? poolNotifications(pool) : clientNotifications(config.databaseUrl!);
  // No parallel workers for our statements: starting them costs a search more than the few
  // thousand rows it reads (measured: p95 12 against 8 ms at 100,000 chunks, BENCHMARKS.md), and
  // one request should not take every core of a server that other tenants share. Queued ahead of
  // the connection's first query.
  if (!embedded) pool.on('connect', (client) => void client.query('SET max_parallel_workers_per_gather = 0').catch(() => {}));
  // Migrations run on plain statements: prepared plans are only kept once the schema is settled.
  const migrationDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    const { error, results } = await new Migrator({
      db: migrationDb,
      provider: { getMigrations: async () => migrations },
    }).migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
    }
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  // Named prepared statements: each query shape is parsed and planned once per connection. Always on
  // the embedded database; on PostgreSQL unless DATABASE_PREPARED_STATEMENTS=false (prepared-pool.ts).
  const prepared = embedded !== undefined || config.databasePreparedStatements !== false;
  const connections = embedded ? 1 : config.databasePoolMax;
  const fairPool = new FairPool(
    prepared
      ? new PreparedStatementPool(pool, (reason) =>
          console.warn(
            `Named prepared statements turned off: the database connection does not keep them (${reason}). Set DATABASE_PREPARED_STATEMENTS=false behind this proxy.`,
          ),
        )
      : pool,
    {
      connections,
      perCaller: config.databaseConnectionsPerUser ?? Math.ceil(connections / 2),
      waitMs: 30_000,
      // Without the app's heavy work (a script, a migration) no caller is heavy: nothing yields.
      yieldMs: config.heavyWork?.yieldMs ?? 0,
    },
  );
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: fairPool }) });
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    embedded: embedded !== undefined,
    fairPool,
    notifications,
    close() {
      closed ??= (async () => {
        await notifications.close();
        await db.destroy();
        await embedded?.stop();
      })();
      return closed;
    },
  };
}
