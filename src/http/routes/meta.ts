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
      schema: { tags: ['meta'], summary: 'This OpenAPI 3.1 document', security: [] },
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
        summary: 'Liveness of the HTTP server (does not touch the database)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
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
        summary: 'Liveness and database reachability',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: Type.Ref('Error') },
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
