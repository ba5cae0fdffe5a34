// The application factory: builds the Fastify app with its plugins and routes, without listening.
// Tests and the server entry point both use it.
import Fastify, { LogController } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Authenticator } from './auth/authenticator.js';
import { createSignIn } from './accounts/sign-in.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { ChunkPurger } from './documents/chunk-purge.js';
import { queueStaleBoards } from './documents/reembed.js';
import { ApiError } from './errors.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerFairShare, registerFairShareOfUsers } from './http/plugins/fair-share.js';
import { clientErrorHandler, registerErrorHandling, sendError, toApiError } from './http/plugins/errors.js';
import { registerIdempotency, sweepIdempotencyKeys } from './http/plugins/idempotency.js';
import { registerOpenApi } from './http/plugins/openapi.js';
import { registerRateLimit } from './http/plugins/rate-limit.js';
import { registerWebApp } from './http/plugins/web-app.js';
import { ErrorEnvelope } from './contract/errors.js';
import type { App, Services } from './http/types.js';
import { addSharedSchema, validatorCompiler } from './http/validation.js';
import { jsonBodyParser } from './http/json-body.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { Background } from './jobs/background.js';
import { announcerOf } from './events/announcer.js';
import { BoardEventHub } from './events/event-hub.js';
import { Foreground } from './jobs/foreground.js';
import { HeavyWork } from './lib/heavy-work.js';
import { JobWorker, releaseInterruptedJobs } from './jobs/worker.js';
import type { JobDeps } from './modules/app-module.js';
import { appModules } from './modules/modules.js';
import { buildDomainServices, type ServiceBase } from './modules/services.js';
import { NodeReadCache } from './nodes/node-cache.js';
import { BoardListCache } from './boards/list-cache.js';
import { commitsPending, onCommitted } from './events/committed.js';
import { BoardVersions } from './boards/board-versions.js';
import { createEmbedder } from './providers/embeddings/create-embedder.js';
import { createChatModel } from './providers/llm/create-chat-model.js';
import { createStorage } from './providers/storage/create-storage.js';

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
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  // Embedded-only behaviour is switched here and only here, from the database handle's one flag:
  // only the embedded database guarantees this process is the data's only user (DATA_DIR is
  // locked) and that requests and background work share one connection.
  const embedded = database.embedded;

  // Local accounts or an OpenID Connect provider, and the JWT verifier over every token source.
  const signIn = await createSignIn(database.db, config, app.log);
  // Per-app state, never module-level: two apps in one process share none of it.
  const foreground = new Foreground(embedded);
  const base: ServiceBase = {
    config,
    db: database.db,
    signIn,
    authenticator: new Authenticator(database.db, signIn.verifier, embedded),
    storage: await createStorage(config),
    embedder: createEmbedder(config),
    chatModel: await createChatModel(config),
    foreground,
    purger: new ChunkPurger(database.db, foreground, app.log),
    ...(embedded ? { nodeCache: new NodeReadCache() } : {}),
    boardVersions: new BoardVersions(database.db),
    ...(config.boardListCacheBytes > 0
      ? { listCache: new BoardListCache(config.boardListCacheBytes, (board) => commitsPending(database.db, board)) }
      : {}),
    background: new Background(app.log),
    heavyWork: new HeavyWork(config.heavyWork, () => database.fairPool.markHeavy()),
    events: new BoardEventHub(database.db, database.notifications),
    notifications: database.notifications,
    log: app.log,
  };
  const deps: JobDeps = { ...base, ...buildDomainServices(base) };
  const jobs = new JobWorker(
    database.db,
    Object.assign({}, ...appModules.map((module) => module.jobs?.(deps) ?? {})),
    {
      leaseSeconds: config.jobLeaseSeconds,
      maxAttempts: config.jobMaxAttempts,
      pollMs: config.jobPollMs,
      concurrency: config.jobConcurrency,
    },
    app.log,
  );
  const services: Services = { ...deps, jobs };
  const { listCache } = base;
  if (listCache) {
    // The kept pages follow this instance's own changes (list-cache.ts).
    const stop = onCommitted(database.db, (boardId, committed) => listCache.apply(boardId, committed));
    app.addHook('onClose', async () => stop());
  }
  for (const module of appModules) await module.prepare?.(services);
  // Only this process uses an embedded database: re-embed every board the model change left behind,
  // and resume at once the jobs a crash interrupted (no other worker can hold their leases).
  if (embedded) {
    await queueStaleBoards(database.db, services.embedder.model);
    const resumed = await releaseInterruptedJobs(database.db);
    if (resumed > 0) app.log.info({ jobs: resumed }, 'jobs interrupted by a crash resume now');
  }

  app.setValidatorCompiler(validatorCompiler);
  addSharedSchema(ErrorEnvelope);
  app.addSchema(ErrorEnvelope);

  // An empty JSON body is "no body" (POST …/duplicate sends none), anything else must be JSON in
  // UTF-8, its text well-formed Unicode (src/http/json-body.ts).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonBodyParser(app));

  // Background jobs step aside for requests in flight (src/jobs/foreground.ts): on the embedded
  // database they share one connection.
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
  // A request in flight when closing began kept its connection open for keep-alive; closing only
  // ends the connections idle at that moment, so end this one once its answer is out. Otherwise
  // the close waits for the client to let go or for the keep-alive timeout (72 s).
  app.addHook('onResponse', (request, _reply, done) => {
    if (closing) request.raw.socket?.end();
    done();
  });

  registerErrorHandling(app);

  await registerOpenApi(app, config.publicBaseUrl);

  // Each request a caller of the database's fair pool, by address and then by user; heavy routes
  // hold one of their user's slots of expensive work (src/http/plugins/fair-share.ts).
  registerFairShare(app, database.fairPool);
  registerAuth(app, services.authenticator);
  registerFairShareOfUsers(app, database.fairPool, services.heavyWork);

  const rateLimits = await registerRateLimit(app, config);

  registerIdempotency(app, database.db);

  for (const module of appModules) await module.routes?.(app, services);
  await registerWebApp(app, config, signIn.mode === 'oidc' ? signIn.oidc : undefined);

  await app.ready();

  // Background work, one mechanism: the job worker, each module's tasks (the chunk purger, hourly
  // sweeps of assets and refresh tokens), and the sweep of idempotency keys past their 24 hours.
  const { background } = services;
  background.add(jobs);
  for (const module of appModules) module.background?.(services);
  background.every('idempotency-key sweep', 60 * 60 * 1000, () => sweepIdempotencyKeys(database.db));
  background.start();

  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    close() {
      closed ??= (async () => {
        closing = true;
        await app.close();
        // Writers waiting for requests to finish go now: no request is left.
        foreground.release();
        await background.stop();
        await announcerOf(database.db).flush();
        rateLimits.close();
      })();
      return closed;
    },
  };
}
