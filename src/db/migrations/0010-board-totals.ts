// A board's running totals, for its bounds (src/access/board-bounds.ts): how many nodes and edges it
// has and how many bytes of node and edge data, kept on the board row by statement-level triggers so
// that every write path (node and edge writes, duplicate, cascades) counts the same way and a check
// costs one row read rather than a scan of the board.
//
// A row's data size is a stored generated column (the length of its JSON text, which is what the full
// board read sends), computed when the data is written, so the triggers never read the data itself.
// Content writes lock the board row first (src/access/content-write.ts), so the totals a write reads
// after its change are exact until it commits. Adding the generated columns rewrites the nodes and
// edges tables once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE nodes ADD COLUMN data_bytes integer GENERATED ALWAYS AS (octet_length(node_data::text)) STORED`.execute(db);
  await sql`ALTER TABLE edges ADD COLUMN data_bytes integer GENERATED ALWAYS AS (octet_length(edge_data::text)) STORED`.execute(db);
  await sql`
    ALTER TABLE boards
      ADD COLUMN node_count integer NOT NULL DEFAULT 0,
      ADD COLUMN edge_count integer NOT NULL DEFAULT 0,
      ADD COLUMN data_bytes bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE boards b SET
      node_count = (SELECT count(*) FROM nodes n WHERE n.board_id = b.id),
      edge_count = (SELECT count(*) FROM edges e WHERE e.board_id = b.id),
      data_bytes = coalesce((SELECT sum(n.data_bytes) FROM nodes n WHERE n.board_id = b.id), 0)
                 + coalesce((SELECT sum(e.data_bytes) FROM edges e WHERE e.board_id = b.id), 0)`.execute(db);
  // One function for both tables and every event; each trigger names only the transition tables its
  // event has, and PL/pgSQL plans a branch's statement only when the branch runs.
  await sql`
    CREATE FUNCTION board_totals() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      is_node int := CASE WHEN TG_TABLE_NAME = 'nodes' THEN 1 ELSE 0 END;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE boards b SET node_count = b.node_count + d.n * is_node, edge_count = b.edge_count + d.n * (1 - is_node),
          data_bytes = b.data_bytes + d.bytes
        FROM (SELECT board_id, count(*) AS n, sum(data_bytes) AS bytes FROM new_rows GROUP BY board_id) d
        WHERE b.id = d.board_id;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE boards b SET node_count = b.node_count - d.n * is_node, edge_count = b.edge_count - d.n * (1 - is_node),
          data_bytes = b.data_bytes - d.bytes
        FROM (SELECT board_id, count(*) AS n, sum(data_bytes) AS bytes FROM old_rows GROUP BY board_id) d
        WHERE b.id = d.board_id;
      ELSE
        UPDATE boards b SET data_bytes = b.data_bytes + d.bytes
        FROM (SELECT board_id, sum(bytes) AS bytes FROM (
                SELECT board_id, data_bytes AS bytes FROM new_rows
                UNION ALL SELECT board_id, -data_bytes FROM old_rows) c
              GROUP BY board_id HAVING sum(bytes) <> 0) d
        WHERE b.id = d.board_id;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const table of ['nodes', 'edges']) {
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_totals_insert`)} AFTER INSERT ON ${sql.table(table)}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_totals()`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_totals_update`)} AFTER UPDATE ON ${sql.table(table)}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_totals()`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_totals_delete`)} AFTER DELETE ON ${sql.table(table)}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION board_totals()`.execute(db);
  }
}
