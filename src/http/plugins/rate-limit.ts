// Rate limits per principal (one API key, or one user's JWTs) in a fixed one-minute window, with
// @fastify/rate-limit. Counters live in memory, or in Redis when REDIS_URL is set so that every
// instance shares them. Runs after authentication (a route-level onRequest hook follows the global
// auth hook), so anonymous and rejected requests are never counted.
//
// When Redis is unreachable the service fails open: requests are served without a limit and the
// outage is logged once, because refusing all traffic over a missing counter store would turn a
// cache outage into a full outage.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';

export interface RateLimitHandle {
  close(): void;
}

function connectRedis(app: FastifyInstance, url: string): Redis {
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
  const redis = config.redisUrl ? connectRedis(app, config.redisUrl) : undefined;
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
  return { close: () => redis?.disconnect() };
}
