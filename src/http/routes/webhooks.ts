// /v1/webhooks (scope admin): create (the signing secret is shown once), list, read, delete, and a
// webhook's deliveries. How deliveries are signed and sent: src/webhooks/.
import { Type } from '@sinclair/typebox';
import { CreatedWebhook, CreateWebhookBody, Webhook, WebhookDelivery } from '../../contract/webhooks.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { Deleted, errorResponses, IdParams, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

const createDescription = (max: number) => `Sends the caller's board events to \`url\` as they commit, following the Standard Webhooks
specification: a JSON body \`{"type", "timestamp", "data"}\` whose \`data\` is the event as the event stream sends it,
and the headers \`webhook-id\` (the same on every attempt), \`webhook-timestamp\` and \`webhook-signature\`
(\`v1,\` and the base64 HMAC-SHA256 of \`id.timestamp.body\` keyed with the base64-decoded part of \`secret\` after \`whsec_\`).
Without \`board_id\`, the events of every board the caller owns; with it, that board's events (a board the caller
may read: its owner's events about assets only reach its owner). Each webhook gets its events in order; a failed
delivery is retried for about a day (WEBHOOK_RETRY_SCHEDULE), holding the later ones back, and then the webhook is
disabled, as it is at once when the endpoint answers 410. A user may have at most ${max} webhooks (WEBHOOKS_MAX_PER_USER):
one more is 409 conflict.`;

export function webhookRoutes(app: App, { webhooks, config }: Services): void {
  const admin = { scope: 'admin' as const };

  app.post(
    '/v1/webhooks',
    {
      config: admin,
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Create a webhook (the signing secret is shown once)',
        description: createDescription(config.webhooks.maxPerUser),
        body: CreateWebhookBody,
        response: { 201: Single('webhook', CreatedWebhook), ...errorResponses, 409: Type.Ref('Error') },
      },
    },
    async (request, reply) => {
      const webhook = await webhooks.create(principalOf(request), request.body);
      return reply.code(201).send({ object: 'webhook', data: webhook });
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: admin,
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        summary: "List the caller's webhooks",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(Webhook), ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = principalOf(request);
      const list = `webhooks:${userId}`;
      return { object: 'list' as const, ...(await webhooks.list(userId, pageRequest(list, request.query, 'desc'), list)) };
    },
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: admin,
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        params: IdParams,
        response: { 200: Single('webhook', Webhook), ...errorResponses },
      },
    },
    async (request) => ({ object: 'webhook' as const, data: await webhooks.get(principalOf(request).userId, request.params.id) }),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: admin,
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook (its pending deliveries are not sent)',
        params: IdParams,
        response: { 200: Deleted('webhook'), ...errorResponses },
      },
    },
    async (request) => {
      await webhooks.delete(principalOf(request).userId, request.params.id);
      return { object: 'webhook' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: admin,
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook's deliveries, newest first",
        params: IdParams,
        querystring: Type.Object(
          {
            limit: PageQuery.limit,
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Opaque cursor from the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: List(WebhookDelivery), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'list' as const,
      ...(await webhooks.listDeliveries(principalOf(request).userId, request.params.id, request.query)),
    }),
  );
}
