// /v1/boards/{boardId}/documents: vectorize text (a background job), list and delete stored chunks,
// and semantic search.
import { Type } from '@sinclair/typebox';
import { deleteNodeChunks, enqueueVectorize, listChunks } from '../../documents/document-service.js';
import { SEARCH_MODES, searchChunksPage, type SearchMode } from '../../documents/search-service.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { Timestamp, Uuid } from '../../contract/common.js';
import { BoardParams, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';
import { Job } from '../../contract/jobs.js';

/** Vectorize bodies carry up to 5,000,000 characters of text. */
const VECTORIZE_BODY_LIMIT = 10 * 1024 * 1024;

const Metadata = Type.Object({
  source: Type.String(),
  page: Type.Integer(),
  chunkIndex: Type.Integer(),
  totalChunks: Type.Integer(),
  sourceType: Type.String(),
});

const Chunk = Type.Object({
  id: Uuid,
  content: Type.String(),
  node_id: Type.Union([Uuid, Type.Null()]),
  metadata: Metadata,
  model: Type.String({ description: 'The embedding model that embedded the chunk' }),
  created_at: Timestamp,
});

const Hit = Type.Object({
  id: Uuid,
  content: Type.String(),
  node_id: Type.Union([Uuid, Type.Null()]),
  metadata: Metadata,
  score: Type.Number({
    description:
      'The ranking score, descending, in the request mode: `vector`, the cosine similarity between the query and the chunk (-1..1); ' +
      "`keyword`, the chunk's BM25 score as a share of the highest the query could reach on this board (0..1); " +
      '`hybrid`, the reciprocal rank fusion (k = 60) of both rankings over its maximum (0..1, 1 when first in both)',
  }),
});

const VectorizeBody = Type.Object(
  {
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 5_000_000, description: 'Text to chunk and embed; optional only for a pdf node' }),
    ),
    node_id: Type.Optional(
      Type.Union([Uuid, Type.Null()], { description: 'A node of this board: its earlier chunks are replaced when the job completes' }),
    ),
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Default: the node\'s label or url, else "text"' })),
    source_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default: the node type, else "text"' })),
  },
  { additionalProperties: false },
);

const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    // An enum rather than a union of literals: one clear validation message.
    mode: Type.Optional(
      Type.Unsafe<SearchMode>(
        Type.String({
          enum: [...SEARCH_MODES],
          default: 'vector',
          description:
            "`vector`: by meaning, the embedding model's cosine similarity; `keyword`: BM25-ranked full text, only chunks holding a query word; " +
            '`hybrid`: reciprocal rank fusion of both (the first 200 chunks of each)',
        }),
      ),
    ),
    threshold: Type.Optional(
      Type.Number({ minimum: -1, maximum: 1, default: 0, description: "Minimum score (in the mode's own scale, see score)" }),
    ),
    node_ids: Type.Optional(Type.Array(Uuid, { maxItems: 100, description: 'Only chunks of these nodes' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Continues the ranking from the previous page' })),
  },
  { additionalProperties: false },
);

const ChunkListQuery = Type.Object({ node_id: Type.Optional(Uuid), ...PageQuery }, { additionalProperties: false });
const NodeQuery = Type.Object({ node_id: Uuid }, { additionalProperties: false });

export function documentRoutes(app: App, services: Services): void {
  const { db, embedder, jobs, config } = services;

  app.post(
    '/v1/boards/:boardId/documents',
    {
      bodyLimit: VECTORIZE_BODY_LIMIT,
      schema: {
        tags: ['documents'],
        summary: 'Vectorize text or a pdf node (answers a document_process job)',
        params: BoardParams,
        body: VectorizeBody,
        response: { 202: Single('job', Job), 413: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const job = await enqueueVectorize(db, principalOf(request), request.params.boardId, request.body, config.jobMaxQueuedPerUser);
      jobs.wake();
      return reply.code(202).send({ object: 'job', data: job });
    },
  );

  app.get(
    '/v1/boards/:boardId/documents',
    {
      schema: {
        tags: ['documents'],
        summary: "List a board's stored chunks",
        params: BoardParams,
        querystring: ChunkListQuery,
        response: { 200: List(Chunk), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const list = `documents:${boardId}:${request.query.node_id ?? '*'}`;
      const page = await listChunks(
        db,
        principalOf(request),
        boardId,
        request.query.node_id,
        pageRequest(list, request.query, 'asc'),
        list,
      );
      return { object: 'list' as const, ...page };
    },
  );

  app.delete(
    '/v1/boards/:boardId/documents',
    {
      schema: {
        tags: ['documents'],
        summary: "Delete a node's chunks",
        params: BoardParams,
        querystring: NodeQuery,
        response: {
          200: Single('document', Type.Object({ id: Uuid, deleted: Type.Literal(true), chunks: Type.Integer() })),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const chunks = await deleteNodeChunks(db, principalOf(request), request.params.boardId, request.query.node_id);
      return { object: 'document' as const, data: { id: request.query.node_id, deleted: true as const, chunks } };
    },
  );

  app.post(
    '/v1/boards/:boardId/documents/search',
    {
      schema: {
        tags: ['documents'],
        summary: 'Search the board’s chunks by meaning (cosine similarity), keywords (BM25) or both, by descending score',
        params: BoardParams,
        body: SearchBody,
        response: { 200: List(Hit), 502: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      const { query, mode = 'vector', limit = 10, threshold = 0, node_ids, cursor } = request.body;
      const page = await searchChunksPage(
        { db, embedder, exactMaxChunks: services.config.searchExactMaxChunks },
        request.params.boardId,
        query,
        { mode, limit, threshold, nodeIds: node_ids, cursor },
        principalOf(request),
      );
      return { object: 'list' as const, ...page };
    },
  );
}
