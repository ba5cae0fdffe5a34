// Reading and writing stored chunks: the pgvector text form, the visibility rule (a chunk is seen
// while its set is live), and paced writes. On the embedded database every request shares one
// connection and one WebAssembly thread, so background writers cut their work into statements of
// about PACE_TARGET_MS each, yield between them (a request that queued meanwhile gets the connection
// next: node-postgres hands it out first come, first served) and start the next one only when no
// request is in flight (src/jobs/foreground.ts).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../db/schema.js';
import type { Foreground } from '../jobs/foreground.js';
import { newId } from '../lib/ids.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { chunkTerms, localEmbedding, sparseLiteral } from './lexical.js';
import type { ChunkMetadata } from '../contract/documents.js';

/** PostgreSQL's array text form of integers (an array of arrays cannot pass through unnest as parameters). */
export const intArrayLiteral = (v: number[]): string => `{${v.join(',')}}`;

/** pgvector's text form; 7 significant digits are more than its float4 storage keeps. */
export const vectorLiteral = (v: number[]): string => `[${v.map((x) => Number(x.toPrecision(7))).join(',')}]`;

/**
 * `set_id NOT IN (the board's sets that are not live)`: few rows, so a hashed subplan per search.
 * The states are named (every state but 'live': the CHECK of migration 0006) so that the condition
 * is one only chunk_sets_hidden_idx (board_id, state) serves: with `state <> 'live'` a planner without
 * statistics read the board's every set through chunk_sets_board_idx (migration 0027).
 */
export const visibleChunk = (boardId: string): Expression<SqlBool> =>
  sql<SqlBool>`set_id NOT IN (SELECT id FROM chunk_sets WHERE board_id = ${boardId} AND state IN ('writing', 'retired'))`;

/** How long one background statement should hold the connection. */
export const PACE_TARGET_MS = 20;
/** The longest a background statement waits for requests in flight to finish. */
const FOREGROUND_MAX_WAIT_MS = 50;

/**
 * Sizes batches so each statement takes about `targetMs`: the cost of a row varies by two orders
 * of magnitude (an HNSW insert of a 1,536-dimension vector against a delete), and with the load.
 */
export class Pacer {
  private perRowMs: number | undefined;

  constructor(
    /** The app's requests in flight, which each statement waits for. */
    private readonly foreground: Foreground,
    private readonly targetMs = PACE_TARGET_MS,
    private readonly initial = 4,
    private readonly max = 500,
  ) {}

  get size(): number {
    if (this.perRowMs === undefined) return this.initial;
    return Math.max(1, Math.min(this.max, Math.floor(this.targetMs / Math.max(this.perRowMs, 0.001))));
  }

  /** Waits for requests in flight (see foreground.ts), runs one statement over `rows` rows, learns its cost. */
  async step<T>(rows: number, statement: () => Promise<T>): Promise<T> {
    await this.foreground.idle(FOREGROUND_MAX_WAIT_MS);
    const started = performance.now();
    const result = await statement();
    const perRow = (performance.now() - started) / Math.max(1, rows);
    // Smoothed, but quick to shrink: one slow statement is what a waiting request feels.
    this.perRowMs = this.perRowMs === undefined || perRow > this.perRowMs ? perRow : 0.7 * this.perRowMs + 0.3 * perRow;
    await yieldToLoop();
    return result;
  }

  /** Applies `write` to consecutive slices of `items`, each sized by the pacer. */
  async each<T>(items: T[], write: (slice: T[]) => Promise<void>, signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < items.length; ) {
      signal?.throwIfAborted();
      const slice = items.slice(i, i + this.size);
      await this.step(slice.length, () => write(slice));
      i += slice.length;
    }
  }
}

export interface NewChunk extends ChunkVectors {
  content: string;
  metadata: ChunkMetadata;
}

/** What a chunk is found by: its embedding (dense or the local sparse one) and its keywords. */
export interface ChunkVectors {
  /** pgvector text form of a dense model's vector, or null (the local model). */
  embedding: string | null;
  /** sparsevec text form of the local model's vector, or null (a dense model). */
  sparseEmbedding: string | null;
  keywords: string;
  termIds: number[];
}

/**
 * Computes the vectors of chunks: always their keywords, and the embedding of `embedder`'s model
 * (the dense provider's call, or the local model's sparse vector with the chunk's source title).
 */
export async function chunkVectors(
  embedder: Embedder,
  chunks: { content: string; source: string }[],
  signal?: AbortSignal,
): Promise<ChunkVectors[]> {
  const dense =
    embedder.kind === 'dense'
      ? await embedder.embed(
          chunks.map((c) => c.content),
          signal,
        )
      : undefined;
  return chunks.map((c, i) => {
    const { keywords, termIds } = chunkTerms(c.content);
    return {
      embedding: dense ? vectorLiteral(dense[i]!) : null,
      sparseEmbedding: dense ? null : sparseLiteral(localEmbedding(keywords, c.source)),
      keywords: sparseLiteral(keywords),
      termIds,
    };
  });
}

/**
 * Inserts chunks into a set in one statement. The shape is the same for any number of rows (one
 * array per column), so the embedded database keeps it as one prepared statement.
 */
export async function insertChunks(
  db: Executor,
  target: { setId: string; boardId: string; nodeId: string | null; model: string; createdAt: Date },
  rows: NewChunk[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO document_chunks (id, board_id, node_id, set_id, content, metadata, model, embedding, sparse_embedding, keywords, term_ids, created_at)
    SELECT r.id, ${target.boardId}::uuid, ${target.nodeId}::uuid, ${target.setId}::uuid, r.content, r.metadata,
      ${target.model}, r.embedding::vector, r.sparse_embedding::sparsevec, r.keywords::sparsevec, r.term_ids::int4[], ${target.createdAt}::timestamptz
    FROM unnest(${rows.map(() => newId())}::uuid[], ${rows.map((r) => r.content)}::text[],
      ${rows.map((r) => JSON.stringify(r.metadata))}::jsonb[], ${rows.map((r) => r.embedding)}::text[], ${rows.map((r) => r.sparseEmbedding)}::text[],
      ${rows.map((r) => r.keywords)}::text[], ${rows.map((r) => intArrayLiteral(r.termIds))}::text[])
      WITH ORDINALITY AS r(id, content, metadata, embedding, sparse_embedding, keywords, term_ids, n)
    ORDER BY r.n`.execute(db);
}

/** Deletes a set's chunks in paced batches (deletes are cheap per row, so batches grow large). */
export async function deleteSetChunks(db: Executor, foreground: Foreground, setId: string, shouldStop?: () => boolean): Promise<void> {
  const pacer = new Pacer(foreground, undefined, 50, 2000);
  while (!shouldStop?.()) {
    const size = pacer.size;
    const { numAffectedRows } = await pacer.step(size, () =>
      sql`DELETE FROM document_chunks WHERE id IN (SELECT id FROM document_chunks WHERE set_id = ${setId} LIMIT ${size})`.execute(db),
    );
    if (Number(numAffectedRows ?? 0) < size) return;
  }
}
