// /v1/boards: create, list, get, update, duplicate, delete.
import { Type } from '@sinclair/typebox';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { streamedText } from '../streamed-text.js';
import { Board, BoardListAccess, BoardListItem, CreateBoardBody, FullBoard, UpdateBoardBody } from '../../contract/boards.js';
import { Deleted, errorResponses, IdParams, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function boardRoutes(app: App, { boards, duplicate, assets }: Services): void {
  app.post(
    '/v1/boards',
    {
      schema: {
        tags: ['boards'],
        operationId: 'createBoard',
        summary: 'Create a board',
        body: CreateBoardBody,
        response: { 201: Single('board', Board), ...errorResponses },
      },
    },
    async (request, reply) => {
      const board = await boards.create(principalOf(request), request.body);
      return reply.code(201).send({ object: 'board', data: board });
    },
  );

  app.get(
    '/v1/boards',
    {
      schema: {
        tags: ['boards'],
        operationId: 'listBoards',
        summary: "List the caller's boards and the boards shared with them",
        description:
          "The boards the caller owns and those they are a member of, each with the caller's `role`, in one order by creation time " +
          '(`order`, newest first by default); `access` keeps only owned or only shared ones. Public boards of others are not listed.',
        querystring: Type.Object({ ...PageQuery, access: Type.Optional(BoardListAccess) }, { additionalProperties: false }),
        response: { 200: List(BoardListItem), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const access = request.query.access ?? 'all';
      const list = `boards:${principal.userId}:${access}`;
      const page = await boards.list(principal, pageRequest(list, request.query, 'desc'), list, access);
      return { object: 'list' as const, ...page };
    },
  );

  app.get(
    '/v1/boards/:id',
    {
      // The owner's read is the board's full read: one of the user's slots of expensive work.
      config: { heavy: true },
      schema: {
        tags: ['boards'],
        operationId: 'getBoard',
        summary: 'Get a board (with flow_state for its owner)',
        params: IdParams,
        response: { 200: Single('board', FullBoard), ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = await boards.readJson(principalOf(request), request.params.id);
      // The lightweight view is sent whole; the owner's full read is streamed as its pages are read.
      return reply.type('application/json; charset=utf-8').send(typeof body === 'string' ? body : streamedText(body));
    },
  );

  app.patch(
    '/v1/boards/:id',
    {
      schema: {
        tags: ['boards'],
        operationId: 'updateBoard',
        summary: 'Update a board (only the given fields change)',
        params: IdParams,
        body: UpdateBoardBody,
        response: { 200: Single('board', Board), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'board' as const,
      data: await boards.update(principalOf(request), request.params.id, request.body),
    }),
  );

  app.post(
    '/v1/boards/:id/duplicate',
    {
      config: { heavy: true },
      schema: {
        tags: ['boards'],
        operationId: 'duplicateBoard',
        summary: 'Duplicate an owned or public board',
        params: IdParams,
        response: { 201: Single('board', Board), 409: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const board = await duplicate.copy(principalOf(request), request.params.id);
      return reply.code(201).send({ object: 'board', data: board });
    },
  );

  app.delete(
    '/v1/boards/:id',
    {
      schema: {
        tags: ['boards'],
        operationId: 'deleteBoard',
        summary: 'Delete a board and everything on it (irreversible)',
        params: IdParams,
        response: { 200: Deleted('board'), ...errorResponses },
      },
    },
    async (request) => {
      const files = await boards.delete(principalOf(request), request.params.id);
      await assets.removeStoredFiles(files, request.log);
      return { object: 'board' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
