// The application factory: builds the Fastify app with its plugins and routes, without listening.
// Tests and the server entry point both use it.
import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Authenticator } from './auth/authenticator.js';
import { createSignIn } from './accounts/sign-in.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { ApiError } from './errors.js';
import { registerAuth } from './http/plugins/auth.js';
import { clientErrorHandler, registerErrorHandling, sendError, toApiError } from './http/plugins/errors.js';
import { registerIdempotency, sweepIdempotencyKeys } from './http/plugins/idempotency.js';
import { registerRateLimit } from './http/plugins/rate-limit.js';
import { apiKeyRoutes } from './http/routes/api-keys.js';
import { authRoutes } from './http/routes/auth.js';
import { meRoutes } from './http/routes/me.js';
import { registerWebApp } from './http/plugins/web-app.js';
import { boardRoutes } from './http/routes/boards.js';
import { chatRoutes } from './http/routes/chats.js';
import { edgeRoutes } from './http/routes/edges.js';
import { metaRoutes } from './http/routes/meta.js';
import { nodeRoutes } from './http/routes/nodes.js';
import { assetRoutes } from './http/routes/assets.js';
import { sweepAssetFiles } from './assets/asset-service.js';
import { createStorage } from './providers/storage/storage.js';
import { documentRoutes } from './http/routes/documents.js';
import { jobRoutes } from './http/routes/jobs.js';
import { ensureChunkIndex } from './documents/chunk-index.js';
import { DOCUMENT_JOB } from './documents/document-service.js';
import { documentJobHandler } from './documents/process-document.js';
import { ChunkPurger } from './documents/chunk-purge.js';
import { queueStaleBoards, REEMBED_JOB, reembedJobHandler } from './documents/reembed.js';
import { foreground } from './jobs/foreground.js';
import { JobWorker } from './jobs/worker.js';
import { createEmbedder } from './providers/embeddings/embedder.js';
import { ErrorEnvelope } from './http/schemas/common.js';
import { enableNodeReadCache } from './nodes/node-cache.js';
import type { App, Services } from './http/types.js';
import { addSharedSchema, validatorCompiler } from './http/validation.js';

export interface BuiltApp {
  app: App;
  services: Services;
  /** Stops accepting requests, waits for in-flight ones, then releases background resources. */
  close(): Promise<void>;
}

export async function buildApp(config: Config, database: DatabaseHandle): Promise<BuiltApp> {
  const app = Fastify({
    logger: { level: config.logLevel },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Behind a reverse proxy: the client's address (rate limits), scheme and host (asset urls, the
    // refresh cookie's Secure flag, the sign-in Origin check) come from X-Forwarded-* of trusted peers.
    trustProxy: config.trustProxy,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A client that trickles a request for over two minutes is cut off.
    requestTimeout: 120_000,
    genReqId: () => crypto.randomUUID(),
    // Malformed HTTP and oversized headers (before any request exists) get the envelope too.
    clientErrorHandler,
    // Errors raised before routing (a malformed URL) get the envelope too.
    frameworkErrors: (error, _request, reply) => void sendError(reply, toApiError(error)),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  // Local accounts or an OpenID Connect provider, and the JWT verifier over every token source.
  const signIn = await createSignIn(database.db, config, app.log);
  const authenticator = new Authenticator(database.db, signIn.verifier, database.embedded);
  // Only the embedded database guarantees this process is the only writer (see node-cache.ts).
  if (database.embedded) enableNodeReadCache(database.db);
  const storage = await createStorage(config);
  const embedder = createEmbedder(config);
  await ensureChunkIndex(database.db, embedder);
  // Only this process uses an embedded database: re-embed every board the model change left behind.
  if (database.embedded) await queueStaleBoards(database.db, embedder.model);
  const jobHandlers = {
    [DOCUMENT_JOB]: documentJobHandler({
      db: database.db,
      embedder,
      storage,
      chunking: { size: config.chunkSize, overlap: config.chunkOverlap },
    }),
    [REEMBED_JOB]: reembedJobHandler({ db: database.db, embedder }),
  };
  const chunkPurger = new ChunkPurger(database.db, app.log);
  const jobs = new JobWorker(
    database.db,
    jobHandlers,
    {
      leaseSeconds: config.jobLeaseSeconds,
      maxAttempts: config.jobMaxAttempts,
      pollMs: config.jobPollMs,
      concurrency: config.jobConcurrency,
    },
    app.log,
  );
  const services: Services = { config, db: database.db, authenticator, embedder, jobs, storage };

  app.setValidatorCompiler(validatorCompiler);
  addSharedSchema(ErrorEnvelope);
  app.addSchema(ErrorEnvelope);

  // An empty JSON body is "no body" (POST …/duplicate sends none), anything else must be JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });

  // Background jobs step aside for requests in flight (src/jobs/foreground.ts): on the embedded
  // database they share one connection.
  foreground.enable(database.embedded);
  app.addHook('onRequest', async (_request, reply) => {
    foreground.enter();
    reply.raw.once('close', foreground.leave);
  });

  let closing = false;
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      throw new ApiError('unavailable', 'The server is shutting down', { 'Retry-After': '5' });
    }
  });

  registerErrorHandling(app);

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

  registerAuth(app, authenticator);

  const rateLimits = await registerRateLimit(app, config);

  registerIdempotency(app, database.db);

  metaRoutes(app, services);
  boardRoutes(app, services);
  nodeRoutes(app, services);
  edgeRoutes(app, services);
  apiKeyRoutes(app, services);
  documentRoutes(app, services);
  jobRoutes(app, services);
  assetRoutes(app, services);
  chatRoutes(app, services);
  meRoutes(app, services);
  await authRoutes(app, services, signIn);
  await registerWebApp(app, config, signIn.mode === 'oidc' ? signIn.oidc : undefined);

  await app.ready();

  // Housekeeping, at start and then hourly: idempotency keys past their 24 hours, and files a
  // crash left behind (no asset row, older than a few minutes).
  const sweep = () => {
    void sweepIdempotencyKeys(database.db).catch((err: unknown) => app.log.warn({ err }, 'idempotency-key sweep failed'));
    void sweepAssetFiles({ db: database.db, storage }).catch((err: unknown) => app.log.warn({ err }, 'asset sweep failed'));
    if (signIn.mode === 'local') void signIn.sessions.sweep().catch((err: unknown) => app.log.warn({ err }, 'refresh-token sweep failed'));
  };
  sweep();
  const sweepTimer = setInterval(sweep, 60 * 60 * 1000);
  sweepTimer.unref();
  jobs.start();
  chunkPurger.start();

  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(sweepTimer);
        await app.close();
        await jobs.stop();
        await chunkPurger.stop();
        rateLimits.close();
      })();
      return closed;
    },
  };
}
