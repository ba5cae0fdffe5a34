// Verifies identity-provider JWTs: HS256 with AUTH_JWT_SECRET, RS256/ES256 against AUTH_JWKS_URL.
// The algorithm in the token header only chooses among the configured verifiers, each of which
// accepts only its own algorithms, so `alg: none` and algorithm confusion (an HS256 token signed
// with a public key) are rejected.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { Config } from '../config.js';

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
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255) {
      throw new Error('JWT sub is missing or invalid');
    }
    return payload as JWTPayload & { sub: string };
  };
}
