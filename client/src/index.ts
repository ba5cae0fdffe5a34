// A typed client for the board workspace API: openapi-fetch over the types generated from the
// service's OpenAPI document (schema.ts), so every path, parameter, body and response is checked
// by the TypeScript compiler against the API the service actually serves.
//
//   import { createBoardClient } from '@board-workspace/client';
//   const api = createBoardClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.BWK_KEY });
//   const { data, error } = await api.GET('/v1/boards/{boardId}', { params: { path: { boardId } } });
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';
/** Every named schema of the API (Board, Node, Edge, Chat, Message, Job, Error, …). */
export type Schemas = components['schemas'];
/** The error envelope every failed request answers with. */
export type ApiErrorBody = Schemas['Error'];
export type BoardClient = Client<paths>;

export interface BoardClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's origin, e.g. http://127.0.0.1:8080 (no trailing /v1). Empty for same-origin. */
  baseUrl?: string;
  /** A fixed bearer token (API key or JWT)… */
  token?: string;
  /** …or a function asked before every request (for short-lived JWTs). */
  getToken?: () => string | undefined | Promise<string | undefined>;
}

export function createBoardClient(options: BoardClientOptions = {}): BoardClient {
  const { token, getToken, baseUrl = '', ...rest } = options;
  const client = createClient<paths>({ baseUrl, ...rest });
  const auth: Middleware = {
    async onRequest({ request }) {
      const bearer = token ?? (await getToken?.());
      if (bearer && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${bearer}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** The error envelope's message, for showing to a person, from any failed call's `error`. */
export function errorMessage(error: unknown, fallback = 'The request failed'): string {
  const body = error as Partial<ApiErrorBody> | undefined;
  return typeof body?.message === 'string' && body.object === 'error' ? body.message : fallback;
}
