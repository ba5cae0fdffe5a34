// A node-postgres pool whose clients run repeated parameterised queries as named prepared
// statements, so each query shape is parsed and planned once per connection instead of on every
// call. Used for the embedded database, where planning in WebAssembly dominates the cost of a
// small query. On an external PostgreSQL only with DATABASE_PREPARED_STATEMENTS=true: it saves the
// database the parse and plan of each query (about 0.2 ms for a node list; a single-node read took
// about 90 instead of 220 to 285 µs of database CPU in runs of `npm run bench:http`), but a
// transaction-pooling proxy may not carry named statements (PgBouncer before 1.21, Supabase's
// pooler in transaction mode), and during a rolling deploy a migration that adds a column to a
// table some queries read whole makes an older instance's prepared statements fail ("cached plan
// must not change result type") until it restarts.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Query shapes beyond these bounds (bulk inserts, long IN lists) are not worth keeping. */
const MAX_STATEMENTS = 500;
const MAX_PARAMS = 64;
const MAX_SQL_LENGTH = 8000;

export class PreparedStatementPool implements PostgresPool {
  private readonly names = new Map<string, string>();

  constructor(private readonly pool: pg.Pool) {}

  private nameFor(text: string, paramCount: number): string | undefined {
    if (paramCount === 0 || paramCount > MAX_PARAMS || text.length > MAX_SQL_LENGTH) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_STATEMENTS) {
      name = `k${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    return {
      query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof text === 'string' && parameters) {
          const name = this.nameFor(text, parameters.length);
          if (name) return client.query({ name, text, values: [...parameters] });
          return client.query(text, [...parameters]);
        }
        return client.query(text as pg.Submittable);
      }) as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
