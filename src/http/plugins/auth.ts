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
}
