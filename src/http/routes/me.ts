// GET /v1/me: who the caller is (any token, scope read). The email is the local account's, or the
// `email` claim of an identity provider's JWT, or null. GET /v1/me/usage: what the caller stores
// against each of their quotas (src/access/user-quota.ts).
import { decodeJwt } from 'jose';
import { principalOf } from '../plugins/auth.js';
import { Me } from '../../contract/accounts.js';
import { Usage } from '../../contract/usage.js';
import { errorResponses } from '../schemas/common.js';
import type { App, Services } from '../types.js';

/** The `email` claim of the request's bearer JWT; the token was verified by the auth hook already. */
function emailClaim(authorization: string | undefined): string | null {
  const token = authorization?.replace(/^Bearer +/i, '').trim();
  if (!token) return null;
  try {
    const { email } = decodeJwt(token);
    return typeof email === 'string' && email.length <= 320 ? email : null;
  } catch {
    return null;
  }
}

export function meRoutes(app: App, { accounts, boards }: Services): void {
  app.get(
    '/v1/me',
    {
      schema: {
        tags: ['me'],
        operationId: 'getMe',
        summary: 'The caller: user id, email, how they authenticated and their scopes',
        response: { 200: Me, ...errorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const email =
        (await accounts.email(principal.userId)) ?? (principal.kind === 'jwt' ? emailClaim(request.headers.authorization) : null);
      return { id: principal.userId, email, auth: principal.kind, scopes: [...principal.scopes] };
    },
  );

  app.get(
    '/v1/me/usage',
    {
      schema: {
        tags: ['me'],
        operationId: 'getUsage',
        summary: 'What the caller stores against each quota: boards owned (USER_MAX_BOARDS), bytes stored on them (USER_MAX_STORED_BYTES)',
        response: { 200: Usage, ...errorResponses },
      },
    },
    async (request) => boards.usage(principalOf(request)),
  );
}
