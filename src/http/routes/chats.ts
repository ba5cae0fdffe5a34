// /v1/boards/{boardId}/chats and their messages: chats private to their creator, and the assistant
// reply to a user message as one JSON answer (201) or a text/event-stream (section 6 events).
import { Type } from '@sinclair/typebox';
import { SseWriter } from '../../lib/sse.js';
import { ApiError } from '../../errors.js';
import { ProviderError } from '../../providers/provider-error.js';
import { toApiError } from '../plugins/errors.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { spendIdempotencyKey } from '../plugins/idempotency.js';
import { Chat, ChatListItem, CreateChatBody, Message, PostMessageBody, UpdateChatBody } from '../../contract/chats.js';
import { Uuid } from '../../contract/common.js';
import { BoardParams, Deleted, errorResponses, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const ChatParams = Type.Object({ boardId: Uuid, chatId: Uuid });
const streamDescription =
  'With stream true: 200 text/event-stream of `message.delta` {content}, then `message.complete` {message (with its metadata: sources, citations), usage}; ' +
  'a failure is an `error` event {code: "stream_error", message}. Comment lines keep the connection alive.';

export function chatRoutes(app: App, services: Services): void {
  const { db, config, chats } = services;

  app.post(
    '/v1/boards/:boardId/chats',
    {
      schema: {
        tags: ['chats'],
        operationId: 'createChat',
        summary: 'Create a chat (private to its creator)',
        params: BoardParams,
        body: CreateChatBody,
        response: { 201: Single('chat', Chat), ...errorResponses },
      },
    },
    async (request, reply) => {
      const chat = await chats.create(principalOf(request), request.params.boardId, request.body ?? {});
      return reply.code(201).send({ object: 'chat', data: chat });
    },
  );

  app.get(
    '/v1/boards/:boardId/chats',
    {
      schema: {
        tags: ['chats'],
        operationId: 'listChats',
        summary: "List the caller's chats on a board",
        params: BoardParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(ChatListItem), ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const list = `chats:${request.params.boardId}:${principal.userId}`;
      const page = await chats.list(principal, request.params.boardId, pageRequest(list, request.query, 'desc'), list);
      return { object: 'list' as const, ...page };
    },
  );

  app.get(
    '/v1/boards/:boardId/chats/:chatId',
    {
      schema: {
        tags: ['chats'],
        operationId: 'getChat',
        summary: 'Get a chat with its memory and metadata',
        params: ChatParams,
        response: { 200: Single('chat', Chat), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'chat' as const,
      data: await chats.get(principalOf(request), request.params.boardId, request.params.chatId),
    }),
  );

  app.patch(
    '/v1/boards/:boardId/chats/:chatId',
    {
      schema: {
        tags: ['chats'],
        operationId: 'updateChat',
        summary: 'Rename a chat',
        params: ChatParams,
        body: UpdateChatBody,
        response: { 200: Single('chat', Chat), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'chat' as const,
      data: await chats.rename(principalOf(request), request.params.boardId, request.params.chatId, request.body.title),
    }),
  );

  app.delete(
    '/v1/boards/:boardId/chats/:chatId',
    {
      schema: {
        tags: ['chats'],
        operationId: 'deleteChat',
        summary: 'Delete a chat and all its messages',
        params: ChatParams,
        response: { 200: Deleted('chat'), ...errorResponses },
      },
    },
    async (request) => {
      await chats.delete(principalOf(request), request.params.boardId, request.params.chatId);
      return { object: 'chat' as const, data: { id: request.params.chatId, deleted: true as const } };
    },
  );

  app.get(
    '/v1/boards/:boardId/chats/:chatId/messages',
    {
      schema: {
        tags: ['chats'],
        operationId: 'listMessages',
        summary: "List a chat's messages (oldest first by default)",
        params: ChatParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(Message), ...errorResponses },
      },
    },
    async (request) => {
      const { boardId, chatId } = request.params;
      const list = `messages:${chatId}`;
      const page = await chats.listMessages(principalOf(request), boardId, chatId, pageRequest(list, request.query, 'asc'), list);
      return { object: 'list' as const, ...page };
    },
  );

  app.post(
    '/v1/boards/:boardId/chats/:chatId/messages',
    {
      schema: {
        tags: ['chats'],
        operationId: 'sendMessage',
        summary: 'Send a user message and get the assistant reply',
        description: streamDescription,
        params: ChatParams,
        body: PostMessageBody,
        response: {
          201: Single('message', Message),
          // Written to the raw response (hijacked): documented here, never serialised by Fastify.
          200: Type.Unsafe<never>({ description: streamDescription, content: { 'text/event-stream': { schema: { type: 'string' } } } }),
          409: Type.Ref('Error'),
          502: Type.Ref('Error'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { boardId, chatId } = request.params;
      const { content, stream, node_ids: nodeIds } = request.body;
      const pending = await chats.startReply(principalOf(request), boardId, chatId, content, nodeIds);
      // A client that goes away cancels generation at once (the SDK gets the signal).
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort(new Error('client closed the connection'));
      });

      if (!stream) {
        const done = await chats.generateReply(pending, abort.signal, () => {});
        return reply.code(201).send({ object: 'message', data: done.message });
      }

      // Streamed: the reply is written to the raw response; the rate-limit headers set so far go along.
      await spendIdempotencyKey(db, request, 200);
      reply.hijack();
      const sse = new SseWriter(reply.raw, reply.getHeaders() as Record<string, string>, config.sseKeepAliveMs);
      try {
        const done = await chats.generateReply(pending, abort.signal, (delta) => sse.event('message.delta', { content: delta }));
        const { id, role, content: text, model: modelId, created_at, metadata } = done.message;
        sse.event('message.complete', {
          // The metadata (sources, citations) arrives here, once the reply is whole.
          message: { id, role, content: text, model: modelId, created_at: created_at.toISOString(), metadata },
          usage: done.usage,
        });
      } catch (error) {
        if (!abort.signal.aborted) {
          const known = error instanceof ApiError || (error instanceof ProviderError && error.shown) ? toApiError(error) : undefined;
          if (!known) request.log.error({ err: error }, 'streamed reply failed');
          const message = known ? known.message : 'The reply failed';
          sse.event('error', { code: 'stream_error', message });
        }
      } finally {
        sse.end();
      }
    },
  );
}
