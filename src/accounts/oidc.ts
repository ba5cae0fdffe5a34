// The external OpenID Connect provider (AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID): its discovery
// document, fetched from `<issuer>/.well-known/openid-configuration` and kept once it loads, and the
// verification of its JWT access tokens through the document's `jwks_uri` (jose's remote key set,
// which caches keys and refetches on an unknown `kid`). Only asymmetric algorithms are accepted, so
// the shared-secret (HS256) path and algorithm confusion cannot reach this verifier.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { OidcConfig } from '../config.js';

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint: string | null;
  userinfo_endpoint: string | null;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const FETCH_TIMEOUT_MS = 5000;
/** After a failed fetch, callers within this time get the same failure instead of a new request. */
const RETRY_AFTER_MS = 5000;

export class OidcUnavailableError extends Error {}

const withoutSlash = (url: string) => url.replace(/\/+$/, '');

function httpUrl(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new OidcUnavailableError(`discovery document has no ${name}`);
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OidcUnavailableError(`${name} is not an http(s) URL`);
  return value;
}

export class OidcProvider {
  private discovered: Discovery | undefined;
  private pending: Promise<Discovery> | undefined;
  private failedAt = 0;
  private lastError: Error | undefined;
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(readonly config: OidcConfig) {}

  /** The discovery document; fetched on first use and kept. Throws OidcUnavailableError while it cannot be had. */
  async discovery(): Promise<Discovery> {
    if (this.discovered) return this.discovered;
    if (this.lastError && Date.now() - this.failedAt < RETRY_AFTER_MS) throw this.lastError;
    this.pending ??= this.fetchDiscovery().then(
      (doc) => {
        this.discovered = doc;
        this.pending = undefined;
        return doc;
      },
      (error: unknown) => {
        this.pending = undefined;
        this.failedAt = Date.now();
        this.lastError =
          error instanceof OidcUnavailableError ? error : new OidcUnavailableError(error instanceof Error ? error.message : String(error));
        throw this.lastError;
      },
    );
    return this.pending;
  }

  /** Loaded discovery document, if any (no fetch). */
  cached(): Discovery | undefined {
    return this.discovered;
  }

  private async fetchDiscovery(): Promise<Discovery> {
    const url = `${withoutSlash(this.config.issuer)}/.well-known/openid-configuration`;
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) throw new OidcUnavailableError(`${url} answered ${res.status}`);
    const doc = (await res.json()) as Record<string, unknown>;
    // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one configured. A
    // trailing slash is forgiven (Auth0's issuer ends with one, people often leave it out).
    if (typeof doc.issuer !== 'string' || withoutSlash(doc.issuer) !== withoutSlash(this.config.issuer)) {
      throw new OidcUnavailableError(`discovery document issuer ${String(doc.issuer)} is not ${this.config.issuer}`);
    }
    const optional = (name: string) => (doc[name] === undefined || doc[name] === null ? null : httpUrl(doc[name], name));
    return {
      issuer: doc.issuer,
      authorization_endpoint: httpUrl(doc.authorization_endpoint, 'authorization_endpoint'),
      token_endpoint: httpUrl(doc.token_endpoint, 'token_endpoint'),
      jwks_uri: httpUrl(doc.jwks_uri, 'jwks_uri'),
      end_session_endpoint: optional('end_session_endpoint'),
      userinfo_endpoint: optional('userinfo_endpoint'),
    };
  }

  /** Is this (unverified) `iss` the provider's? Decides which verifier a token goes to. */
  isIssuer(iss: unknown): boolean {
    return typeof iss === 'string' && withoutSlash(iss) === withoutSlash(this.config.issuer);
  }

  /**
   * Verifies an access token of the provider. Audience: AUTH_OIDC_AUDIENCE when set; otherwise the
   * token must name this app's client, in `aud` (Authentik, Zitadel, Entra ID v2, Dex) or in `azp`
   * (Keycloak, whose access tokens say `aud: account`).
   */
  async verify(token: string): Promise<JWTPayload & { sub: string }> {
    const doc = await this.discovery();
    this.jwks ??= createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS });
    const { payload } = await jwtVerify(token, this.jwks, {
      algorithms: ASYMMETRIC,
      issuer: doc.issuer,
      requiredClaims: ['sub', 'exp'],
      clockTolerance: 5,
      ...(this.config.audience ? { audience: this.config.audience } : {}),
    });
    if (!this.config.audience) {
      const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
      if (!aud.includes(this.config.clientId) && payload.azp !== this.config.clientId) {
        throw new Error('token is not for this client (aud/azp)');
      }
    }
    return payload as JWTPayload & { sub: string };
  }
}
