// Verifies identity-provider JWTs: HS256 with AUTH_JWT_SECRET, RS256/ES256 against AUTH_JWKS_URL.
// The algorithm in the token header only chooses among the configured verifiers, each of which
// accepts only its own algorithms, so `alg: none` and algorithm confusion (an HS256 token signed
// with a public key) are rejected.
//
// Tokens are first routed by their (unverified) `iss`: the service's own tokens (local accounts) go
// only to the local verifier, the OpenID Connect provider's only to its JWKS, and everything else to
// the AUTH_JWT_SECRET/AUTH_JWKS_URL verifier, which refuses the local issuer. So a token can never
// be accepted by a verifier meant for another issuer.
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { LOCAL_TOKEN_ISSUER, type Config } from '../config.js';

export type JwtVerifier = (token: string) => Promise<JWTPayload & { sub: string }>;

const ASYMMETRIC = ['RS256', 'ES256'];

export function createJwtVerifier(config: Pick<Config, 'jwtSecret' | 'jwksUrl' | 'jwtIssuer' | 'jwtAudience'>): JwtVerifier | undefined {
  if (!config.jwtSecret && !config.jwksUrl) return undefined;
  const secret = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : undefined;
  const jwks = config.jwksUrl ? createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5000 }) : undefined;
  const common: JWTVerifyOptions = {
    requiredClaims: ['sub', 'exp'],
    clockTolerance: 5,
    ...(config.jwtIssuer ? { issuer: config.jwtIssuer } : {}),
    ...(config.jwtAudience ? { audience: config.jwtAudience } : {}),
  };
  return async (token) => {
    const { alg } = decodeProtectedHeader(token);
    let payload: JWTPayload;
    if (alg === 'HS256' && secret) {
      ({ payload } = await jwtVerify(token, secret, { ...common, algorithms: ['HS256'] }));
    } else if (alg !== undefined && ASYMMETRIC.includes(alg) && jwks) {
      ({ payload } = await jwtVerify(token, jwks, { ...common, algorithms: ASYMMETRIC }));
    } else {
      throw new Error(`JWT algorithm ${String(alg)} is not accepted`);
    }
    if (payload.iss === LOCAL_TOKEN_ISSUER) throw new Error('JWT issuer is reserved for the service itself');
    return checkSub(payload);
  };
}

/**
 * `sub` names the user, so it must name one: a string of 1..255 characters with something visible
 * in it (not only spaces or zero-width characters, which would make every such token one shared
 * user) and no control characters (a NUL cannot even be stored).
 */
function checkSub(payload: JWTPayload): JWTPayload & { sub: string } {
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255 || /\p{Cc}/u.test(sub) || /^[\s\p{Cf}]*$/u.test(sub)) {
    throw new Error('JWT sub is missing or invalid');
  }
  return payload as JWTPayload & { sub: string };
}

export interface VerifierSources {
  /** AUTH_JWT_SECRET / AUTH_JWKS_URL tokens. */
  external?: JwtVerifier;
  /** The service's own access tokens (local accounts); absent when an OIDC provider is configured. */
  local?: JwtVerifier;
  /** The OpenID Connect provider: which `iss` is its, and its verifier. */
  oidc?: { isIssuer(iss: unknown): boolean; verify: JwtVerifier };
}

/** One verifier over every configured source, choosing the source by the token's `iss`. */
export function combineVerifiers({ external, local, oidc }: VerifierSources): JwtVerifier | undefined {
  if (!external && !local && !oidc) return undefined;
  return async (token) => {
    const { iss } = decodeJwt(token);
    if (iss === LOCAL_TOKEN_ISSUER) {
      if (!local) throw new Error('local access tokens are not accepted');
      return checkSub(await local(token));
    }
    if (oidc?.isIssuer(iss)) return checkSub(await oidc.verify(token));
    if (!external) throw new Error('JWT issuer is not accepted');
    return external(token);
  };
}
