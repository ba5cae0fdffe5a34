// A heavy read's statements read the data of the rows they return and no more (issue 26, item 5): on
// the embedded database one statement holds the database's only thread, and a statement that
// decompressed every node of a large board to return 20 held everyone else's for seconds (the
// first executions of MCP read_board's brief and of the export's group keys, planned with the
// statement's values: a sort over the rest of the board, the node data read before the sort).
// Each such statement the service ran is explained here as the database plans it with its values
// (EXPLAIN ANALYZE of an unnamed statement: a custom plan), and no plan step that reads node data
// may do so for more rows than the statement returns. Counts of rows, never a time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type pg from 'pg';
import { type TestServer, type TestUser, useServer } from './helpers/harness.js';

interface Statement {
  text: string;
  values: unknown[];
}

/** Records the statements whose text `keep` accepts, as the service's clients of `pool` send them. */
function recordStatements(pool: pg.Pool, keep: (text: string) => boolean): Statement[] {
  const seen: Statement[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as (
    callback?: (error: Error | undefined, client: pg.PoolClient, done: () => void) => void,
  ) => Promise<pg.PoolClient>;
  const wrap = (client: pg.PoolClient) => {
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
        const text = typeof config === 'string' ? config : (config as { text?: string })?.text;
        const values = typeof config === 'string' ? rest[0] : (config as { values?: unknown[] })?.values;
        if (typeof text === 'string' && keep(text)) seen.push({ text, values: [...((values as unknown[]) ?? [])] });
        return query(config, ...rest);
      };
    }
    return client;
  };
  // pg.Pool's own query() asks with a callback.
  (pool as { connect: unknown }).connect = (callback?: (error: Error | undefined, client: pg.PoolClient, done: () => void) => void) =>
    callback ? connect((error, client, done) => callback(error, error ? client : wrap(client), done)) : connect().then(wrap);
  return seen;
}

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  Output?: string[];
  'Function Call'?: string;
  Plans?: PlanNode[];
}

/** Whether a plan step computes something of the node data (not only passes the column on). */
function readsNodeData(node: PlanNode): boolean {
  const uses = [...(node.Output ?? []), node['Function Call'] ?? ''];
  return uses.some((item) => item.includes('node_data') && !/^(\w+\.)?node_data$/.test(item.trim()));
}

function* steps(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* steps(child);
}

/** Rows returned, and the most rows any plan step read node data for, as the database runs `statement` planned with its values. */
async function explain(pool: pg.Pool, statement: Statement): Promise<{ returned: number; readData: number }> {
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ${statement.text}`, statement.values);
  const plan = (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
  let readData = 0;
  for (const step of steps(plan)) {
    if (readsNodeData(step)) readData = Math.max(readData, Math.round(step['Actual Rows'] * step['Actual Loops']));
  }
  return { returned: Math.round(plan['Actual Rows']), readData };
}

describe('the statements of a heavy read', () => {
  const server: TestServer = useServer();
  let alice: TestUser;
  let boardId: string;
  let seen: Statement[] | undefined;
  /** The statements of `kind` the service sends from now on. */
  const from = (kind: string) => {
    seen ??= recordStatements(server.database.pool, (text) => !text.startsWith('EXPLAIN'));
    const start = seen.length;
    return () => seen!.slice(start).filter((statement) => statement.text.includes(kind));
  };

  async function seed(count: number): Promise<void> {
    alice = await server.user();
    boardId = await server.makeBoard(alice);
    const operations = Array.from({ length: count }, (_, i) => ({
      op: 'create_node',
      type: 'note',
      position: { x: i, y: 0 },
      data: { label: `Note ${i}`, text: `Note ${i}: ${'words of a note '.repeat(20)}` },
    }));
    const res = await server.request('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });
    assert.equal(res.status, 200, res.text);
  }

  async function assertBounded(statements: Statement[], what: string): Promise<void> {
    assert.ok(statements.length >= 2, `${what}: its statements were seen (${statements.length})`);
    for (const statement of statements) {
      const { returned, readData } = await explain(server.database.pool, statement);
      assert.ok(
        readData <= returned,
        `${what}: a statement read the node data of ${readData} rows to return ${returned}:\n${statement.text}`,
      );
    }
  }

  test('MCP read_board reads in brief only the nodes of each step', async () => {
    await seed(250);
    const statements = from('text_head');
    const res = await server.request<{ result: { isError?: boolean } }>('POST', '/v1/mcp', {
      token: alice.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_board', arguments: { board_id: boardId, limit: 60 } } },
    });
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.result.isError, true, res.text);
    await assertBounded(statements(), 'read_board');
  });

  test("the export reads the group flag only of each page's nodes", async () => {
    const statements = from('is_group');
    const res = await server.request('GET', `/v1/boards/${boardId}/export?format=jsoncanvas`, { token: alice.token });
    assert.equal(res.status, 200, res.text);
    await assertBounded(statements(), 'the export');
  });
});
