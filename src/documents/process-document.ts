// The `document_process` job: chunk the text (or a pdf node's pages), embed the chunks and write
// them into the job's chunk set (id = the job's id, state `writing`, invisible to searches). The
// completing transaction makes the set live and retires the node's earlier sets, so searches see
// either the old chunks or the new ones, never a mix.
//
// Built for the embedded database's one connection: chunking and embedding run on the service's
// thread in slices of a few milliseconds, the next batch is embedded while the current one is being
// written, and writes are paced statements of about 20 ms (see Pacer). A job interrupted by a crash
// resumes: the rows already written are whole (each statement is atomic) and in chunk order, so
// the next attempt counts them and continues with the next chunk.
import { createHash } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database, Db, Executor } from '../db/schema.js';
import { JobError, type ClaimedJob, type JobHandler, type JobOutcome } from '../jobs/worker.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { chunkPagesAsync, type ChunkOptions, type TextChunk } from './chunker.js';
import type { PurgeRequests } from './chunk-purge.js';
import type { Foreground } from '../jobs/foreground.js';
import { chunkVectors, deleteSetChunks, insertChunks, Pacer } from './chunk-store.js';
import type { DocumentJobPayload } from './document-service.js';
import { type FileReader, readSource, writeReadData } from './reading/read-node.js';
import { chunkTimes } from './reading/transcript.js';
import type { NodeReadCache } from '../nodes/node-cache.js';
import { assertStorageQuota } from '../access/user-quota.js';
import { setTermCounts } from './term-stats.js';
import type { ReadingConfig, UserQuotas } from '../config.js';

export interface DocumentJobDeps {
  db: Db;
  embedder: Embedder;
  chunking: ChunkOptions;
  storage?: FileReader;
  /** The app's requests in flight, which paced writes wait for. */
  foreground: Foreground;
  /** The app's chunk purger, kicked when a set is retired. */
  purger: PurgeRequests;
  /** The users' quotas: the chunks written count against the board owner's stored bytes. */
  quotas: UserQuotas;
  /** Reading pages (OUTBOUND_ALLOWED_HOSTS, READ_PAGE_TIMEOUT_MS). */
  reading: ReadingConfig;
  /** The app's node cache (embedded database), invalidated when a read writes into its node. */
  nodeCache?: NodeReadCache;
}
/** Chunks embedded at a time: enough to keep the writer busy while the next batch is embedded. */
const EMBED_BATCH = 64;
const PROGRESS_LOG_MS = 1000;

/** Hides a job's set (its chunks are then deleted in the background). */
export async function retireJobSet(db: Executor, purger: PurgeRequests, jobId: string): Promise<void> {
  await db.updateTable('chunk_sets').set({ state: 'retired' }).where('id', '=', jobId).execute();
  purger.kick();
}

export function documentJobHandler(deps: DocumentJobDeps): JobHandler {
  const { db, embedder } = deps;
  return {
    cleanup: (executor, job) => retireJobSet(executor, deps.purger, job.id),
    outcome: {
      completed: 'document.completed',
      failed: 'document.failed',
      extra: (job) => ({ node_id: (job.payload as unknown as DocumentJobPayload).nodeId }),
    },
    async run(job, signal, log): Promise<JobOutcome> {
      const payload = job.payload as unknown as DocumentJobPayload;
      if (!job.board_id) throw new JobError('The board was deleted');
      const gone = await deletedTarget(db, payload);
      if (gone) throw gone;
      const read = await readSource(
        { db, storage: deps.storage, allowedHosts: deps.reading.allowedHosts, pageTimeoutMs: deps.reading.timeoutMs },
        payload,
        signal,
      );
      const chunks = await chunkPagesAsync(read.pages, deps.chunking, signal);
      if (chunks.length === 0)
        throw new JobError(
          payload.text !== undefined || payload.read !== undefined
            ? 'The text has no content to vectorize'
            : 'The PDF has no extractable text (a scanned PDF needs OCR first)',
        );

      const start = await whileTargetExists(db, payload, () => openSet(db, deps.foreground, job, payload, embedder.model, chunks));
      if (start > 0) log.info({ from: start, total: chunks.length }, 'vectorize resumed');
      let written = start;
      let lastLog = -Infinity;
      let clock = 0;
      const pacer = new Pacer(deps.foreground);
      const embedFrom = (from: number) => {
        const promise = chunkVectors(
          embedder,
          chunks.slice(from, from + EMBED_BATCH).map((c) => ({ content: c.content, source: payload.source })),
          signal,
        );
        promise.catch(() => {}); // awaited below; this only keeps an abandoned batch from being "unhandled"
        return promise;
      };
      let next = start < chunks.length ? embedFrom(start) : undefined;
      for (let i = start; i < chunks.length; i += EMBED_BATCH) {
        const vectors = await next!;
        next = i + EMBED_BATCH < chunks.length ? embedFrom(i + EMBED_BATCH) : undefined;
        const rows = chunks.slice(i, i + EMBED_BATCH).map((c, k) => ({
          content: c.content,
          metadata: {
            source: payload.source,
            page: c.page,
            chunkIndex: c.chunkIndex,
            totalChunks: c.totalChunks,
            sourceType: payload.sourceType,
            char_start: c.charStart,
            char_end: c.charEnd,
            ...(read.cues ? chunkTimes(read.cues, c.charStart, c.charEnd) : {}),
          },
          ...vectors[k]!,
        }));
        await whileTargetExists(db, payload, () =>
          pacer.each(
            rows,
            async (slice) => {
              // Never earlier than the previous statement's rows: lists show chunks in document order.
              clock = Math.max(clock, Date.now());
              // Checked against the board owner's quota after the insert, in its transaction: the
              // owner's row is locked by then, so jobs and writes at once cannot overshoot it.
              await db.transaction().execute(async (trx) => {
                await insertChunks(
                  trx,
                  { setId: job.id, boardId: payload.boardId, nodeId: payload.nodeId, model: embedder.model, createdAt: new Date(clock) },
                  slice,
                );
                await assertStorageQuota(trx, { boardId: payload.boardId }, deps.quotas);
              });
              written += slice.length;
              if (performance.now() - lastLog > PROGRESS_LOG_MS) {
                lastLog = performance.now();
                log.debug({ written, total: chunks.length }, 'vectorize progress');
              }
            },
            signal,
          ),
        );
      }

      return {
        result: { chunks: chunks.length },
        async finalize(trx) {
          const { n } = await trx
            .selectFrom('document_chunks')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('set_id', '=', job.id)
            .executeTakeFirstOrThrow();
          if (Number(n) !== chunks.length) {
            // Only possible if two workers wrote at once (one had lost its lease without noticing).
            throw new JobError(`The job wrote ${n} chunks instead of ${chunks.length}; submit it again`);
          }
          if (payload.nodeId) {
            // Jobs for one node may run side by side (JOB_CONCURRENCY, several processes), so the
            // order they finish in must not decide which text the node keeps: completions for a node
            // take turns on its row, and the job queued last (the larger UUIDv7) wins. An older job
            // finishing after a newer one retires its own set.
            await sql`SELECT 1 FROM nodes WHERE id = ${payload.nodeId} FOR NO KEY UPDATE`.execute(trx);
            const newer = await trx
              .selectFrom('chunk_sets')
              .select('id')
              .where('node_id', '=', payload.nodeId)
              .where('state', '=', 'live')
              .where('id', '>', job.id)
              .executeTakeFirst();
            if (newer) {
              await trx.updateTable('chunk_sets').set({ state: 'retired' }).where('id', '=', job.id).execute();
              return;
            }
            await trx
              .updateTable('chunk_sets')
              .set({ state: 'retired' })
              .where('board_id', '=', payload.boardId)
              .where('node_id', '=', payload.nodeId)
              .where('state', '=', 'live')
              .execute();
          }
          const live = await trx
            .updateTable('chunk_sets')
            .set({ state: 'live', chunks: chunks.length, ...setTermCounts(job.id) })
            .where('id', '=', job.id)
            .where('state', '=', 'writing')
            .executeTakeFirst();
          // The set went with its board or node (ON DELETE CASCADE).
          if (Number(live.numUpdatedRows) !== 1)
            throw (await deletedTarget(trx, payload)) ?? new JobError("The job's chunks were removed while it ran; submit it again");
          // The worker completes inside a changeTransaction, so the node's update records its event.
          if (payload.nodeId && read.nodeData)
            await writeReadData(trx as Transaction<Database>, payload.boardId, payload.nodeId, job.user_id, read.nodeData);
        },
        committed: () => {
          deps.purger.kick();
          if (read.nodeData) deps.nodeCache?.invalidate(payload.boardId);
        },
      };
    },
  };
}

/** The failure of a job whose board or node is gone (deleted before or while it ran), if one is. */
async function deletedTarget(db: Executor, payload: DocumentJobPayload): Promise<JobError | undefined> {
  const board = await db.selectFrom('boards').select('id').where('id', '=', payload.boardId).executeTakeFirst();
  if (!board) return new JobError('The board was deleted');
  if (payload.nodeId) {
    const node = await db.selectFrom('nodes').select('id').where('id', '=', payload.nodeId).executeTakeFirst();
    if (!node) return new JobError('The node was deleted');
  }
  return undefined;
}

/**
 * Runs a write of the job's set. The board or node may be deleted at any moment while the job runs
 * (its set goes with it): a write then violates a foreign key (23503), and the job fails saying
 * which was deleted, as it would have had it been deleted before the job started.
 */
async function whileTargetExists<T>(db: Db, payload: DocumentJobPayload, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: unknown }).code !== '23503') throw error;
    throw (await deletedTarget(db, payload)) ?? error;
  }
}

/**
 * Creates the job's set, or takes up the one an interrupted attempt left: its rows are kept when
 * they are a prefix of this text's chunks made by the same model (0..n-1, same total); otherwise
 * they are deleted and the set starts over. Answers the index of the first chunk to write.
 */
async function openSet(
  db: Db,
  foreground: Foreground,
  job: ClaimedJob,
  payload: DocumentJobPayload,
  model: string,
  chunks: TextChunk[],
): Promise<number> {
  const existing = await db.selectFrom('chunk_sets').select(['model', 'state']).where('id', '=', job.id).executeTakeFirst();
  if (!existing) {
    await db
      .insertInto('chunk_sets')
      .values({
        id: job.id,
        board_id: payload.boardId,
        node_id: payload.nodeId,
        model,
        state: 'writing',
        chunks: 0,
        text_sha256: payload.text === undefined ? null : createHash('sha256').update(payload.text, 'utf8').digest('hex'),
        created_at: new Date(),
      })
      .execute();
    return 0;
  }
  if (existing.state === 'writing' && existing.model === model) {
    const { rows } = await sql<{ n: number; last: number | null; total: number | null }>`
      SELECT count(*)::int AS n, max((metadata->>'chunkIndex')::int) AS last, max((metadata->>'totalChunks')::int) AS total
      FROM document_chunks WHERE set_id = ${job.id}`.execute(db);
    const { n, last, total } = rows[0]!;
    if (n === 0) return 0;
    if (last === n - 1 && total === chunks.length && n <= chunks.length) {
      // A read source (a page) may have changed since the interrupted attempt read it: its rows are
      // kept only when the last one written is this reading's chunk at that place.
      const lastRow = await db
        .selectFrom('document_chunks')
        .select('content')
        .where('set_id', '=', job.id)
        .where(sql<boolean>`(metadata->>'chunkIndex')::int = ${n - 1}`)
        .executeTakeFirst();
      if (lastRow?.content === chunks[n - 1]!.content) return n;
    }
  }
  // Start over in the same set: delete what the earlier attempt wrote.
  await deleteSetChunks(db, foreground, job.id);
  await db.updateTable('chunk_sets').set({ model, state: 'writing', chunks: 0 }).where('id', '=', job.id).execute();
  return 0;
}
