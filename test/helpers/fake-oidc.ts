// A fake OpenID Connect identity provider on loopback (node:http) that speaks the real protocol:
// discovery document, JWKS, an /authorize endpoint that approves at once and redirects back with a
// code (the user is picked by `login_hint`), a /token endpoint for the authorization-code grant that
// checks client_id, redirect_uri and the PKCE S256 code_verifier (codes are single-use and expire)
// and answers signed access and ID tokens, the refresh_token grant, /userinfo and an end-session
// endpoint. CORS is open, as a real provider's token endpoint is for a browser app.
//
// Used by test/oidc.test.ts and by the web app's end-to-end tests: `startFakeOidc()`.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export interface FakeOidcUser {
  sub: string;
  email: string;
  name?: string;
}

export interface FakeOidcOptions {
  clientId?: string;
  /** `aud` of access tokens; default: the client id. */
  audience?: string;
  /** Signing algorithm of the tokens. Default RS256. */
  alg?: 'RS256' | 'ES256';
  /** Allowed redirect URIs; default: any http(s) URI. */
  redirectUris?: string[];
  /** Lifetime of access and ID tokens in seconds. Default 300. */
  tokenTtlSeconds?: number;
  /** Port to listen on (default: any free port). */
  port?: number;
}

export interface FakeOidc {
  /** The issuer (its base URL, no trailing slash). */
  issuer: string;
  clientId: string;
  /** Users seen so far, by login_hint; a new hint makes a new user. */
  users: Map<string, FakeOidcUser>;
  /** The user for a login hint (made on first use). */
  user(hint: string): FakeOidcUser;
  /** Signs an access token directly, as the provider would (for tests of the API alone). */
  accessToken(user: FakeOidcUser, claims?: JWTPayload & { expiresIn?: number }): Promise<string>;
  /** Counters of what the provider was asked. */
  stats: { authorize: number; token: number; jwks: number; discovery: number };
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  user: FakeOidcUser;
  scope: string;
  nonce: string | undefined;
  expiresAt: number;
}

const DEFAULT_HINT = 'alice@example.test';

export async function startFakeOidc(options: FakeOidcOptions = {}): Promise<FakeOidc> {
  const clientId = options.clientId ?? 'board-workspace-web';
  const alg = options.alg ?? 'RS256';
  const ttl = options.tokenTtlSeconds ?? 300;
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `fake-${alg.toLowerCase()}-1`;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }] });

  const users = new Map<string, FakeOidcUser>();
  const user = (hint: string): FakeOidcUser => {
    let found = users.get(hint);
    if (!found) {
      found = {
        sub: `fake|${createHash('sha256').update(hint).digest('hex').slice(0, 16)}`,
        email: hint.includes('@') ? hint : `${hint}@example.test`,
        name: hint,
      };
      users.set(hint, found);
    }
    return found;
  };
  const codes = new Map<string, PendingCode>();
  const refreshTokens = new Map<string, { user: FakeOidcUser; scope: string }>();
  const stats = { authorize: 0, token: 0, jwks: 0, discovery: 0 };
  let issuer = '';

  const sign = (payload: JWTPayload, key: CryptoKey, expiresIn: number) =>
    new SignJWT({ iss: issuer, ...payload })
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
      .sign(key);

  const accessToken: FakeOidc['accessToken'] = async (u, claims = {}) => {
    const { expiresIn = ttl, ...rest } = claims;
    return sign(
      { sub: u.sub, aud: options.audience ?? clientId, azp: clientId, scope: 'openid profile email', email: u.email, ...rest },
      privateKey,
      expiresIn,
    );
  };

  const tokenResponse = async (u: FakeOidcUser, scope: string, nonce: string | undefined) => {
    const refresh = randomBytes(24).toString('base64url');
    refreshTokens.set(refresh, { user: u, scope });
    return {
      access_token: await accessToken(u, { scope }),
      id_token: await sign(
        { sub: u.sub, aud: clientId, azp: clientId, email: u.email, name: u.name, ...(nonce ? { nonce } : {}) },
        privateKey,
        ttl,
      ),
      token_type: 'Bearer',
      expires_in: ttl,
      refresh_token: refresh,
      scope,
    };
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };
  const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) =>
    json(res, status, { error, error_description: description });

  const redirectAllowed = (uri: string) => {
    if (options.redirectUris) return options.redirectUris.includes(uri);
    try {
      return ['http:', 'https:'].includes(new URL(uri).protocol);
    } catch {
      return false;
    }
  };

  const readForm = async (req: http.IncomingMessage): Promise<URLSearchParams> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'content-type, authorization');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const url = new URL(req.url ?? '/', issuer);

    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      stats.discovery++;
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        end_session_endpoint: `${issuer}/logout`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [alg],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') {
      stats.jwks++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      stats.authorize++;
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri') ?? '';
      // Errors before the redirect URI is trusted are shown to the user, never redirected (RFC 6749 §4.1.2.1).
      if (q.get('client_id') !== clientId) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown client_id');
      if (!redirectAllowed(redirectUri)) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('redirect_uri not allowed');
      const back = new URL(redirectUri);
      const state = q.get('state');
      if (state !== null) back.searchParams.set('state', state);
      back.searchParams.set('iss', issuer);
      const fail = (error: string, description: string) => {
        back.searchParams.set('error', error);
        back.searchParams.set('error_description', description);
        res.writeHead(302, { location: back.toString() }).end();
      };
      if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'only code');
      const challenge = q.get('code_challenge');
      if (!challenge || q.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'PKCE with S256 is required');
      const scope = q.get('scope') ?? '';
      if (!scope.split(' ').includes('openid')) return fail('invalid_scope', 'openid scope is required');
      const code = randomBytes(24).toString('base64url');
      codes.set(code, {
        clientId,
        redirectUri,
        challenge,
        user: user(q.get('login_hint') || DEFAULT_HINT),
        scope,
        nonce: q.get('nonce') ?? undefined,
        expiresAt: Date.now() + 60_000,
      });
      back.searchParams.set('code', code);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      stats.token++;
      const form = await readForm(req);
      if (form.get('client_id') !== clientId) return oauthError(res, 401, 'invalid_client', 'unknown client_id');
      const grant = form.get('grant_type');
      if (grant === 'authorization_code') {
        const code = form.get('code') ?? '';
        const pending = codes.get(code);
        // Single use: a second exchange of a code fails even when the first failed.
        codes.delete(code);
        if (!pending || pending.expiresAt < Date.now()) return oauthError(res, 400, 'invalid_grant', 'unknown, used or expired code');
        if (form.get('redirect_uri') !== pending.redirectUri) return oauthError(res, 400, 'invalid_grant', 'redirect_uri does not match');
        const verifier = form.get('code_verifier') ?? '';
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return oauthError(res, 400, 'invalid_grant', 'code_verifier is malformed');
        if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge)
          return oauthError(res, 400, 'invalid_grant', 'code_verifier does not match');
        return json(res, 200, await tokenResponse(pending.user, pending.scope, pending.nonce));
      }
      if (grant === 'refresh_token') {
        const presented = form.get('refresh_token') ?? '';
        const known = refreshTokens.get(presented);
        refreshTokens.delete(presented);
        if (!known) return oauthError(res, 400, 'invalid_grant', 'unknown refresh token');
        return json(res, 200, await tokenResponse(known.user, known.scope, undefined));
      }
      return oauthError(res, 400, 'unsupported_grant_type', String(grant));
    }
    if (req.method === 'GET' && url.pathname === '/userinfo') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const sub = await jwtVerify(token, publicKey, { issuer, algorithms: [alg] }).then(
        (r) => r.payload.sub,
        () => undefined,
      );
      const found = [...users.values()].find((u) => u.sub === sub);
      if (!found) return oauthError(res, 401, 'invalid_token', 'unknown or invalid token');
      return json(res, 200, { sub: found.sub, email: found.email, name: found.name });
    }
    if (req.method === 'GET' && url.pathname === '/logout') {
      const target = url.searchParams.get('post_logout_redirect_uri');
      if (target && redirectAllowed(target)) return void res.writeHead(302, { location: target }).end();
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('signed out');
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    clientId,
    users,
    user,
    accessToken,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A PKCE pair as a browser app makes it (RFC 7636): verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
