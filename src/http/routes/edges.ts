// /v1/boards/{boardId}/edges: create, list (optionally those touching a node), get, update, delete.
import { Type } from '@sinclair/typebox';
import { edgeTag } from '../../edges/edge-service.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { sendBoardList } from '../board-lists.js';
import { followEdgePage } from '../../boards/follow-changes.js';
import { ifMatchOf, IfMatchHeaders, IfNoneMatchHeaders, NotModified, tagged, withETag } from '../conditional.js';
import { Uuid } from '../../contract/common.js';
import { CreateEdgeBody, Edge, UpdateEdgeBody } from '../../contract/edges.js';
import { BoardChildParams, BoardParams, Deleted, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const EdgeListQuery = Type.Object(
  { node_id: Type.Optional({ ...Uuid, description: 'Only edges whose source or target is this node' }), ...PageQuery },
  { additionalProperties: false },
);

export function edgeRoutes(app: App, services: Services): void {
  const { edges } = services;
  app.post(
    '/v1/boards/:boardId/edges',
    {
      schema: {
        tags: ['edges'],
        operationId: 'createEdge',
        summary: 'Create an edge between two nodes of the board',
        description:
          'With a client-chosen `id`, repeating the create with the same body answers 201 with the edge as it is now and writes nothing; an id used otherwise is 409.',
        params: BoardParams,
        body: CreateEdgeBody,
        response: { 201: withETag(Single('edge', Edge)), 409: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const edge = await edges.create(principalOf(request), request.params.boardId, request.body);
      tagged(request, reply, edgeTag(edge));
      return reply.code(201).send({ object: 'edge', data: edge });
    },
  );

  app.get(
    '/v1/boards/:boardId/edges',
    {
      // One statement reads and checks the API key (see Authenticator).
      config: { confirmsKey: true },
      schema: {
        tags: ['edges'],
        operationId: 'listEdges',
        summary: "List a board's edges",
        params: BoardParams,
        querystring: EdgeListQuery,
        response: { 200: List(Edge), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { boardId } = request.params;
      const nodeId = request.query.node_id?.toLowerCase();
      // The cursor is bound to the board and the filter, so it cannot page another list.
      const list = `edges:${boardId}:${nodeId ?? '*'}`;
      const page = pageRequest(list, request.query, 'desc');
      const principal = principalOf(request);
      return sendBoardList(
        services,
        reply,
        principal,
        boardId,
        list,
        page,
        () => edges.listWithVersion(principal, boardId, { node_id: nodeId }, page, list),
        followEdgePage(list, nodeId, page),
      );
    },
  );

  app.get(
    '/v1/boards/:boardId/edges/:id',
    {
      // One statement reads and checks the API key (see Authenticator).
      config: { confirmsKey: true },
      schema: {
        tags: ['edges'],
        operationId: 'getEdge',
        summary: 'Get an edge',
        params: BoardChildParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withETag(Single('edge', Edge)), 304: NotModified, 409: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const edge = await edges.get(principalOf(request), request.params);
      if (tagged(request, reply, edgeTag(edge))) return reply.code(304).send();
      return { object: 'edge' as const, data: edge };
    },
  );

  app.patch(
    '/v1/boards/:boardId/edges/:id',
    {
      schema: {
        tags: ['edges'],
        operationId: 'updateEdge',
        summary: "Update an edge's type and/or data (each replaced as given)",
        description:
          'A stale If-Match is 412, unless the edge already has the type and data given (a repeated update): then 200 with the edge, writing nothing.',
        params: BoardChildParams,
        headers: IfMatchHeaders,
        body: UpdateEdgeBody,
        response: { 200: withETag(Single('edge', Edge)), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const edge = await edges.update(principalOf(request), request.params, request.body, { ifMatch: ifMatchOf(request) });
      tagged(request, reply, edgeTag(edge));
      return { object: 'edge' as const, data: edge };
    },
  );

  app.delete(
    '/v1/boards/:boardId/edges/:id',
    {
      schema: {
        tags: ['edges'],
        operationId: 'deleteEdge',
        summary: 'Delete an edge (permanent)',
        description:
          'Deleting again an edge this board had that is already gone answers the same 200 and changes nothing, so a repeated delete is harmless; an id the board never had is 404.',
        params: BoardChildParams,
        headers: IfMatchHeaders,
        response: { 200: Deleted('edge'), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      await edges.delete(principalOf(request), request.params, { ifMatch: ifMatchOf(request) });
      return { object: 'edge' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
