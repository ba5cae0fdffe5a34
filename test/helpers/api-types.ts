// Response body types for tests, taken from the generated client (client/src/schema.ts, made by
// openapi-typescript from the OpenAPI document the service serves; test/client.test.ts fails when it
// is stale). Tests type what they read from the same document the service is checked against,
// rather than writing a second description of each resource by hand.
import type { components, paths } from '../../client/src/index.js';
import type { Citation } from '../../src/contract/chats.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R } ? R : never;

/** The JSON a route answers with: by default its success answer (200, 201 or 202). */
export type BodyOf<P extends keyof paths, M extends Method, S extends number = 200 | 201 | 202> = Json<
  Responses<P, M>[S & keyof Responses<P, M>]
>;

/** The error envelope every failed request answers with. */
export type ErrorBody = components['schemas']['Error'];

/** `{ object: 'list', data, has_more, next_cursor }` as each list route answers it. */
export type BoardList = BodyOf<'/v1/boards', 'get'>;
export type NodeList = BodyOf<'/v1/boards/{boardId}/nodes', 'get'>;
export type EdgeList = BodyOf<'/v1/boards/{boardId}/edges', 'get'>;
export type ApiKeyList = BodyOf<'/v1/me/api-keys', 'get'>;
export type DocumentList = BodyOf<'/v1/boards/{boardId}/documents', 'get'>;
export type NodeIndexList = BodyOf<'/v1/boards/{boardId}/documents/nodes', 'get'>;
export type JobList = BodyOf<'/v1/boards/{boardId}/documents/batch', 'post'>;
export type AssetList = BodyOf<'/v1/boards/{boardId}/assets', 'get'>;
export type ChatList = BodyOf<'/v1/boards/{boardId}/chats', 'get'>;
export type MessageList = BodyOf<'/v1/boards/{boardId}/chats/{chatId}/messages', 'get'>;
export type WebhookList = BodyOf<'/v1/webhooks', 'get'>;
export type WebhookDeliveryList = BodyOf<'/v1/webhooks/{id}/deliveries', 'get'>;

/** `{ object, data }` as each single-resource route answers it. */
export type BoardBody = BodyOf<'/v1/boards/{id}', 'get'>;
export type NodeBody = BodyOf<'/v1/boards/{boardId}/nodes/{id}', 'get'>;
export type EdgeBody = BodyOf<'/v1/boards/{boardId}/edges/{id}', 'get'>;
export type ChatBody = BodyOf<'/v1/boards/{boardId}/chats/{chatId}', 'get'>;
export type JobBody = BodyOf<'/v1/jobs/{id}', 'get'>;
export type AssetBody = BodyOf<'/v1/boards/{boardId}/assets', 'post'>;
export type ApiKeyCreated = BodyOf<'/v1/me/api-keys', 'post'>;
export type MessageCreated = BodyOf<'/v1/boards/{boardId}/chats/{chatId}/messages', 'post'>;
export type SearchBody = BodyOf<'/v1/boards/{boardId}/documents/search', 'post'>;
export type DuplicateBody = BodyOf<'/v1/boards/{id}/duplicate', 'post'>;
export type WebhookBody = BodyOf<'/v1/webhooks/{id}', 'get'>;
export type WebhookCreated = BodyOf<'/v1/webhooks', 'post'>;

export type Board = BoardBody['data'];
export type Node = NodeBody['data'];
export type Edge = EdgeBody['data'];
export type Chat = ChatBody['data'];
export type Job = JobBody['data'];
export type Asset = AssetBody['data'];
export type ApiKey = ApiKeyList['data'][number];
export type Message = MessageList['data'][number];
export type DocumentChunk = DocumentList['data'][number];
export type Webhook = WebhookBody['data'];
export type WebhookDelivery = WebhookDeliveryList['data'][number];

/** A node's creation request, as POST /v1/boards/{boardId}/nodes takes it. */
export type NodeInput = NonNullable<paths['/v1/boards/{boardId}/nodes']['post']['requestBody']>['content']['application/json'];
/** An edge's creation request, as POST /v1/boards/{boardId}/edges takes it. */
export type EdgeInput = NonNullable<paths['/v1/boards/{boardId}/edges']['post']['requestBody']>['content']['application/json'];

/** The deletion envelope `{ object, data: { id, deleted: true } }` of any DELETE route. */
export type Deleted =
  | BodyOf<'/v1/boards/{id}', 'delete'>
  | BodyOf<'/v1/boards/{boardId}/nodes/{id}', 'delete'>
  | BodyOf<'/v1/boards/{boardId}/edges/{id}', 'delete'>
  | BodyOf<'/v1/boards/{boardId}/chats/{chatId}', 'delete'>
  | BodyOf<'/v1/boards/{boardId}/assets/{id}', 'delete'>
  | BodyOf<'/v1/me/api-keys/{id}', 'delete'>
  | BodyOf<'/v1/webhooks/{id}', 'delete'>;

/**
 * An assistant message's metadata as the reply service writes it (the contract leaves `metadata`
 * open, `{ [key]: unknown } | null`): usage, finish_reason, the chunk ids it drew on, retrieval.
 */
export type ReplyMetadata = {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  finish_reason: string;
  sources: string[];
  /** Aligned with sources: the marker `[n]` in the content cites citations[n - 1]. */
  citations: Citation[];
  retrieval: 'ok' | 'unavailable';
};

/** GET /healthz's answer. */
export type HealthBody = BodyOf<'/healthz', 'get'>;

/**
 * A JSON schema as the OpenAPI document carries it (made by TypeBox): the keywords the tests read.
 * The generated client does not type the document itself (GET /v1/openapi.json has no schema).
 */
export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** One operation of the OpenAPI document, as far as the tests read it. */
export interface OpenApiOperation {
  security?: unknown[];
  parameters?: { name: string; in: string; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema } | undefined> };
  responses?: Record<string, { description?: string; headers?: Record<string, { schema?: JsonSchema }> } | undefined>;
}

/** GET /v1/openapi.json's answer, as far as the tests read it: each path's operations by method. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** GET /v1/auth/config's answer: local accounts or an OpenID Connect provider. */
export type AuthConfigBody = BodyOf<'/v1/auth/config', 'get'>;
/** GET /v1/me's answer. */
export type MeBody = BodyOf<'/v1/me', 'get'>;
/** GET /v1/me/usage's answer. */
export type UsageBody = BodyOf<'/v1/me/usage', 'get'>;
