// How people sign in, chosen once at start: an OpenID Connect provider when AUTH_OIDC_ISSUER and
// AUTH_OIDC_CLIENT_ID are set (local accounts off, local tokens refused), otherwise local accounts
// with the service's own tokens. Builds the pieces the app needs and the JWT verifier over all of
// them (with AUTH_JWT_SECRET / AUTH_JWKS_URL tokens alongside).
import { combineVerifiers, createJwtVerifier, type JwtVerifier } from '../auth/jwt.js';
import type { Config } from '../config.js';
import type { Db } from '../db/schema.js';
import { createLocalTokens } from './local-tokens.js';
import { OidcProvider } from './oidc.js';
import { DummyHash, scryptParams } from './password.js';
import { Sessions } from './sessions.js';
import type { Logger } from '../lib/logger.js';

export type SignIn =
  | { mode: 'local'; sessions: Sessions; verifier: JwtVerifier | undefined; dummy: DummyHash }
  | { mode: 'oidc'; oidc: OidcProvider; verifier: JwtVerifier | undefined };

export async function createSignIn(db: Db, config: Config, log: Pick<Logger, 'warn'>): Promise<SignIn> {
  const external = createJwtVerifier(config);
  if (config.oidc) {
    const oidc = new OidcProvider(config.oidc);
    // Fetched now so the first sign-in does not wait; a provider that is down is retried on use.
    oidc.discovery().catch((err: unknown) => log.warn({ err }, 'OpenID Connect discovery failed; retried on the next sign-in'));
    return {
      mode: 'oidc',
      oidc,
      verifier: combineVerifiers({ external, oidc: { isIssuer: (iss) => oidc.isIssuer(iss), verify: (t) => oidc.verify(t) } }),
    };
  }
  const tokens = await createLocalTokens(db, config.accessTokenTtlSeconds);
  const sessions = new Sessions(db, tokens, config.refreshTokenTtlDays, config.refreshReuseSeconds);
  return {
    mode: 'local',
    sessions,
    verifier: combineVerifiers({ external, local: tokens.verify }),
    dummy: new DummyHash(scryptParams(config.scryptCost)),
  };
}
