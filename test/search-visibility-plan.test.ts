// The visibility rule of every search statement (visibleChunk, src/documents/chunk-store.ts) reads
// only the board's hidden sets (writing or retired), through chunk_sets_hidden_idx, whatever the
// planner knows: on a board of thousands of live sets (one per vectorized note) and a handful of
// hidden ones, the plan of a term-index lookup must not walk the board's sets. The embedded
// database never gathers statistics; before migration 0027 its plan read every set of the board
// through chunk_sets_board_idx (24,538 of them per lookup at 100,000 chunks: BENCHMARKS.md).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import { visibleChunk } from '../src/documents/chunk-store.js';
import { termKeysLiteral } from '../src/documents/search-service.js';
import { LOCAL_MODEL } from '../src/providers/embeddings/embedder.js';
import { useServer } from './helpers/harness.js';

const server = useServer();
let board: string;
/** Enough live sets, of a note's size, for the former rule's plan to read them (it did at 5,000, not at 3,000 small ones). */
const LIVE_SETS = 5000;
const TERMS_PER_SET = 100;

before(async () => {
  const alice = await server.user();
  board = await server.makeBoard(alice);
  // Sets as many notes' jobs leave them (rows of the size a note's term counts make): each written
  // as 'writing' and then made live (the embedded database never vacuums, so the index entries of
  // the 'writing' versions stay), and a few still writing or retired. The term statistics' trigger
  // is off for these made-up sets (their board_terms are not read).
  const terms = `{${Array.from({ length: TERMS_PER_SET }, (_, i) => i + 1).join(',')}}`;
  await server.database.db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('session_replication_role', 'replica', true)`.execute(trx);
    await sql`
      INSERT INTO chunk_sets (id, board_id, node_id, model, state, chunks, term_ids, term_df, created_at)
      SELECT gen_random_uuid(), ${board}::uuid, NULL, ${LOCAL_MODEL}, 'writing', 1, ${terms}::int4[], ${terms}::int4[], now() + i * interval '1 ms'
      FROM generate_series(1, ${LIVE_SETS + 6}) AS i`.execute(trx);
    await sql`UPDATE chunk_sets SET state = 'live' WHERE board_id = ${board}`.execute(trx);
    await sql`UPDATE chunk_sets SET state = CASE WHEN n <= 3 THEN 'writing' ELSE 'retired' END
      FROM (SELECT id, row_number() OVER (ORDER BY created_at) AS n FROM chunk_sets WHERE board_id = ${board}) AS s
      WHERE chunk_sets.id = s.id AND s.n <= 6`.execute(trx);
  });
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

/** Every node of a plan tree. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

test('a term-index lookup reads the hidden sets through chunk_sets_hidden_idx, never the board through its other indexes', async () => {
  const lookup = sql`SELECT id FROM document_chunks
    WHERE chunk_term_keys(board_id, term_ids) && ${termKeysLiteral(board, [1, 2, 3])}::int8[] AND model = ${LOCAL_MODEL}
      AND ${visibleChunk(board)}`;
  // The plan for this board's id, and the generic one a prepared statement keeps after five runs
  // (the service names its statements: src/db/prepared-pool.ts).
  const { sql: text, parameters } = lookup.compile(server.database.db);
  const literals = parameters.map((p) => `'${String(p)}'`).join(', ');
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    await server.database.db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('plan_cache_mode', ${mode}, true)`.execute(trx);
      await sql.raw(`PREPARE visibility_plan AS ${text}`).execute(trx);
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) EXECUTE visibility_plan(${literals})`)
        .execute(trx);
      await sql`DEALLOCATE visibility_plan`.execute(trx);
      const nodes = nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
      const indexes = nodes.filter((n) => n['Index Name']?.startsWith('chunk_sets_')).map((n) => n['Index Name']);
      const plan = `${mode}: ${JSON.stringify(rows[0]!['QUERY PLAN'])}`;
      assert.deepEqual(indexes, ['chunk_sets_hidden_idx'], plan);
      assert.ok(!nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'chunk_sets'), plan);
    });
  }
});

test('the rule hides exactly the sets that are not live: the states it names are every state but live', async () => {
  const { rows } = await sql<{ state: string; n: number }>`
    SELECT state, count(*)::int AS n FROM (SELECT id AS set_id, state FROM chunk_sets WHERE board_id = ${board}) AS c
    WHERE ${visibleChunk(board)} GROUP BY state`.execute(server.database.db);
  assert.deepEqual(rows, [{ state: 'live', n: LIVE_SETS }]);
  // A state added later must be named in the rule (or shown), so the CHECK of migration 0006 is pinned here.
  const { rows: checks } = await sql<{ def: string }>`
    SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'chunk_sets'::regclass AND contype = 'c'`.execute(
    server.database.db,
  );
  const states = checks.flatMap((c) => [...c.def.matchAll(/'(\w+)'::text/g)].map((m) => m[1])).sort();
  assert.deepEqual(states, ['live', 'retired', 'writing']);
});
