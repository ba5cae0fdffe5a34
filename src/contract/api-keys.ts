// API keys: the create body, the key as listed, and the key as created (with its raw key, once).
import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, TimestampInput, Uuid } from './common.js';
import { API_KEY_NAME_MAX_CHARS } from './limits.js';

const ScopeName = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: API_KEY_NAME_MAX_CHARS, pattern: '\\S' }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 3, uniqueItems: true }),
    expires_at: Type.Optional(Type.Union([TimestampInput, Type.Null()], { description: 'Future time after which the key is rejected' })),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

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
export type ApiKey = Static<typeof ApiKey>;
export const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ raw_key: Type.String({ description: 'The full key; shown only in this response' }) }),
]);
export type CreatedApiKey = Static<typeof CreatedApiKey>;
