// Rate limits per principal (one API key, or one user's JWTs) in a fixed one-minute window, with
// @fastify/rate-limit. Counters live in memory, or in Redis when REDIS_URL is set so that every
// instance shares them. Runs after authentication (a route-level onRequest hook follows the global
// auth hook), so anonymous and rejected requests are never counted.
//
// API-key requests are also counted per user, over all of the user's keys together
// (RATE_LIMIT_USER_PER_MINUTE): otherwise every new key would bring another full budget. The
// RateLimit-* headers describe whichever of the two budgets has less left.
//
// A request that carries several (a batch of MCP tool calls) counts the ones beyond the first
// through `app.countMoreRequests`, against the same budgets in the same store.
//
// When Redis is unreachable the service fails open: requests are served without a limit and the
// outage is logged once, because refusing all traffic over a missing counter store would turn a
// cache outage into a full outage.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts `extra` more requests of this request's caller against the budgets its own request
     * counted against (the key's or the JWT user's, and an API key's user's across keys), for a
     * request that carries several; `why` says so in the 429 message. Throws 429 `rate_limited` at
     * the first budget that runs out, and sets the RateLimit-* headers to what is left.
     */
    countMoreRequests(request: FastifyRequest, reply: FastifyReply, extra: number, why: string): Promise<void>;
  }
}

export interface RateLimitHandle {
  close(): void;
}

/** ioredis is loaded only when REDIS_URL is set (otherwise about 0.2 s of CPU and 7 MiB at every start). */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    // Fail fast while disconnected (no queue) or when Redis hangs, so a request never waits on it.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    app.log.warn({ err: error }, 'rate-limit store (Redis) unreachable; serving without rate limits until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    app.log.info('rate-limit store (Redis) reachable again; rate limits apply');
  });
  return redis;
}

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<RateLimitHandle> {
  const redis = config.redisUrl ? await connectRedis(app, config.redisUrl) : undefined;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    // Headers RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (and Retry-After on 429).
    enableDraftSpec: true,
    timeWindow: 60_000,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'bwk-rl:' } : { cache: 100_000 }),
    keyGenerator: (request) => {
      const p = request.principal;
      return p ? (p.kind === 'api_key' ? `key:${p.keyId}` : `user:${p.userId}`) : `ip:${request.ip}`;
    },
    max: (request) => (request.principal?.kind === 'api_key' ? config.rateLimitApiKeyPerMinute : config.rateLimitJwtPerMinute),
    allowList: (request) => request.principal === undefined,
    // Thrown by the plugin and rendered by our error handler, so the 429 body is the error envelope.
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`),
  });
  const userLimit = registerUserLimit(app, config);
  registerCountMore(app, userLimit);
  return { close: () => redis?.disconnect() };
}

interface UserLimit {
  max: number;
  remaining: number;
  ttlInSeconds: number;
}

/**
 * The per-user budget of API-key requests: a second counter in the same store (keyed `keys:<user>`,
 * apart from the JWT counter `user:<user>`), checked before the key's own; over it is 429 like any
 * limit. Routes without a rate limit (public ones) are not counted.
 */
function registerUserLimit(app: FastifyInstance, config: Config): UserBudget {
  const userLimits = new WeakMap<FastifyRequest, UserLimit>();
  const check = app.createRateLimit({
    keyGenerator: (request) => `keys:${request.principal?.userId}`,
    max: config.rateLimitUserPerMinute,
    allowList: (request) => request.principal?.kind !== 'api_key',
  });
  /** Counts one request against its user's budget; over it, 429 (`why`: a request that carries several). */
  const count = async (request: FastifyRequest, reply: FastifyReply, why?: string): Promise<void> => {
    const result = await check(request);
    if (result.isAllowed || result.max === undefined) return;
    const limit = { max: result.max, remaining: result.remaining ?? 0, ttlInSeconds: result.ttlInSeconds ?? 0 };
    if (!result.isExceeded) {
      userLimits.set(request, limit);
      return;
    }
    reply.header('ratelimit-limit', limit.max).header('ratelimit-remaining', 0).header('ratelimit-reset', limit.ttlInSeconds);
    throw new ApiError(
      'rate_limited',
      `Rate limit of ${limit.max} requests per minute across all of this user's API keys exceeded${why ? ` (${why})` : ''}; retry in ${limit.ttlInSeconds} seconds`,
      { 'Retry-After': String(limit.ttlInSeconds) },
    );
  };
  app.addHook('onRequest', async (request, reply) => {
    // Routes without a limit, and routes with a budget of their own (presence), are not counted here.
    const own = request.routeOptions.config?.rateLimit;
    if (request.principal?.kind !== 'api_key' || own === false || typeof own === 'object') return;
    await count(request, reply);
  });
  // The key's own hook set its headers; the user's budget wins when less of it is left.
  const showLeast = (request: FastifyRequest, reply: FastifyReply) => {
    const limit = userLimits.get(request);
    const keyRemaining = Number(reply.getHeader('ratelimit-remaining'));
    if (limit && (Number.isNaN(keyRemaining) || limit.remaining < keyRemaining)) {
      reply
        .header('ratelimit-limit', limit.max)
        .header('ratelimit-remaining', limit.remaining)
        .header('ratelimit-reset', limit.ttlInSeconds);
    }
  };
  app.addHook('onSend', async (request, reply, payload) => {
    showLeast(request, reply);
    return payload;
  });
  return {
    count,
    showLeast,
  };
}

interface UserBudget {
  /** Counts one more request against the user's budget of API-key requests; over it, 429. */
  count(request: FastifyRequest, reply: FastifyReply, why?: string): Promise<void>;
  /** Shows the user's budget in the RateLimit-* headers when less of it is left than of the key's. */
  showLeast(request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * `app.countMoreRequests`: the same counters as the hooks above (the plugin's own store, through
 * `createRateLimit()` without options, which keeps its key, budget and window), one increment per
 * request counted, as a refused REST request also counts.
 */
function registerCountMore(app: FastifyInstance, userBudget: UserBudget): void {
  const ownBudget = app.createRateLimit();
  app.decorate('countMoreRequests', async (request: FastifyRequest, reply: FastifyReply, extra: number, why: string) => {
    const route = request.routeOptions.config?.rateLimit;
    if (!request.principal || route === false || typeof route === 'object') return;
    for (let i = 0; i < extra; i++) {
      if (request.principal.kind === 'api_key') await userBudget.count(request, reply, why);
      const own = await ownBudget(request);
      if (own.isAllowed || own.max === undefined) return;
      const ttl = own.ttlInSeconds ?? 0;
      reply
        .header('ratelimit-limit', own.max)
        .header('ratelimit-remaining', own.remaining ?? 0)
        .header('ratelimit-reset', ttl);
      if (own.isExceeded) {
        throw new ApiError('rate_limited', `Rate limit of ${own.max} requests per minute exceeded (${why}); retry in ${ttl} seconds`, {
          'Retry-After': String(ttl),
        });
      }
    }
    userBudget.showLeast(request, reply);
  });
}
