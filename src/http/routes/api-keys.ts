// /v1/me/api-keys (scope admin): create, list, revoke.
import { Type } from '@sinclair/typebox';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import { ApiKey, CreateApiKeyBody, CreatedApiKey } from '../../contract/api-keys.js';
import { Deleted, errorResponses, IdParams, List, PageQuery, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function apiKeyRoutes(app: App, { apiKeys, authenticator, config }: Services): void {
  const admin = { scope: 'admin' as const };

  app.post(
    '/v1/me/api-keys',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key (the raw key is shown once)',
        description: `A user may hold at most ${config.apiKeysMaxPerUser} live keys (API_KEYS_MAX_PER_USER): one more is 409 conflict until one is revoked or expires.
A key made with an API key must not outlive it: without \`expires_at\` it takes that key's expiry, and a later one (or \`null\`,
never) is 400; nor may it hold a scope that key lacks (403). Made with a signed-in session (JWT), a key may expire when it likes.`,
        body: CreateApiKeyBody,
        response: { 201: Single('api_key', CreatedApiKey), ...errorResponses, 409: Type.Ref('Error') },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const key = await apiKeys.create(principal.userId, request.body, principal);
      return reply.code(201).send({ object: 'api_key', data: key });
    },
  );

  app.get(
    '/v1/me/api-keys',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        operationId: 'listApiKeys',
        summary: "List the caller's API keys",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(ApiKey), ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = principalOf(request);
      const list = `api_keys:${userId}`;
      return { object: 'list' as const, ...(await apiKeys.list(userId, pageRequest(list, request.query, 'desc'), list)) };
    },
  );

  app.delete(
    '/v1/me/api-keys/:id',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (effective at once)',
        params: IdParams,
        response: { 200: Deleted('api_key'), ...errorResponses },
      },
    },
    async (request) => {
      await apiKeys.revoke(principalOf(request).userId, request.params.id);
      authenticator.forgetKey(request.params.id);
      return { object: 'api_key' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
