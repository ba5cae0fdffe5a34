// Documents: chunks and search routes, the vectorizing and re-embedding jobs, the chunk index the
// configured embedder needs, and the purger of retired chunk sets.
import { ensureChunkIndex } from '../documents/chunk-index.js';
import { DOCUMENT_JOB } from '../documents/document-service.js';
import { documentJobHandler } from '../documents/process-document.js';
import { REEMBED_JOB, reembedJobHandler } from '../documents/reembed.js';
import { documentRoutes } from '../http/routes/documents.js';
import type { AppModule } from './app-module.js';

export const documentsModule: AppModule = {
  routes: documentRoutes,
  jobs: ({ db, embedder, storage, config, foreground, purger, nodeCache }) => ({
    [DOCUMENT_JOB]: documentJobHandler({
      db,
      embedder,
      storage,
      chunking: { size: config.chunkSize, overlap: config.chunkOverlap },
      foreground,
      purger,
      quotas: config.userQuotas,
      reading: config.reading,
      nodeCache,
    }),
    [REEMBED_JOB]: reembedJobHandler({ db, embedder, foreground }),
  }),
  prepare: async ({ db, embedder }) => {
    await ensureChunkIndex(db, embedder);
  },
  background: ({ background, purger }) => background.add(purger),
};
