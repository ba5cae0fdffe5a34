// What each user stores, for the per-user quotas (src/access/user-quota.ts): how many boards they own
// and the bytes of node and edge data, asset files and document chunk text on them, kept on the
// user's row by triggers so that every write path (node and edge writes, the batch, duplicate,
// JSON Canvas import, uploads, vectorizing, cascades) counts the same way and a check is one row read.
//
// The board row gains the bytes of its asset files and chunk text beside its data_bytes (0010), kept
// by triggers on assets and document_chunks; a row trigger on boards carries every change of the
// three onto the owner's row, and a board's creation and deletion (whose totals go with it). The
// owner's row is thus updated, and locked, by the writing transaction itself, after the board's:
// two writes for one user are counted one after the other, and a write that checks the quota after
// its change (as the board bounds are checked) sees an exact total until it commits.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE boards
      ADD COLUMN asset_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN chunk_bytes bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    ALTER TABLE users
      ADD COLUMN board_count integer NOT NULL DEFAULT 0,
      ADD COLUMN data_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN asset_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN chunk_bytes bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE boards b SET
      asset_bytes = coalesce((SELECT sum(a.size) FROM assets a WHERE a.board_id = b.id), 0),
      chunk_bytes = coalesce((SELECT sum(octet_length(c.content)) FROM document_chunks c WHERE c.board_id = b.id), 0)`.execute(db);
  await sql`
    UPDATE users u SET board_count = t.boards, data_bytes = t.data, asset_bytes = t.assets, chunk_bytes = t.chunks
    FROM (SELECT owner_id, count(*) AS boards, sum(data_bytes) AS data, sum(asset_bytes) AS assets, sum(chunk_bytes) AS chunks
          FROM boards GROUP BY owner_id) t
    WHERE u.id = t.owner_id`.execute(db);

  // Asset files: a row's size is NULL while it streams, so inserts, the size set on completion and
  // deletions all count (an import inserts rows with their sizes).
  await sql`
    CREATE FUNCTION board_asset_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE boards b SET asset_bytes = b.asset_bytes + d.bytes
        FROM (SELECT board_id, sum(size) AS bytes FROM new_rows WHERE size IS NOT NULL GROUP BY board_id) d
        WHERE b.id = d.board_id;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE boards b SET asset_bytes = b.asset_bytes - d.bytes
        FROM (SELECT board_id, sum(size) AS bytes FROM old_rows WHERE size IS NOT NULL GROUP BY board_id) d
        WHERE b.id = d.board_id;
      ELSE
        UPDATE boards b SET asset_bytes = b.asset_bytes + d.bytes
        FROM (SELECT board_id, sum(bytes) AS bytes FROM (
                SELECT board_id, coalesce(size, 0) AS bytes FROM new_rows
                UNION ALL SELECT board_id, -coalesce(size, 0) FROM old_rows) c
              GROUP BY board_id HAVING sum(bytes) <> 0) d
        WHERE b.id = d.board_id;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER assets_bytes_insert AFTER INSERT ON assets
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_asset_bytes()`.execute(db);
  await sql`
    CREATE TRIGGER assets_bytes_update AFTER UPDATE ON assets
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_asset_bytes()`.execute(db);
  await sql`
    CREATE TRIGGER assets_bytes_delete AFTER DELETE ON assets
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION board_asset_bytes()`.execute(db);

  // Chunk text: chunks are inserted and deleted, never given other text.
  await sql`
    CREATE FUNCTION board_chunk_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE boards b SET chunk_bytes = b.chunk_bytes + d.bytes
        FROM (SELECT board_id, sum(octet_length(content)) AS bytes FROM new_rows GROUP BY board_id) d
        WHERE b.id = d.board_id;
      ELSE
        UPDATE boards b SET chunk_bytes = b.chunk_bytes - d.bytes
        FROM (SELECT board_id, sum(octet_length(content)) AS bytes FROM old_rows GROUP BY board_id) d
        WHERE b.id = d.board_id;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER document_chunks_bytes_insert AFTER INSERT ON document_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_chunk_bytes()`.execute(db);
  await sql`
    CREATE TRIGGER document_chunks_bytes_delete AFTER DELETE ON document_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION board_chunk_bytes()`.execute(db);

  // The board's totals onto its owner's row. A deleted board takes its totals with it: the rows its
  // deletion cascades to find no board row left to update.
  await sql`
    CREATE FUNCTION user_usage() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE users SET board_count = board_count + 1, data_bytes = data_bytes + NEW.data_bytes,
          asset_bytes = asset_bytes + NEW.asset_bytes, chunk_bytes = chunk_bytes + NEW.chunk_bytes
        WHERE id = NEW.owner_id;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE users SET board_count = board_count - 1, data_bytes = data_bytes - OLD.data_bytes,
          asset_bytes = asset_bytes - OLD.asset_bytes, chunk_bytes = chunk_bytes - OLD.chunk_bytes
        WHERE id = OLD.owner_id;
      ELSE
        UPDATE users SET board_count = board_count - 1, data_bytes = data_bytes - OLD.data_bytes,
          asset_bytes = asset_bytes - OLD.asset_bytes, chunk_bytes = chunk_bytes - OLD.chunk_bytes
        WHERE id = OLD.owner_id;
        UPDATE users SET board_count = board_count + 1, data_bytes = data_bytes + NEW.data_bytes,
          asset_bytes = asset_bytes + NEW.asset_bytes, chunk_bytes = chunk_bytes + NEW.chunk_bytes
        WHERE id = NEW.owner_id;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER boards_usage_insert AFTER INSERT ON boards FOR EACH ROW EXECUTE FUNCTION user_usage()`.execute(db);
  await sql`
    CREATE TRIGGER boards_usage_delete AFTER DELETE ON boards FOR EACH ROW EXECUTE FUNCTION user_usage()`.execute(db);
  await sql`
    CREATE TRIGGER boards_usage_update AFTER UPDATE ON boards FOR EACH ROW
    WHEN (OLD.data_bytes IS DISTINCT FROM NEW.data_bytes OR OLD.asset_bytes IS DISTINCT FROM NEW.asset_bytes
       OR OLD.chunk_bytes IS DISTINCT FROM NEW.chunk_bytes OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
    EXECUTE FUNCTION user_usage()`.execute(db);
}
