// The `document_process` job: chunk the text (or a pdf node's pages), embed the chunks in batches
// and store them as pending rows; on completion the node's earlier chunks are replaced by the new
// ones in the same transaction that marks the job completed, so searches see either the old or the
// new set, never a mix. Chunks written by an interrupted attempt are removed before a new attempt.
import type { Readable } from 'node:stream';
import type { Db, Executor } from '../db/schema.js';
import { JobError, type ClaimedJob, type JobHandler, type JobOutcome } from '../jobs/worker.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { chunkPages, type ChunkOptions, type PageText } from './chunker.js';
import { INSERT_BATCH, insertChunks } from './chunk-store.js';
import type { DocumentJobPayload } from './document-service.js';
import { pdfPages } from './pdf-text.js';

/** The part of the storage provider this job reads pdf files with. */
export interface FileReader {
  get(path: string): Promise<{ body: Readable; size: number; contentType: string } | undefined>;
}

export interface DocumentJobDeps {
  db: Db;
  embedder: Embedder;
  chunking: ChunkOptions;
  storage?: FileReader;
}

const MAX_PDF_BYTES = 200 * 1024 * 1024;

export function documentJobHandler(deps: DocumentJobDeps): JobHandler {
  const { db, embedder } = deps;
  const removePending = (executor: Executor, job: ClaimedJob) =>
    executor.deleteFrom('document_chunks').where('pending_job_id', '=', job.id).execute().then(() => {});

  return {
    cleanup: removePending,
    async run(job, signal): Promise<JobOutcome> {
      const payload = job.payload as unknown as DocumentJobPayload;
      await removePending(db, job);
      if (!job.board_id) throw new JobError('The board was deleted');
      if (payload.nodeId) {
        const node = await db.selectFrom('nodes').select('id').where('id', '=', payload.nodeId).executeTakeFirst();
        if (!node) throw new JobError('The node was deleted');
      }
      const pages: PageText[] = payload.text !== undefined ? [{ page: 1, text: payload.text }] : await readPdf(deps, payload.storagePath ?? '');
      const chunks = chunkPages(pages, deps.chunking);
      if (chunks.length === 0) throw new JobError(payload.text !== undefined ? 'The text has no content to vectorize' : 'The PDF has no extractable text (a scanned PDF needs OCR first)');
      for (let i = 0; i < chunks.length; i += INSERT_BATCH) {
        signal.throwIfAborted();
        const batch = chunks.slice(i, i + INSERT_BATCH);
        const vectors = await embedder.embed(batch.map((c) => c.content), signal);
        try {
          await insertChunks(db, batch.map((c, k) => ({
            boardId: payload.boardId,
            nodeId: payload.nodeId,
            content: c.content,
            metadata: { source: payload.source, page: c.page, chunkIndex: c.chunkIndex, totalChunks: c.totalChunks, sourceType: payload.sourceType },
            model: embedder.model,
            embedding: vectors[k]!,
            pendingJobId: job.id,
          })));
        } catch (error) {
          // The board or node went away while the job ran (foreign key violation).
          if ((error as { code?: string }).code === '23503') throw new JobError('The board or node was deleted while the job ran');
          throw error;
        }
      }
      return {
        result: { chunks: chunks.length },
        async finalize(trx) {
          if (payload.nodeId) {
            await trx.deleteFrom('document_chunks').where('node_id', '=', payload.nodeId).where('pending_job_id', 'is', null).execute();
          }
          const { numUpdatedRows } = await trx.updateTable('document_chunks').set({ pending_job_id: null }).where('pending_job_id', '=', job.id).executeTakeFirst();
          // Fewer rows than chunks: the node or board was deleted meanwhile (cascade).
          if (Number(numUpdatedRows) !== chunks.length) throw new JobError('The board or node was deleted while the job ran');
        },
      };
    },
  };
}

async function readPdf(deps: DocumentJobDeps, path: string): Promise<PageText[]> {
  if (!deps.storage) throw new JobError('Reading pdf files is not available on this server (no file storage)');
  const file = await deps.storage.get(path);
  if (!file) throw new JobError("The pdf node's file was not found in storage");
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of file.body) {
    size += (part as Buffer).length;
    if (size > MAX_PDF_BYTES) throw new JobError('The pdf file is too large to extract');
    parts.push(part as Buffer);
  }
  try {
    return await pdfPages(Buffer.concat(parts));
  } catch {
    throw new JobError('The file could not be read as a PDF');
  }
}
