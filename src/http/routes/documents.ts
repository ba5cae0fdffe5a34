// /v1/boards/{boardId}/documents: vectorize text (a background job), list and delete stored chunks,
// and semantic search.
import { Type } from '@sinclair/typebox';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { Uuid } from '../../contract/common.js';
import { Chunk, Hit, NodeIndex, SearchBody, VectorizeBatchBody, VectorizeBody } from '../../contract/documents.js';
import { BoardParams, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';
import { Job } from '../../contract/jobs.js';

/** Vectorize bodies carry up to 5,000,000 characters of text; a batch's documents share the same limit. */
const VECTORIZE_BODY_LIMIT = 10 * 1024 * 1024;

const ChunkListQuery = Type.Object({ node_id: Type.Optional(Uuid), ...PageQuery }, { additionalProperties: false });
const NodeQuery = Type.Object({ node_id: Uuid }, { additionalProperties: false });

export function documentRoutes(app: App, services: Services): void {
  const { documents, jobs } = services;

  app.post(
    '/v1/boards/:boardId/documents',
    {
      bodyLimit: VECTORIZE_BODY_LIMIT,
      schema: {
        tags: ['documents'],
        operationId: 'vectorize',
        summary: 'Vectorize text or a pdf node (answers a document_process job)',
        params: BoardParams,
        body: VectorizeBody,
        response: { 202: Single('job', Job), 413: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const job = await documents.vectorize(principalOf(request), request.params.boardId, request.body);
      jobs.wake();
      return reply.code(202).send({ object: 'job', data: job });
    },
  );

  app.post(
    '/v1/boards/:boardId/documents/batch',
    {
      bodyLimit: VECTORIZE_BODY_LIMIT,
      schema: {
        tags: ['documents'],
        operationId: 'vectorizeBatch',
        summary: 'Vectorize up to 100 texts or pdf nodes at once (answers their document_process jobs, one per document, in order)',
        params: BoardParams,
        body: VectorizeBatchBody,
        response: { 202: List(Job), 413: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const data = await documents.vectorizeBatch(principalOf(request), request.params.boardId, request.body.documents);
      jobs.wake();
      return reply.code(202).send({ object: 'list', data, has_more: false, cursor: null });
    },
  );

  app.get(
    '/v1/boards/:boardId/documents',
    {
      schema: {
        tags: ['documents'],
        operationId: 'listChunks',
        summary: "List a board's stored chunks",
        params: BoardParams,
        querystring: ChunkListQuery,
        response: { 200: List(Chunk), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const list = `documents:${boardId}:${request.query.node_id ?? '*'}`;
      const page = await documents.listChunks(
        principalOf(request),
        boardId,
        request.query.node_id,
        pageRequest(list, request.query, 'asc'),
        list,
      );
      return { object: 'list' as const, ...page };
    },
  );

  app.get(
    '/v1/boards/:boardId/documents/nodes',
    {
      schema: {
        tags: ['documents'],
        operationId: 'listNodeIndexes',
        summary: "List the board's vectorized nodes: chunk count, when, and a hash of the text vectorized (all in one page)",
        params: BoardParams,
        response: { 200: List(NodeIndex), ...errorResponses },
      },
    },
    async (request) => {
      const data = await documents.listNodeIndexes(principalOf(request), request.params.boardId);
      return { object: 'list' as const, data, has_more: false, cursor: null };
    },
  );

  app.delete(
    '/v1/boards/:boardId/documents',
    {
      schema: {
        tags: ['documents'],
        operationId: 'deleteChunks',
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
      const chunks = await documents.deleteNodeChunks(principalOf(request), request.params.boardId, request.query.node_id);
      return { object: 'document' as const, data: { id: request.query.node_id, deleted: true as const, chunks } };
    },
  );

  app.post(
    '/v1/boards/:boardId/documents/search',
    {
      schema: {
        tags: ['documents'],
        operationId: 'searchDocuments',
        summary: 'Search the board’s chunks by meaning (cosine similarity), keywords (BM25) or both, by descending score',
        params: BoardParams,
        body: SearchBody,
        response: { 200: List(Hit), 502: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      const { query, mode = 'vector', limit = 10, threshold = 0, node_ids, cursor } = request.body;
      const page = await documents.searchBoard(principalOf(request), request.params.boardId, query, {
        mode,
        limit,
        threshold,
        nodeIds: node_ids,
        cursor,
      });
      return { object: 'list' as const, ...page };
    },
  );
}
