// A node-postgres pool whose clients run repeated parameterised queries as named prepared
// statements, so each query shape is parsed and planned once per connection instead of on every
// call. Used for the embedded database, where planning in WebAssembly dominates the cost of a
// small query, and on an external PostgreSQL unless DATABASE_PREPARED_STATEMENTS=false: it saves
// the database the parse and plan of each query (about 0.2 ms for a node list; a single-node read
// took about 90 instead of 220 to 285 µs of database CPU in runs of `npm run bench:http`).
//
// Two ways a named statement can fail, each recovered here rather than failing every request:
// - A proxy that does not carry named statements to the server connection that runs them
//   (PgBouncer in transaction mode before 1.21, or with max_prepared_statements = 0) answers
//   "prepared statement … does not exist" (26000) or "… already exists" (42P05). The pool then
//   stops naming statements for good, and logs why once. PgBouncer 1.21 and later with
//   max_prepared_statements set (the default from 1.22 on) carries them.
// - A migration that adds a column to a table a statement reads whole (a rolling deploy, where an
//   older instance runs on the new schema) makes PostgreSQL refuse that statement's kept plan
//   ("cached plan must not change result type", 0A000). Every name is then made anew, so each
//   shape is prepared again on the schema as it is.
// A statement that failed so outside a transaction is sent again at once; inside one, the
// transaction has failed with it (its caller sees the error, as for any failed statement), and the
// next transaction uses the new names.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Query shapes beyond these bounds (bulk inserts, long IN lists) are not worth keeping. */
const MAX_STATEMENTS = 500;
const MAX_PARAMS = 64;
const MAX_SQL_LENGTH = 8000;

const PROXY_LOST_STATEMENT = new Set(['26000', '42P05']);
const PLAN_CHANGED = '0A000';

const codeOf = (error: unknown): string | undefined => (error as { code?: unknown })?.code as string | undefined;

export class PreparedStatementPool implements PostgresPool {
  private readonly names = new Map<string, string>();
  /** Raised when the schema changed under kept plans: every name is new. */
  private generation = 0;
  private disabled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly onDisabled: (reason: string) => void = () => {},
  ) {}

  private nameFor(text: string, paramCount: number): string | undefined {
    if (this.disabled || paramCount === 0 || paramCount > MAX_PARAMS || text.length > MAX_SQL_LENGTH) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_STATEMENTS) {
      name = `k${this.generation.toString(36)}${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }

  private recover(error: unknown): boolean {
    const code = codeOf(error);
    if (code !== undefined && PROXY_LOST_STATEMENT.has(code)) {
      if (!this.disabled) this.onDisabled(String((error as Error).message));
      this.disabled = true;
      return true;
    }
    if (code === PLAN_CHANGED && /cached plan must not change result type/.test(String((error as Error).message))) {
      this.generation++;
      this.names.clear();
      return true;
    }
    return false;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let inTransaction = false;
    const run = async (text: string, parameters: ReadonlyArray<unknown>) => {
      const name = this.nameFor(text, parameters.length);
      if (name === undefined) return client.query(text, [...parameters]);
      try {
        return await client.query({ name, text, values: [...parameters] });
      } catch (error) {
        if (!this.recover(error) || inTransaction) throw error;
        return client.query(text, [...parameters]);
      }
    };
    return {
      query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof text === 'string') {
          // Kysely opens and ends its transactions with these plain statements.
          if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
          else if (/^\s*(commit|rollback|end)\s*;?\s*$/i.test(text)) inTransaction = false;
          if (parameters) return run(text, parameters);
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
