// Members of a board and share links (issue 31): /v1/boards/{boardId}/members…,
// /v1/boards/{boardId}/share-links… and POST /v1/share-links/accept. Who may do what is the access
// rule's (src/access/board-access.ts); the work is src/boards/member-service.ts.
import { Type } from '@sinclair/typebox';
import {
  AcceptShareLinkBody,
  AddMemberBody,
  BoardMember,
  BoardRole,
  CreatedShareLink,
  CreateShareLinkBody,
  MemberParams,
  ShareLink,
  UpdateMemberBody,
} from '../../contract/members.js';
import { Uuid } from '../../contract/common.js';
import { pageRequest } from '../../lib/pagination.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { BoardChildParams, BoardParams, Deleted, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const withConflict = { ...errorResponses, 409: Type.Ref('Error') };

export function memberRoutes(app: App, { members }: Services): void {
  app.get(
    '/v1/boards/:boardId/members',
    {
      schema: {
        tags: ['members'],
        operationId: 'listBoardMembers',
        summary: "List a board's members and their roles",
        description:
          "For the board's owner and its members (anyone else who can read a public board: 403). The owner is not a member: " +
          'their role is `owner` on the board itself. Oldest first by default.',
        params: BoardParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(BoardMember), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const list = `members:${boardId}`;
      return {
        object: 'list' as const,
        ...(await members.list(principalOf(request), boardId, pageRequest(list, request.query, 'asc'), list)),
      };
    },
  );

  app.post(
    '/v1/boards/:boardId/members',
    {
      schema: {
        tags: ['members'],
        operationId: 'addBoardMember',
        summary: 'Add a member to a board (the owner)',
        description:
          'By `user_id`, or by the `email` of a local account, with a `role`: viewer (reads everything), commenter (reads, and will ' +
          'comment), editor (also changes content, uploads, vectorizes and chats). A person already a member is 409.',
        params: BoardParams,
        body: AddMemberBody,
        response: { 201: Single('board_member', BoardMember), ...withConflict },
      },
    },
    async (request, reply) => {
      const member = await members.add(principalOf(request), request.params.boardId, request.body);
      return reply.code(201).send({ object: 'board_member', data: member });
    },
  );

  app.patch(
    '/v1/boards/:boardId/members/:userId',
    {
      schema: {
        tags: ['members'],
        operationId: 'updateBoardMember',
        summary: "Change a member's role (the owner); their open event streams end at once",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: Single('board_member', BoardMember), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'board_member' as const,
      data: await members.update(principalOf(request), request.params, request.body),
    }),
  );

  app.delete(
    '/v1/boards/:boardId/members/:userId',
    {
      schema: {
        tags: ['members'],
        operationId: 'removeBoardMember',
        summary: 'Remove a member (the owner), or leave a board (the member); their open event streams end at once',
        params: MemberParams,
        response: { 200: Deleted('board_member'), ...errorResponses },
      },
    },
    async (request) => {
      await members.remove(principalOf(request), request.params);
      return { object: 'board_member' as const, data: { id: request.params.userId, deleted: true as const } };
    },
  );

  app.post(
    '/v1/boards/:boardId/share-links',
    {
      schema: {
        tags: ['members'],
        operationId: 'createShareLink',
        summary: 'Create a share link carrying a role (the owner); its token and address are shown once',
        description:
          'A signed-in person who opens the address (the web app) or sends the token to POST /v1/share-links/accept becomes a member ' +
          'with the role. Revoke the link to admit nobody more through it.',
        params: BoardParams,
        body: CreateShareLinkBody,
        response: { 201: Single('share_link', CreatedShareLink), ...errorResponses },
      },
    },
    async (request, reply) => {
      const link = await members.createLink(principalOf(request), request.params.boardId, request.body.role, originOf(request));
      return reply.code(201).send({ object: 'share_link', data: link });
    },
  );

  app.get(
    '/v1/boards/:boardId/share-links',
    {
      schema: {
        tags: ['members'],
        operationId: 'listShareLinks',
        summary: "List a board's share links, revoked ones too (the owner)",
        params: BoardParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(ShareLink), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const list = `share-links:${boardId}`;
      return {
        object: 'list' as const,
        ...(await members.listLinks(principalOf(request), boardId, pageRequest(list, request.query, 'desc'), list)),
      };
    },
  );

  app.delete(
    '/v1/boards/:boardId/share-links/:id',
    {
      schema: {
        tags: ['members'],
        operationId: 'revokeShareLink',
        summary: 'Revoke a share link (the owner): it admits nobody more; the members it admitted stay',
        params: BoardChildParams,
        response: { 200: Deleted('share_link'), ...errorResponses },
      },
    },
    async (request) => {
      await members.revokeLink(principalOf(request), request.params);
      return { object: 'share_link' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );

  app.post(
    '/v1/share-links/accept',
    {
      schema: {
        tags: ['members'],
        operationId: 'acceptShareLink',
        summary: 'Open a share link: the caller becomes a member of its board with its role',
        description:
          'A member whose role is already as high keeps it; the owner stays the owner. An unknown or revoked link is 404. ' +
          'Answers the board and the role the caller now has there.',
        body: AcceptShareLinkBody,
        response: {
          200: Single('share_link_acceptance', Type.Object({ board_id: Uuid, role: BoardRole })),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ object: 'share_link_acceptance' as const, data: await members.accept(principalOf(request), request.body.token) }),
  );
}
