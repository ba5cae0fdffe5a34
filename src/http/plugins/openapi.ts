// The OpenAPI document (built from the routes' schemas) and its browsable page at /docs, which is
// public, not rate limited, never framed.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../types.js';

export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    // Shared schemas keep their $id as their component name (#/components/schemas/Error).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Board workspace API',
        version: '1.0.0',
        description:
          'Boards of nodes and edges, chats with AI replies (JSON or server-sent events), assets, vectorizing jobs and semantic search, with scoped API keys or identity-provider JWTs. See docs/api.md for the conventions.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (bwk_live_…) or JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), public: true, rateLimit: false } as never;
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
    // The plugin's policy (its own scripts and styles by hash), but never framed (clickjacking) and
    // without upgrade-insecure-requests, which would send the page's own requests to https on a
    // service reached over plain http.
    staticCSP: true,
    transformStaticCSP: (header) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(/\s*upgrade-insecure-requests;?/, '')
        .trim(),
    uiHooks: {
      onRequest: async (_request, reply) => {
        reply.header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      },
    },
  });
}
