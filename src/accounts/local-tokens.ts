// The service's own access tokens for local accounts: ES256 JWTs signed with a key generated at
// first start and kept in the database (inserted if absent, then read back, so instances started
// together all end up with the one key that won). `iss` is fixed to LOCAL_TOKEN_ISSUER, which no
// external issuer may use, and verification accepts ES256 with this key only.
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { LOCAL_TOKEN_ISSUER } from '../config.js';
import type { Db } from '../db/schema.js';
import { now } from '../lib/ids.js';

const KEY_NAME = 'access-token-es256';
const ALG = 'ES256';
/** `aud` of local access tokens: this API. */
export const LOCAL_TOKEN_AUDIENCE = 'board-workspace-api';
/** RFC 9068's media type for JWT access tokens, so an ID token can never pass as one. */
const TYP = 'at+jwt';

export interface LocalTokens {
  /** Signs an access token for the user; returns it with its lifetime in seconds. */
  issue(userId: string): Promise<{ token: string; expiresIn: number }>;
  /** Verifies a local access token (throws when it is not one, or not valid now). */
  verify(token: string): Promise<JWTPayload & { sub: string }>;
}

async function loadKey(db: Db): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const candidate = await exportJWK(privateKey);
  await db
    .insertInto('service_keys')
    .values({ name: KEY_NAME, private_jwk: JSON.stringify(candidate), created_at: now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('service_keys').select('private_jwk').where('name', '=', KEY_NAME).executeTakeFirstOrThrow();
  return row.private_jwk as JWK;
}

export async function createLocalTokens(db: Db, ttlSeconds: number): Promise<LocalTokens> {
  const privateJwk = await loadKey(db);
  const { d: _private, ...publicJwk } = privateJwk;
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateKey = (await importJWK(privateJwk, ALG)) as CryptoKey;
  const publicKey = (await importJWK(publicJwk, ALG)) as CryptoKey;
  return {
    async issue(userId) {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: ALG, kid, typ: TYP })
        .setIssuer(LOCAL_TOKEN_ISSUER)
        .setAudience(LOCAL_TOKEN_AUDIENCE)
        .setSubject(userId)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
        .sign(privateKey);
      return { token, expiresIn: ttlSeconds };
    },
    async verify(token) {
      const { payload } = await jwtVerify(token, publicKey, {
        algorithms: [ALG],
        issuer: LOCAL_TOKEN_ISSUER,
        audience: LOCAL_TOKEN_AUDIENCE,
        typ: TYP,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: 5,
      });
      return payload as JWTPayload & { sub: string };
    },
  };
}
