// /v1/me/api-keys (scope admin): create, list, revoke.
import { Type } from '@sinclair/typebox';
import { createApiKey, listApiKeys, revokeApiKey } from '../../auth/api-key-service.js';
import { pageRequest } from '../../lib/pagination.js';
import { principalOf } from '../plugins/auth.js';
import {
  Deleted,
  errorResponses,
  IdParams,
  List,
  NullableTimestamp,
  PageQuery,
  Single,
  Timestamp,
  TimestampInput,
  Uuid,
} from '../schemas/common.js';
import type { App, Services } from '../types.js';

const ScopeName = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 3, uniqueItems: true }),
    expires_at: Type.Optional(Type.Union([TimestampInput, Type.Null()], { description: 'Future time after which the key is rejected' })),
  },
  { additionalProperties: false },
);

export const ApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  scopes: Type.Array(ScopeName),
  prefix: Type.String({ description: 'First 12 characters of the key, for display' }),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
});
const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ raw_key: Type.String({ description: 'The full key; shown only in this response' }) }),
]);

export function apiKeyRoutes(app: App, { db, config, authenticator }: Services): void {
  const admin = { scope: 'admin' as const };

  app.post(
    '/v1/me/api-keys',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        summary: 'Create an API key (the raw key is shown once)',
        description: `A user may hold at most ${config.apiKeysMaxPerUser} live keys (API_KEYS_MAX_PER_USER): one more is 409 conflict until one is revoked or expires.`,
        body: CreateApiKeyBody,
        response: { 201: Single('api_key', CreatedApiKey), ...errorResponses, 409: Type.Ref('Error') },
      },
    },
    async (request, reply) => {
      const key = await createApiKey(db, principalOf(request).userId, request.body, config.apiKeyEnv, config.apiKeysMaxPerUser);
      return reply.code(201).send({ object: 'api_key', data: key });
    },
  );

  app.get(
    '/v1/me/api-keys',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        summary: "List the caller's API keys",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: List(ApiKey), ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = principalOf(request);
      const list = `api_keys:${userId}`;
      return { object: 'list' as const, ...(await listApiKeys(db, userId, pageRequest(list, request.query, 'desc'), list)) };
    },
  );

  app.delete(
    '/v1/me/api-keys/:id',
    {
      config: admin,
      schema: {
        tags: ['api keys'],
        summary: 'Revoke an API key (effective at once)',
        params: IdParams,
        response: { 200: Deleted('api_key'), ...errorResponses },
      },
    },
    async (request) => {
      await revokeApiKey(db, principalOf(request).userId, request.params.id);
      authenticator.forgetKey(request.params.id);
      return { object: 'api_key' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
