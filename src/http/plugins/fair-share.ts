// One user's share of the instance (issue 26, item 5), in two hooks around authentication:
//
// - every request runs as a caller of the database's fair pool (src/db/fair-pool.ts): by its
//   address until authenticated, then by its user, so the connections go round the users in turn
//   and no user holds more than DATABASE_CONNECTIONS_PER_USER of them;
// - a route marked `config: { heavy: true }` (a board read, an export, an import, a duplicate, a batch) runs
//   holding one of its user's slots of expensive work (src/lib/heavy-work.ts), from before its
//   handler until its answer is out or its client has gone; a user past their share waits in their
//   queue or gets 429.
import type { FastifyInstance } from 'fastify';
import type { FairPool } from '../../db/fair-pool.js';
import type { HeavyWork } from '../../lib/heavy-work.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Expensive work: runs holding one of the user's slots (src/lib/heavy-work.ts). */
    heavy?: boolean;
  }
}

/** Registered before authentication: every request's statements run as one caller of the pool. */
export function registerFairShare(app: FastifyInstance, fairPool: FairPool): void {
  app.addHook('onRequest', (request, _reply, done) => {
    fairPool.enter({ key: `ip:${request.ip}`, held: 0 }, done);
  });
}

/** Registered after authentication: the caller is named by its user, and heavy routes take a slot. */
export function registerFairShareOfUsers(app: FastifyInstance, fairPool: FairPool, heavyWork: HeavyWork): void {
  app.addHook('onRequest', async (request) => {
    const scope = fairPool.current();
    if (scope && request.principal) scope.key = `user:${request.principal.userId}`;
  });
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.heavy !== true || !request.principal) return;
    const release = await heavyWork.acquire(request.principal.userId);
    reply.raw.once('close', release);
    // The client may have gone while this waited: its close has passed.
    if (reply.raw.closed || request.raw.socket?.destroyed) release();
  });
}
