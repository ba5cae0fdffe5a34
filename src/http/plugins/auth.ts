// Authentication and scope checks for every route that is not marked public. Routes declare the
// scope they need in `config.scope`; by default GET needs read and every other method write.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { hasScope, type Principal, type Scope } from '../../auth/principal.js';
import { missingScope, unauthorized } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No authentication (documentation, health). */
    public?: boolean;
    scope?: Scope;
    /**
     * A read route whose one statement checks the caller's API key (keyStillValid, through the
     * board visibility rule), so the key's row need not be read before it. See Authenticator.
     */
    confirmsKey?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The authenticated caller; only call in routes that are not public. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

export function registerAuth(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (request.routeOptions.url === undefined || config.public) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +(\S{1,4096})\s*$/i.exec(header) : null;
    if (!match) throw unauthorized('Missing bearer token in the Authorization header');
    const principal = await authenticator.authenticate(match[1]!, config.confirmsKey === true);
    if (!principal) throw unauthorized('Invalid, expired or revoked token');
    const needed: Scope = config.scope ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
    if (!hasScope(principal, needed)) throw missingScope(needed);
    request.principal = principal;
  });
  // An unconfirmed key answered 401 was found revoked or expired by the route's statement; one
  // answered 429 never reached that statement. Either way this instance reads the key's row on its
  // next request, where a key no longer valid is refused before any rate limit counts it: a key
  // revoked elsewhere cannot spend its user's budget, nor get 429 instead of 401 more than once.
  // Before the answer goes out, so the caller's next request already finds the key forgotten.
  app.addHook('onSend', (request, reply, payload, done) => {
    const principal = request.principal;
    if (principal?.unconfirmed && principal.keyId && (reply.statusCode === 401 || reply.statusCode === 429)) {
      authenticator.forgetKey(principal.keyId);
    }
    done(null, payload);
  });
}
