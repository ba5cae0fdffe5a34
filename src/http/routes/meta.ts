// Public routes: the OpenAPI document, a liveness ping and a health check.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { ApiError } from '../../errors.js';
import type { App, Services } from '../types.js';

export function metaRoutes(app: App, { db }: Services): void {
  app.get(
    '/v1/openapi.json',
    {
      config: { public: true, rateLimit: false },
      schema: {
        tags: ['meta'],
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        security: [],
        // Any route answers a malformed request (say, a bad percent-encoding) with 400.
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI 3.1 document' }),
          400: Type.Ref('Error'),
        },
      },
    },
    async () => app.swagger(),
  );

  // Liveness without the database: answers as long as the HTTP thread is serving. Also the
  // baseline of the HTTP benchmark (bench/http.ts), being the cheapest route the app has.
  app.get(
    '/v1/ping',
    {
      config: { public: true, rateLimit: false },
      schema: {
        tags: ['meta'],
        operationId: 'ping',
        summary: 'Liveness of the HTTP server (does not touch the database)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 400: Type.Ref('Error') },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/healthz',
    {
      config: { public: true, rateLimit: false },
      schema: {
        tags: ['meta'],
        operationId: 'healthz',
        summary: 'Liveness and database reachability',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 400: Type.Ref('Error'), 503: Type.Ref('Error') },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(db);
      } catch {
        throw new ApiError('unavailable', 'The database is unreachable');
      }
      return { status: 'ok' as const };
    },
  );
}
