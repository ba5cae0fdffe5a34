// /v1/boards/{boardId}/history: a board's versions, one version as it was, naming the board as it is
// now, and restoring a version (or some of its nodes) as new changes (src/compose/history-service.ts).
import { Type } from '@sinclair/typebox';
import { Uuid } from '../../contract/common.js';
import { BoardVersion, BoardVersionContent, CreateVersionBody, RestoreBody, RestoreResult } from '../../contract/history.js';
import { pageRequest } from '../../lib/pagination.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { BoardParams, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const VersionParams = Type.Object({ boardId: Uuid, versionId: Uuid });

export function historyRoutes(app: App, services: Services): void {
  const { history } = services;
  app.get(
    '/v1/boards/:boardId/history',
    {
      schema: {
        tags: ['history'],
        operationId: 'listBoardVersions',
        summary: "List a board's versions, newest first",
        description:
          'Automatic versions (one at most every HISTORY_SNAPSHOT_INTERVAL_SECONDS while the board changes), named versions and restore ' +
          'points. Unnamed versions are kept HISTORY_RETENTION_DAYS, named ones until the board is deleted.',
        params: BoardParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(BoardVersion), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const list = `history:${boardId}`;
      const page = await history.list(principalOf(request), boardId, pageRequest(list, request.query, 'desc'), list);
      return { object: 'list' as const, ...page };
    },
  );

  app.post(
    '/v1/boards/:boardId/history',
    {
      schema: {
        tags: ['history'],
        operationId: 'nameBoardVersion',
        summary: 'Keep the board as it is now as a named version (the owner)',
        params: BoardParams,
        body: CreateVersionBody,
        response: { 201: Single('board_version', BoardVersion), ...errorResponses },
      },
    },
    async (request, reply) => {
      const version = await history.name(principalOf(request), request.params.boardId, request.body.name);
      return reply.code(201).send({ object: 'board_version', data: version });
    },
  );

  app.get(
    '/v1/boards/:boardId/history/:versionId',
    {
      config: { heavy: true },
      schema: {
        tags: ['history'],
        operationId: 'getBoardVersion',
        summary: 'Get a version: the board, its nodes and edges as they were',
        params: VersionParams,
        response: { 200: Single('board_version', BoardVersionContent), ...errorResponses },
      },
    },
    async (request) => ({ object: 'board_version' as const, data: await history.get(principalOf(request), request.params) }),
  );

  app.post(
    '/v1/boards/:boardId/history/:versionId/restore',
    {
      config: { heavy: true },
      // No body is the whole board, as `{}` is.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['history'],
        operationId: 'restoreBoardVersion',
        summary: 'Bring a version back as new changes (the whole board, or some nodes; the owner)',
        description:
          'The board is changed to the version by ordinary node and edge creates, updates and deletes in one transaction, recorded as ' +
          "the caller's events (streamed like any change). Nodes and edges come back with their old ids. The board as it was just " +
          'before is kept as a restore_point version, whose restore undoes this one. With `node_ids`, only those nodes (and the ' +
          "version's edges touching them whose other end is on the board) are restored, and nothing is deleted. The board's name and " +
          'settings are not changed. The owner only (a member of any role is 403). The body may be omitted.',
        params: VersionParams,
        body: RestoreBody,
        response: { 200: Single('board_restore', RestoreResult), 409: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      const result = await history.restore(principalOf(request), request.params, request.body.node_ids, originOf(request));
      return { object: 'board_restore' as const, data: result };
    },
  );
}
