// Re-embedding a board after the embedding model changed (another EMBEDDINGS_PROVIDER,
// EMBEDDINGS_MODEL or dimension count, or a new version of the local model), and filling in the
// keywords of chunks written before keyword search existed (migration 0007). Searches only compare
// vectors of the configured model, so chunks of another model are not found until a
// `document_reembed` job has embedded them again.
//
// Triggers: a search (or a chat's retrieval) on a board that still has live chunks of another model
// queues the job, at most one at a time per board; and on the embedded database, which only this
// process uses, the service queues one for every such board at start. (With DATABASE_URL several
// instances may briefly run different models during a rollout, so only use triggers the work.)
//
// The job updates chunks in place (same ids, content and metadata; new model and vector), oldest
// first, in paced statements; it is naturally resumable, since rows already done no longer match
// `model <> current`. While it runs, the board's searches find the chunks re-embedded so far.
import { sql } from 'kysely';
import type { Db, Executor } from '../db/schema.js';
import { newId, now } from '../lib/ids.js';
import type { Foreground } from '../jobs/foreground.js';
import { JobError, type JobHandler, type JobOutcome } from '../jobs/worker.js';
import { localEmbedder, type Embedder } from '../providers/embeddings/embedder.js';
import { chunkVectors, intArrayLiteral, Pacer } from './chunk-store.js';
import { setTermCounts } from './term-stats.js';

export const REEMBED_JOB = 'document_reembed';

const PAGE = 64;
/** A failed re-embed (provider down) is not queued again by every search for this long. */
const RETRY_AFTER_FAILURE = '5 minutes';

/** Queues a re-embed job for the board unless one is running or failed a moment ago; answers its id. */
export async function queueReembed(db: Executor, boardId: string): Promise<string | undefined> {
  const at = now();
  const { rows } = await sql<{ id: string }>`
    INSERT INTO jobs (id, user_id, board_id, type, status, result, error, payload, attempts, lease_until, created_at, updated_at)
    SELECT ${newId()}, b.owner_id, b.id, ${REEMBED_JOB}, 'processing', NULL, NULL, ${JSON.stringify({ boardId })}::jsonb, 0, NULL, ${at}, ${at}
    FROM boards b
    WHERE b.id = ${boardId} AND NOT EXISTS (
      SELECT 1 FROM jobs j WHERE j.board_id = b.id AND j.type = ${REEMBED_JOB}
        AND (j.status = 'processing' OR (j.status = 'failed' AND j.updated_at > now() - ${RETRY_AFTER_FAILURE}::interval)))
    RETURNING id`.execute(db);
  return rows[0]?.id;
}

/** Live sets that need the re-embed job: of another model, or without term counts (written before 0007). */
export const staleSet = (model: string) => sql<boolean>`(model <> ${model} OR term_ids IS NULL)`;

/**
 * Whether a board has a live set that needs the re-embed job, in three index probes whatever its
 * number of sets (migration 0026: the live sets by model, and those without term counts), since a
 * search asks it every time: the first and last model of its live sets (each one row of the index,
 * both the configured model unless another is there) and any set without term counts. Written so
 * that a kept plan (a prepared statement's generic plan, which cannot tell one board from another)
 * probes the index too: `model <> $1` or `model < $1` let it prefer a scan of every set.
 */
export const staleBoard = (boardId: string, model: string) => {
  const live = sql`FROM chunk_sets WHERE board_id = ${boardId} AND state = 'live'`;
  return sql<boolean>`coalesce((SELECT min(model) ${live}) <> ${model} OR (SELECT max(model) ${live}) <> ${model}
    OR EXISTS (SELECT 1 ${live} AND term_ids IS NULL), false)`;
};

/** Queues a re-embed for every board with stale live sets; answers how many. */
export async function queueStaleBoards(db: Db, model: string): Promise<number> {
  const boards = await db
    .selectFrom('chunk_sets')
    .select('board_id')
    .distinct()
    .where('state', '=', 'live')
    .where(staleSet(model))
    .execute();
  let queued = 0;
  for (const { board_id } of boards) if (await queueReembed(db, board_id)) queued++;
  return queued;
}

export function reembedJobHandler(deps: { db: Db; embedder: Embedder; foreground: Foreground }): JobHandler {
  const { db, embedder } = deps;
  const model = embedder.model;
  return {
    async run(job, signal, log): Promise<JobOutcome> {
      const boardId = job.board_id;
      if (!boardId) throw new JobError('The board was deleted');
      const pacer = new Pacer(deps.foreground);
      let after: { at: Date; id: string } | undefined;
      let done = 0;
      const page = async () => {
        const keyset = after ? sql`AND (created_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``;
        const { rows } = await sql<{ id: string; content: string; source: string; stale: boolean; created_at: Date }>`
          SELECT id, content, metadata->>'source' AS source, model <> ${model} AS stale, created_at FROM document_chunks
          WHERE board_id = ${boardId} AND (model <> ${model} OR keywords IS NULL) ${keyset}
            AND set_id IN (SELECT id FROM chunk_sets WHERE board_id = ${boardId} AND state = 'live')
          ORDER BY created_at, id LIMIT ${PAGE}`.execute(db);
        const last = rows[rows.length - 1];
        if (last) after = { at: last.created_at, id: last.id };
        return rows;
      };
      for (let rows = await page(); rows.length > 0; rows = await page()) {
        signal.throwIfAborted();
        // Chunks of this model that only lack keywords (written before 0007) keep their embedding.
        const stale = rows.filter((r) => r.stale);
        const current = rows.filter((r) => !r.stale);
        const withVectors = async (list: typeof rows, model: Embedder) =>
          (await chunkVectors(model, list, signal)).map((v, i) => ({ id: list[i]!.id, stale: list[i]!.stale, ...v }));
        const updates = [...(await withVectors(stale, embedder)), ...(await withVectors(current, localEmbedder))];
        await pacer.each(
          updates,
          async (slice) => {
            const { numAffectedRows } = await sql`
            UPDATE document_chunks c SET model = ${model},
              embedding = CASE WHEN u.stale THEN u.embedding::vector ELSE c.embedding END,
              sparse_embedding = CASE WHEN u.stale THEN u.sparse_embedding::sparsevec ELSE c.sparse_embedding END,
              keywords = u.keywords::sparsevec, term_ids = u.term_ids::int4[]
            FROM unnest(${slice.map((u) => u.id)}::uuid[], ${slice.map((u) => u.stale)}::bool[], ${slice.map((u) => u.embedding)}::text[],
              ${slice.map((u) => u.sparseEmbedding)}::text[], ${slice.map((u) => u.keywords)}::text[], ${slice.map((u) => intArrayLiteral(u.termIds))}::text[])
              AS u(id, stale, embedding, sparse_embedding, keywords, term_ids)
            WHERE c.id = u.id AND (c.model <> ${model} OR c.keywords IS NULL)`.execute(db);
            done += Number(numAffectedRows ?? 0);
          },
          signal,
        );
        log.debug({ done }, 're-embed progress');
      }
      return {
        result: { chunks: done },
        async finalize(trx) {
          // Sets whose chunks are all current now say so (the start-time check reads sets), and
          // their term counts join the board's statistics.
          await trx
            .updateTable('chunk_sets as s')
            .set({ model, ...setTermCounts(sql.ref('s.id')) })
            .where('s.board_id', '=', boardId)
            .where('s.state', '=', 'live')
            .where((eb) => eb.or([eb('s.model', '<>', model), eb('s.term_ids', 'is', null)]))
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('document_chunks as c')
                    .select('c.id')
                    .whereRef('c.set_id', '=', 's.id')
                    .where((eb) => eb.or([eb('c.model', '<>', model), eb('c.keywords', 'is', null)])),
                ),
              ),
            )
            .execute();
        },
      };
    },
  };
}
