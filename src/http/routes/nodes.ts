// /v1/boards/{boardId}/nodes: create, list, get, update, delete.
import { Type } from '@sinclair/typebox';
import { pageRequest } from '../../lib/pagination.js';
import { CreateNodeBody, Node, nodeTypeInput, type NodeTypeInput, UpdateNodeBody } from '../../contract/nodes.js';
import { toNodeType } from '../../nodes/node-data.js';
import { nodeTag } from '../../nodes/node-service.js';
import { sendBoardChild, sendBoardList } from '../board-lists.js';
import { followNode, followNodePage } from '../../boards/follow-changes.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { ifMatchOf, IfMatchHeaders, IfNoneMatchHeaders, NotModified, tagged, withETag } from '../conditional.js';
import { BoardChildParams, BoardParams, Deleted, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

// The schema's enum has checked the word by the time a handler reads it.
const asNodeType = (word: string) => toNodeType(word as NodeTypeInput);

const NodeListQuery = Type.Object(
  { type: Type.Optional(nodeTypeInput('Only nodes of this type (youtube is read as video)')), ...PageQuery },
  { additionalProperties: false },
);

export function nodeRoutes(app: App, services: Services): void {
  const { nodes } = services;
  app.post(
    '/v1/boards/:boardId/nodes',
    {
      schema: {
        tags: ['nodes'],
        operationId: 'createNode',
        summary: 'Create a node',
        description:
          'With a client-chosen `id`, repeating the create with the same body answers 201 with the node as it is now and writes nothing; an id used otherwise is 409.',
        params: BoardParams,
        body: CreateNodeBody,
        response: { 201: withETag(Single('node', Node)), 409: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { type, ...rest } = request.body;
      const node = await nodes.create(principalOf(request), request.params.boardId, { ...rest, type: asNodeType(type) }, originOf(request));
      tagged(request, reply, nodeTag(node));
      return reply.code(201).send({ object: 'node', data: node });
    },
  );

  app.get(
    '/v1/boards/:boardId/nodes',
    {
      // One statement reads and checks the API key (see Authenticator).
      config: { confirmsKey: true },
      schema: {
        tags: ['nodes'],
        operationId: 'listNodes',
        summary: "List a board's nodes",
        params: BoardParams,
        querystring: NodeListQuery,
        response: { 200: List(Node), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { boardId } = request.params;
      const type = request.query.type === undefined ? undefined : asNodeType(request.query.type);
      // The cursor is bound to the board and the filter, so it cannot page another list.
      const list = `nodes:${boardId}:${type ?? '*'}`;
      const page = pageRequest(list, request.query, 'desc');
      const principal = principalOf(request);
      return sendBoardList(
        services,
        reply,
        principal,
        boardId,
        list,
        page,
        () => nodes.listWithVersion(principal, boardId, { type }, page, list),
        followNodePage(list, type, page),
      );
    },
  );

  app.get(
    '/v1/boards/:boardId/nodes/:id',
    {
      // One statement reads and checks the API key (see Authenticator).
      config: { confirmsKey: true },
      schema: {
        tags: ['nodes'],
        operationId: 'getNode',
        summary: 'Get a node',
        params: BoardChildParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withETag(Single('node', Node)), 304: NotModified, ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (services.nodeCache === undefined && services.listCache !== undefined) {
        // On PostgreSQL: kept per board version like the list pages (the embedded database has its node cache).
        const { boardId, id } = request.params;
        const read = async () => {
          const { node, version } = await nodes.getWithVersion(principal, request.params);
          return { data: node, version };
        };
        return sendBoardChild(services, request, reply, principal, boardId, `node:${boardId}:${id}`, 'node', read, nodeTag, followNode(id));
      }
      const node = await nodes.get(principal, request.params);
      if (tagged(request, reply, nodeTag(node))) return reply.code(304).send();
      return { object: 'node' as const, data: node };
    },
  );

  app.patch(
    '/v1/boards/:boardId/nodes/:id',
    {
      schema: {
        tags: ['nodes'],
        operationId: 'updateNode',
        summary: 'Update a node (position, data by shallow merge, parent)',
        description:
          'A stale If-Match is 412, unless the node already has the fields given (a repeated update): then 200 with the node, writing nothing.',
        params: BoardChildParams,
        headers: IfMatchHeaders,
        body: UpdateNodeBody,
        response: { 200: withETag(Single('node', Node)), 409: Type.Ref('Error'), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const node = await nodes.update(principalOf(request), request.params, request.body, {
        ...originOf(request),
        ifMatch: ifMatchOf(request),
      });
      tagged(request, reply, nodeTag(node));
      return { object: 'node' as const, data: node };
    },
  );

  app.delete(
    '/v1/boards/:boardId/nodes/:id',
    {
      schema: {
        tags: ['nodes'],
        operationId: 'deleteNode',
        summary: 'Delete a node, its edges; its children are detached',
        description:
          'Deleting again a node this board had that is already gone answers the same 200 and changes nothing, so a repeated delete is harmless; an id the board never had is 404.',
        params: BoardChildParams,
        headers: IfMatchHeaders,
        response: { 200: Deleted('node'), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      await nodes.delete(principalOf(request), request.params, { ifMatch: ifMatchOf(request) });
      return { object: 'node' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
