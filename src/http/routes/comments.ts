// /v1/boards/{boardId}/comments: a board's comment threads, their replies, resolving, unread marks
// (issue 31). Who may do what is the access rule's (src/access/board-access.ts); the work is
// src/comments/comment-service.ts.
import { Type } from '@sinclair/typebox';
import {
  Comment,
  CommentListQuery,
  CommentParams,
  CommentsRead,
  CreateCommentBody,
  MarkCommentsReadBody,
  ReadComment,
  UpdateCommentBody,
} from '../../contract/comments.js';
import { commentTag } from '../../comments/comment-service.js';
import { pageRequest } from '../../lib/pagination.js';
import { ifMatchOf, IfMatchHeaders, IfNoneMatchHeaders, NotModified, tagged, withETag } from '../conditional.js';
import { principalOf } from '../plugins/auth.js';
import { BoardParams, Deleted, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const ListQuery = Type.Object({ ...CommentListQuery.properties, ...PageQuery }, { additionalProperties: false });

export function commentRoutes(app: App, { comments }: Services): void {
  app.get(
    '/v1/boards/:boardId/comments',
    {
      schema: {
        tags: ['comments'],
        operationId: 'listComments',
        summary: "List a board's comments (anyone who may read the board)",
        description:
          'Oldest first by default (created_at, id). `thread_id`: one thread; `node_id`: the threads on a card; `resolved`: only ' +
          'resolved (true) or open (false) threads. Each comment says whether it is `unread` for the caller.',
        params: BoardParams,
        querystring: ListQuery,
        response: { 200: List(ReadComment), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId } = request.params;
      const { thread_id, node_id, resolved, ...paging } = request.query;
      const list = `comments:${boardId}:${thread_id ?? ''}:${node_id ?? ''}:${resolved ?? ''}`;
      return {
        object: 'list' as const,
        ...(await comments.list(principalOf(request), boardId, { thread_id, node_id, resolved }, pageRequest(list, paging, 'asc'), list)),
      };
    },
  );

  app.post(
    '/v1/boards/:boardId/comments',
    {
      schema: {
        tags: ['comments'],
        operationId: 'createComment',
        summary: 'Start a comment thread, or reply to one (commenters, editors, the owner)',
        description:
          'Without `thread_id`: a new thread on the card `node_id`, on the canvas point `position`, or (neither) on the board. ' +
          "With `thread_id` (a thread's first comment): a reply. `mentions` must be the board's owner or members, else 400 naming them.",
        params: BoardParams,
        body: CreateCommentBody,
        response: { 201: withETag(Single('comment', Comment)), ...errorResponses },
      },
    },
    async (request, reply) => {
      const comment = await comments.create(principalOf(request), request.params.boardId, request.body);
      tagged(request, reply, commentTag(comment));
      return reply.code(201).send({ object: 'comment', data: comment });
    },
  );

  app.post(
    '/v1/boards/:boardId/comments/read',
    {
      // Marking what one has read is reading: a viewer's read key may do it, as presence.
      config: { scope: 'read' },
      schema: {
        tags: ['comments'],
        operationId: 'markCommentsRead',
        summary: "Mark the board's comments (or one thread's) read for the caller, up to a time",
        description:
          'Comments created at or before `up_to` are no longer `unread` for the caller. A mark never moves back: an earlier ' +
          '`up_to` than the one kept changes nothing. Answers the mark as kept.',
        params: BoardParams,
        body: MarkCommentsReadBody,
        response: { 200: Single('comment_read', CommentsRead), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'comment_read' as const,
      data: await comments.markRead(principalOf(request), request.params.boardId, request.body),
    }),
  );

  app.get(
    '/v1/me/mentions',
    {
      schema: {
        tags: ['comments'],
        operationId: 'listMyMentions',
        summary: 'List the comments that mention the caller, on the boards they may read',
        description:
          'Newest first by default. Only boards the caller may read now: their own, those they are a member of, public ones; ' +
          'a person removed from a board no longer sees its mentions. Each comment says whether it is `unread` for the caller.',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(ReadComment), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const list = `mentions:${principal.userId}`;
      return { object: 'list' as const, ...(await comments.mentionsOf(principal, pageRequest(list, request.query, 'desc'), list)) };
    },
  );

  app.get(
    '/v1/boards/:boardId/comments/:commentId',
    {
      schema: {
        tags: ['comments'],
        operationId: 'getComment',
        summary: 'Get a comment',
        params: CommentParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withETag(Single('comment', ReadComment)), 304: NotModified, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { comment, tag } = await comments.get(principalOf(request), request.params);
      if (tagged(request, reply, tag)) return reply.code(304).send();
      return { object: 'comment' as const, data: comment };
    },
  );

  app.patch(
    '/v1/boards/:boardId/comments/:commentId',
    {
      schema: {
        tags: ['comments'],
        operationId: 'updateComment',
        summary: 'Edit a comment (its author), or resolve and reopen a thread (anyone who may comment)',
        description:
          '`content` and `mentions`: the author only (else 403). `resolved`: true resolves the thread, false reopens it; sent ' +
          "for a thread's first comment only. A stale If-Match is 412.",
        params: CommentParams,
        headers: IfMatchHeaders,
        body: UpdateCommentBody,
        response: { 200: withETag(Single('comment', Comment)), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { comment, tag } = await comments.update(principalOf(request), request.params, request.body, { ifMatch: ifMatchOf(request) });
      tagged(request, reply, tag);
      return { object: 'comment' as const, data: comment };
    },
  );

  app.delete(
    '/v1/boards/:boardId/comments/:commentId',
    {
      schema: {
        tags: ['comments'],
        operationId: 'deleteComment',
        summary: "Delete a comment (its author, or the board's owner); a thread's first comment takes its replies along",
        params: CommentParams,
        headers: IfMatchHeaders,
        response: { 200: Deleted('comment'), 412: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      await comments.remove(principalOf(request), request.params, { ifMatch: ifMatchOf(request) });
      return { object: 'comment' as const, data: { id: request.params.commentId, deleted: true as const } };
    },
  );
}
