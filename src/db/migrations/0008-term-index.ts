// An inverted index of the chunks' terms, for top-k lexical search without scoring every chunk of
// the board (src/documents/term-pruning.ts): a GIN index over each chunk's term ids made
// board-scoped, a 64-bit key per term whose high half is the board id's last 32 bits (random in a
// UUID v4 or v7; taken from the id itself rather than a hash function, whose output a PostgreSQL
// upgrade could change under a stored index). A board's posting lists then hold only its own
// chunks, so one tenant's large boards never lengthen another's lookups (two boards sharing those
// 32 bits only cost filtered rows: queries also test board_id). The keys are
// an expression of the row, not a column: nothing more is stored per chunk, and a duplicated
// board's copied chunks are indexed under their new board.
//
// fastupdate is off: with it, new entries wait in a pending list that every search reads through
// until a vacuum merges them, and the embedded database never vacuums on its own.
//
// The local model's embeddings are scaled to unit length (as new ones now are, lexical.ts), so that
// search ranks by their inner product with the unit query, which is their cosine and a third
// cheaper to compute than pgvector's cosine distance. Scaling leaves every cosine as it was.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await unitEmbeddings(db);
  await sql`
    CREATE FUNCTION chunk_term_keys(board uuid, terms int4[]) RETURNS int8[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT array_agg(((('x' || right(replace(board::text, '-', ''), 8))::bit(32)::int4::int8) << 32) | t) FROM unnest(terms) AS t
    $$`.execute(db);
  await sql`
    CREATE INDEX document_chunks_terms_idx ON document_chunks USING gin (chunk_term_keys(board_id, term_ids))
    WITH (fastupdate = off)`.execute(db);
}

/** Scales the local model's embeddings to unit length (exported for its test). */
export async function unitEmbeddings(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE document_chunks SET sparse_embedding = l2_normalize(sparse_embedding) WHERE sparse_embedding IS NOT NULL`.execute(db);
}
