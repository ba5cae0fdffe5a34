// /v1/boards: create, list, get, update, duplicate, delete.
import { Type } from '@sinclair/typebox';
import { removeStoredFiles } from '../../assets/asset-service.js';
import { createOwnBoard, deleteBoard, listBoards, readBoardJson, updateBoard } from '../../boards/board-service.js';
import { duplicateBoard } from '../../compose/duplicate-board.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { streamedText } from '../streamed-text.js';
import { Board, BoardListItem, CreateBoardBody, FullBoard, UpdateBoardBody } from '../../contract/boards.js';
import { Deleted, errorResponses, IdParams, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function boardRoutes(app: App, { db, storage, config, nodeCache }: Services): void {
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
      const board = await createOwnBoard(db, principalOf(request), request.body, config.userQuotas);
      return reply.code(201).send({ object: 'board', data: board });
    },
  );

  app.get(
    '/v1/boards',
    {
      schema: {
        tags: ['boards'],
        operationId: 'listBoards',
        summary: "List the caller's boards",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(BoardListItem), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const list = `boards:${principal.userId}`;
      const page = await listBoards(db, principal, pageRequest(list, request.query, 'desc'), list);
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
      const body = await readBoardJson(db, principalOf(request), request.params.id);
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
      data: await updateBoard({ db, nodeCache }, principalOf(request), request.params.id, request.body),
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
      const board = await duplicateBoard(db, principalOf(request), request.params.id, config.boardBounds);
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
      const files = await deleteBoard({ db, nodeCache }, principalOf(request), request.params.id);
      await removeStoredFiles(storage, files, request.log);
      return { object: 'board' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
