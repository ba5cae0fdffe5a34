// /v1/auth: how the web app signs in. GET /v1/auth/config says which way (local accounts or an
// OpenID Connect provider); signup, login, refresh and logout serve local accounts and answer 404
// when a provider is configured. All are public (no bearer token).
//
// The refresh token travels only in the `bw_refresh` cookie: HttpOnly, SameSite=Strict and scoped
// to /v1/auth, so scripts cannot read it and other sites cannot make the browser send it. As a
// second line against cross-site requests, these routes refuse a request whose Origin header names
// another origin. Login and sign-up are rate-limited per client address, far tighter than the API,
// because each attempt costs a password hash. Being public, these routes have
// no principal, so the Idempotency-Key layer never records (or replays) a session.
import cookie from '@fastify/cookie';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../accounts/accounts.js';
import { OidcUnavailableError } from '../../accounts/oidc.js';
import type { IssuedSession } from '../../accounts/sessions.js';
import type { SignIn } from '../../accounts/sign-in.js';
import type { Config } from '../../config.js';
import { ApiError, forbidden } from '../../errors.js';
import { throttledAddress } from '../../lib/client-address.js';
import { Account } from '../../contract/accounts.js';
import type { App, Services } from '../types.js';

export const REFRESH_COOKIE = 'bw_refresh';
const COOKIE_PATH = '/v1/auth';

const LocalMode = Type.Object({
  mode: Type.Literal('local'),
  signup: Type.Boolean({ description: 'Whether POST /v1/auth/signup creates accounts' }),
  session: Type.Boolean({
    description:
      'Whether this request carried a refresh cookie (bw_refresh, sent only to /v1/auth): a client asks POST /v1/auth/refresh only then, so a signed-out visit makes no request that must fail',
  }),
});
const OidcMode = Type.Object({
  mode: Type.Literal('oidc'),
  issuer: Type.String(),
  client_id: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  end_session_endpoint: Type.Union([Type.String(), Type.Null()]),
  scope: Type.String(),
  audience: Type.Union([Type.String(), Type.Null()], {
    description: 'AUTH_OIDC_AUDIENCE: send as the `audience` authorize parameter (Auth0 issues JWT access tokens only for an API audience)',
  }),
});

const Session = Type.Object(
  {
    access_token: Type.String({ description: 'JWT for Authorization: Bearer' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    user: Account,
  },
  { description: 'Also sets the bw_refresh cookie (HttpOnly, SameSite=Strict, Path=/v1/auth)' },
);

const Email = Type.String({ minLength: 1, maxLength: 320, description: 'Trimmed and compared case-insensitively' });
const SignUpBody = Type.Object(
  { email: Email, password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }) },
  { additionalProperties: false },
);
const LoginBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }) },
  { additionalProperties: false },
);

const errors = {
  400: Type.Ref('Error'),
  401: Type.Ref('Error'),
  403: Type.Ref('Error'),
  404: Type.Ref('Error'),
  429: Type.Ref('Error'),
  503: Type.Ref('Error'),
};
const open = { public: true, rateLimit: false } as const;

function ownOrigins(request: FastifyRequest, config: Config): Set<string> {
  const origins = new Set<string>();
  try {
    origins.add(new URL(`${request.protocol}://${request.host}`).origin);
  } catch {
    // A Host header that is no host: only PUBLIC_BASE_URL can match.
  }
  if (config.publicBaseUrl) origins.add(new URL(config.publicBaseUrl).origin);
  return origins;
}

/** Refuses requests a browser sent on behalf of another site. */
function assertSameOrigin(request: FastifyRequest, config: Config): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') throw forbidden('Cross-site requests to /v1/auth are refused');
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let normalised = 'null';
  try {
    normalised = new URL(origin).origin;
  } catch {
    // "null" (sandboxed frames, some redirects) and garbage fall through to the refusal.
  }
  if (!ownOrigins(request, config).has(normalised)) throw forbidden('Cross-origin requests to /v1/auth are refused');
}

export async function authRoutes(app: App, { accounts, config }: Pick<Services, 'accounts' | 'config'>, signIn: SignIn): Promise<void> {
  // Counted per client address only (an IPv6 client by its /64), never per account: a per-account
  // count lets anyone lock the owner out by failing on purpose from elsewhere (OWASP, Authentication
  // Cheat Sheet). So an attacker slows only their own address; guessing spread over many addresses
  // is slowed by the password hash each attempt costs (docs/auth.md, Rate limits).
  const perIp = app.createRateLimit({
    max: config.authLoginPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => `auth-ip:${throttledAddress(r.ip)}`,
    allowList: () => false,
  });
  const limit = async (limiter: typeof perIp, request: FastifyRequest) => {
    const result = await limiter(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ApiError('rate_limited', `Too many sign-in attempts; retry in ${result.ttlInSeconds} seconds`, {
        'Retry-After': String(result.ttlInSeconds),
      });
    }
  };

  const secure = (request: FastifyRequest) => request.protocol === 'https' || (config.publicBaseUrl?.startsWith('https:') ?? false);
  const cookieOptions = (request: FastifyRequest) => ({
    httpOnly: true,
    sameSite: 'strict' as const,
    path: COOKIE_PATH,
    secure: secure(request),
  });
  const sessions = signIn.mode === 'local' ? signIn.sessions : undefined;

  /** Local-account routes: 404 when an identity provider is configured; same-origin only. */
  const localOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!sessions)
      throw new ApiError(
        'not_found',
        'Local accounts are off: this server signs in through its identity provider (see GET /v1/auth/config)',
      );
    reply.header('cache-control', 'no-store');
    assertSameOrigin(request, config);
  };
  const sendSession = (request: FastifyRequest, reply: FastifyReply, issued: IssuedSession, status: number) => {
    reply.setCookie(REFRESH_COOKIE, issued.refreshToken, { ...cookieOptions(request), maxAge: sessions!.refreshTtlSeconds });
    return reply.code(status).send(issued.session);
  };

  await app.register(async (scope) => {
    // Cookies are parsed only here: no other route reads them.
    await scope.register(cookie, { hook: 'onRequest' });
    const auth = scope as unknown as App;

    auth.get(
      '/v1/auth/config',
      {
        config: open,
        schema: {
          tags: ['auth'],
          operationId: 'getAuthConfig',
          summary: 'How to sign in: local accounts, or an OpenID Connect provider (authorization code + PKCE)',
          security: [],
          response: { 200: Type.Union([LocalMode, OidcMode]), 400: Type.Ref('Error'), 503: Type.Ref('Error') },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        if (signIn.mode === 'local') {
          const session = typeof request.cookies[REFRESH_COOKIE] === 'string' && request.cookies[REFRESH_COOKIE] !== '';
          return { mode: 'local' as const, signup: config.localSignup, session };
        }
        let doc: Awaited<ReturnType<typeof signIn.oidc.discovery>>;
        try {
          doc = await signIn.oidc.discovery();
        } catch (error) {
          if (error instanceof OidcUnavailableError)
            throw new ApiError('unavailable', 'The identity provider cannot be reached; retry shortly', { 'Retry-After': '5' });
          throw error;
        }
        return {
          mode: 'oidc' as const,
          issuer: doc.issuer,
          client_id: signIn.oidc.config.clientId,
          authorization_endpoint: doc.authorization_endpoint,
          token_endpoint: doc.token_endpoint,
          end_session_endpoint: doc.end_session_endpoint,
          scope: signIn.oidc.config.scope,
          audience: signIn.oidc.config.audience ?? null,
        };
      },
    );

    auth.post(
      '/v1/auth/signup',
      {
        config: open,
        onRequest: async (request, reply) => {
          await localOnly(request, reply);
          if (!config.localSignup) throw forbidden('Sign-up is disabled on this server');
        },
        preHandler: async (request) => limit(perIp, request),
        schema: {
          tags: ['auth'],
          operationId: 'signUp',
          summary: 'Create a local account and sign in',
          security: [],
          body: SignUpBody,
          response: { 201: Session, 409: Type.Ref('Error'), ...errors },
        },
      },
      async (request, reply) => {
        const account = await accounts.signUp(request.body.email, request.body.password);
        return sendSession(request, reply, await sessions!.start(account), 201);
      },
    );

    auth.post(
      '/v1/auth/login',
      {
        config: open,
        onRequest: localOnly,
        preHandler: async (request) => {
          await limit(perIp, request);
        },
        schema: {
          tags: ['auth'],
          operationId: 'logIn',
          summary: 'Sign in with email and password',
          security: [],
          body: LoginBody,
          response: { 200: Session, ...errors },
        },
      },
      async (request, reply) => {
        const account = await accounts.logIn(request.body.email, request.body.password);
        return sendSession(request, reply, await sessions!.start(account), 200);
      },
    );

    auth.post(
      '/v1/auth/refresh',
      {
        config: open,
        onRequest: localOnly,
        schema: {
          tags: ['auth'],
          operationId: 'refreshSession',
          summary: 'A new access token for the refresh cookie (which is rotated)',
          security: [],
          response: { 200: Session, ...errors },
        },
      },
      async (request, reply) => {
        try {
          return sendSession(request, reply, await sessions!.refresh(request.cookies[REFRESH_COOKIE]), 200);
        } catch (error) {
          // The browser should stop sending a cookie that will never work again.
          reply.clearCookie(REFRESH_COOKIE, cookieOptions(request));
          throw error;
        }
      },
    );

    auth.post(
      '/v1/auth/logout',
      {
        config: open,
        onRequest: localOnly,
        schema: {
          tags: ['auth'],
          operationId: 'logOut',
          summary: 'Sign out: revokes the refresh cookie and clears it',
          security: [],
          response: { 204: Type.Null({ description: 'Signed out' }), ...errors },
        },
      },
      async (request, reply) => {
        await sessions!.end(request.cookies[REFRESH_COOKIE]);
        reply.clearCookie(REFRESH_COOKIE, cookieOptions(request));
        return reply.code(204).send(null);
      },
    );
  });
}
