// visible_board_version: a board's version (event_seq) if the viewer may see it, as one call.
//
// Cached list pages (src/boards/list-cache.ts) are answered after this one statement. Written as
// the query itself, PostgreSQL parses and plans it on every call, which measured as about two
// thirds of its cost (BENCHMARKS.md, "HTTP"); a PL/pgSQL function keeps its plan
// for the session, which also holds through a transaction-pooling proxy, unlike a named prepared
// statement. The rule is boardSeenBy's (src/access/board-access.ts), where a test holds the two to agree:
// the owner, or anyone while the board is public; and when `p_key` is given (an API key this
// request has not read), only while that key is neither revoked nor expired.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION visible_board_version(p_board uuid, p_viewer uuid, p_key uuid) RETURNS bigint
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN (
        SELECT b.event_seq FROM boards b
        WHERE b.id = p_board
          AND (b.owner_id = p_viewer OR b.is_public)
          AND (p_key IS NULL OR EXISTS (
            SELECT 1 FROM api_keys k
            WHERE k.id = p_key AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))));
    END $$`.execute(db);
}
