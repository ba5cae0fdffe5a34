// The OpenAPI document (built from the routes' schemas) and its browsable page at /docs, which is
// public, not rate limited, never framed.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema } from 'fastify';
import type { App } from '../types.js';

/** A wildcard route (`/v1/files/*`) as OpenAPI can say it: a path parameter named `path`. */
function namedWildcard({ schema, url }: { schema: FastifySchema; url: string }) {
  if (!url.endsWith('*')) return { schema, url };
  const params = schema.params as { properties: Record<string, unknown>; required?: string[] } | undefined;
  const properties = { ...params?.properties };
  properties.path = properties['*'];
  delete properties['*'];
  return {
    schema: { ...schema, params: { ...params, properties, required: ['path'] } },
    url: `${url.slice(0, -1)}{path}`,
  };
}

/** `publicBaseUrl`: the service's address, the document's server; unset, the document is served relative to where it was fetched. */
export async function registerOpenApi(app: App, publicBaseUrl: string | undefined): Promise<void> {
  await app.register(swagger, {
    transform: namedWildcard,
    // Shared schemas keep their $id as their component name (#/components/schemas/Error).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Board workspace API',
        version: '1.0.0',
        description:
          'Boards of nodes and edges, chats with AI replies (JSON or server-sent events), assets, vectorizing jobs and semantic search, a live change log per board, with scoped API keys or identity-provider JWTs. See docs/api.md for the conventions.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Board workspace maintainers' },
      },
      servers: [
        {
          url: publicBaseUrl ?? '/',
          description: publicBaseUrl ? 'This service' : 'This service (relative to where the document was fetched)',
        },
      ],
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
