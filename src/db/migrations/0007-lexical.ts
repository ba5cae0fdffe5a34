// Lexical search (src/documents/lexical.ts): every chunk gets its BM25 keyword vector and term ids,
// chunks of the local model their sparse embedding (the dense `embedding` is then NULL), and each
// board keeps its term statistics (`board_terms`: how many live chunks hold each term; term 0 counts
// the chunks themselves), which give queries their IDF.
//
// The statistics follow the chunk sets through one trigger, whatever changes a set (a job going
// live, a replaced or deleted node's sets retired, a node deleted with its sets, a board
// duplicated): a live set's per-term counts (`term_ids`, `term_df`, summed over its chunks when it
// goes live) are added, and subtracted when it stops being live. The counts are upserted in term
// order, so two transactions on one board lock their rows in the same order. A set deleted with its
// board changes nothing (the board's statistics go with it).
//
// Chunks written before this have no keywords: their boards are re-embedded by the existing
// `document_reembed` job (queued at start on the embedded database, by the first search otherwise),
// which fills them in.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE document_chunks ALTER COLUMN embedding DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE document_chunks ADD COLUMN keywords sparsevec, ADD COLUMN term_ids int4[], ADD COLUMN sparse_embedding sparsevec`.execute(
    db,
  );
  await sql`ALTER TABLE document_chunks ALTER COLUMN keywords SET STORAGE MAIN, ALTER COLUMN sparse_embedding SET STORAGE MAIN`.execute(db);
  await sql`ALTER TABLE chunk_sets ADD COLUMN term_ids int4[], ADD COLUMN term_df int4[]`.execute(db);
  await sql`
    CREATE TABLE board_terms (
      board_id uuid NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
      term int4 NOT NULL,
      df int4 NOT NULL,
      PRIMARY KEY (board_id, term)
    )`.execute(db);
  await sql`
    CREATE FUNCTION board_terms_add(board uuid, ids int4[], dfs int4[], sign int4) RETURNS void LANGUAGE sql AS $$
      INSERT INTO board_terms (board_id, term, df)
      SELECT board, t.term, sign * t.df FROM unnest(ids, dfs) AS t(term, df)
      WHERE EXISTS (SELECT 1 FROM boards WHERE id = board)
      ORDER BY t.term
      ON CONFLICT (board_id, term) DO UPDATE SET df = board_terms.df + excluded.df
    $$`.execute(db);
  await sql`
    CREATE FUNCTION chunk_sets_term_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.state = 'live' AND OLD.term_ids IS NOT NULL THEN
        PERFORM board_terms_add(OLD.board_id, OLD.term_ids, OLD.term_df, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.state = 'live' AND NEW.term_ids IS NOT NULL THEN
        PERFORM board_terms_add(NEW.board_id, NEW.term_ids, NEW.term_df, 1);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER chunk_sets_term_stats AFTER INSERT OR DELETE OR UPDATE OF state, term_ids, term_df ON chunk_sets
    FOR EACH ROW EXECUTE FUNCTION chunk_sets_term_stats()`.execute(db);
}
