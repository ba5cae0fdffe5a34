// Sign-in through an OpenID Connect provider (AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID) against a fake
// provider on loopback that speaks the protocol: /v1/auth/config from its discovery document, the
// full authorization-code + PKCE exchange done here with fetch, its RS256 and ES256 access tokens
// accepted through its JWKS, audience rules, local accounts off and local tokens refused, tokens of
// other issuers or algorithms refused, and a provider that cannot be reached.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { createLocalTokens } from '../src/accounts/local-tokens.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { newId } from '../src/lib/ids.js';
import { startFakeOidc, pkcePair, type FakeOidc } from './helpers/fake-oidc.js';
import type { AuthConfigBody, BoardBody, ErrorBody, MeBody } from './helpers/api-types.js';
import { JWT_SECRET, isErrorEnvelope, startServer, type Response, type TestServer, useServer } from './helpers/harness.js';

/** What the fake provider's token endpoint answers. */
interface TokenAnswer {
  token_type: string;
  id_token?: string;
  access_token: string;
}

/** GET /v1/auth/config, which must describe a provider. */
async function oidcConfig(server: TestServer): Promise<Extract<AuthConfigBody, { mode: 'oidc' }>> {
  const res = await server.request<AuthConfigBody>('GET', '/v1/auth/config');
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.mode === 'oidc', res.text);
  return res.body;
}

function assertError(res: Response, status: number, code: string, label = ''): asserts res is Response<ErrorBody> {
  assert.equal(res.status, status, `${label} ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), `${label} ${res.text}`);
  assert.equal(res.body.code, code, label);
}

/** The browser's side of the authorization-code flow with PKCE, done with fetch. */
async function codeFlow(
  config: { authorization_endpoint: string; token_endpoint: string; client_id: string; scope: string },
  loginHint: string,
  overrides: { verifier?: string; redirectUri?: string } = {},
) {
  const { verifier, challenge } = pkcePair();
  const redirectUri = 'http://127.0.0.1:9/auth/callback';
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(config.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: config.client_id,
    redirect_uri: redirectUri,
    scope: config.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    login_hint: loginHint,
    nonce: 'n-1',
  })) {
    authorize.searchParams.set(k, v);
  }
  const redirect = await fetch(authorize, { redirect: 'manual' });
  assert.equal(redirect.status, 302);
  const back = new URL(redirect.headers.get('location')!);
  assert.equal(`${back.origin}${back.pathname}`, redirectUri);
  assert.equal(back.searchParams.get('state'), state);
  const code = back.searchParams.get('code');
  assert.ok(code, back.toString());
  const exchange = (v: string) =>
    fetch(config.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: overrides.redirectUri ?? redirectUri,
        client_id: config.client_id,
        code_verifier: v,
      }),
    });
  return { exchange, verifier: overrides.verifier ?? verifier };
}

describe('with an OpenID Connect provider (RS256, audience = client id by default)', () => {
  let idp: FakeOidc;
  let server: TestServer;

  before(async () => {
    idp = await startFakeOidc({ alg: 'RS256' });
    server = await startServer({ AUTH_OIDC_ISSUER: idp.issuer, AUTH_OIDC_CLIENT_ID: idp.clientId });
  });
  after(async () => {
    await server?.close();
    await idp?.close();
  });

  test('GET /v1/auth/config describes the provider from its discovery document', async () => {
    const res = await server.request('GET', '/v1/auth/config');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      mode: 'oidc',
      issuer: idp.issuer,
      client_id: idp.clientId,
      authorization_endpoint: `${idp.issuer}/authorize`,
      token_endpoint: `${idp.issuer}/token`,
      end_session_endpoint: `${idp.issuer}/logout`,
      scope: 'openid profile email',
      audience: null,
    });
    assert.ok(idp.stats.discovery >= 1);
  });

  test('the full authorization-code + PKCE flow gives an access token the API accepts', async () => {
    const config = await oidcConfig(server);
    const hint = `carol-${randomBytes(3).toString('hex')}@example.test`;
    const flow = await codeFlow(config, hint);
    const tokens = (await (await flow.exchange(flow.verifier)).json()) as TokenAnswer;
    assert.equal(tokens.token_type, 'Bearer');
    assert.ok(tokens.id_token);
    const board = await server.request<BoardBody>('POST', '/v1/boards', { token: tokens.access_token, body: { name: 'from the IdP' } });
    assert.equal(board.status, 201, board.text);
    const me = await server.request<MeBody>('GET', '/v1/me', { token: tokens.access_token });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.email, hint);
    assert.equal(me.body.auth, 'jwt');
    assert.deepEqual(me.body.scopes, ['read', 'write', 'admin']);
    // The user is the provider's subject, remembered: a later token of the same person sees the board.
    const later = await idp.accessToken(idp.user(hint));
    const seen = await server.request('GET', `/v1/boards/${board.body.data.id}`, { token: later });
    assert.equal(seen.status, 200, seen.text);
    const users = await server.database.db.selectFrom('users').select('id').where('subject', '=', idp.user(hint).sub).execute();
    assert.deepEqual(
      users.map((u) => u.id),
      [me.body.id],
    );
    // Someone else signing in through the provider does not see it.
    const dave = await idp.accessToken(idp.user(`dave-${randomBytes(3).toString('hex')}`));
    assertError(await server.request('GET', `/v1/boards/${board.body.data.id}`, { token: dave }), 404, 'not_found');
  });

  test('the provider enforces PKCE and single-use codes (the fake is strict like a real one)', async () => {
    const config = await oidcConfig(server);
    const wrong = await codeFlow(config, 'erin@example.test');
    const bad = await wrong.exchange(`${wrong.verifier.slice(0, -1)}${wrong.verifier.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string }).error, 'invalid_grant');
    assert.equal((await wrong.exchange(wrong.verifier)).status, 400, 'a code is spent even by a failed exchange');
    const flow = await codeFlow(config, 'erin@example.test');
    assert.equal((await flow.exchange(flow.verifier)).status, 200);
    assert.equal((await flow.exchange(flow.verifier)).status, 400, 'a code works once');
    const moved = await codeFlow(config, 'erin@example.test', { redirectUri: 'http://127.0.0.1:9/elsewhere' });
    assert.equal((await moved.exchange(moved.verifier)).status, 400, 'redirect_uri must match');
  });

  test('local accounts are off: their routes are 404', async () => {
    const body = { email: 'x@example.test', password: 'long enough password' };
    for (const [path, options] of [
      ['/v1/auth/signup', { body }],
      ['/v1/auth/login', { body }],
      ['/v1/auth/refresh', {}],
      ['/v1/auth/logout', {}],
    ] as const) {
      const res = await server.request('POST', path, options);
      assertError(res, 404, 'not_found', path);
      assert.match(res.body.message, /Local accounts are off/);
    }
  });

  test('a local access token is refused, even one signed with a service key in this database', async () => {
    const tokens = await createLocalTokens(server.database.db, 900);
    const user = await server.user();
    const { token } = await tokens.issue(user.userId);
    assertError(await server.request('GET', '/v1/boards', { token }), 401, 'unauthorized');
    assert.equal((await server.request('GET', '/v1/boards', { token: user.token })).status, 200, 'API keys still work');
  });

  test('audience: the client id in aud or azp; anything else is refused', async () => {
    const u = idp.user(`aud-${randomBytes(3).toString('hex')}`);
    const ok: [string, string][] = [
      ['aud = client id', await idp.accessToken(u)],
      ['aud list with the client id', await idp.accessToken(u, { aud: ['account', idp.clientId] })],
      ['Keycloak style: aud account, azp = client id', await idp.accessToken(u, { aud: 'account', azp: idp.clientId })],
    ];
    for (const [label, token] of ok) assert.equal((await server.request('GET', '/v1/boards', { token })).status, 200, label);
    const refused: [string, string][] = [
      ['another client', await idp.accessToken(u, { aud: 'other-app', azp: 'other-app' })],
      ['expired', await idp.accessToken(u, { expiresIn: -60 })],
      ['another issuer', await idp.accessToken(u, { iss: 'https://evil.example.test' })],
    ];
    for (const [label, token] of refused) assertError(await server.request('GET', '/v1/boards', { token }), 401, 'unauthorized', label);
  });

  test("HS256 tokens naming the provider's issuer are refused (no algorithm confusion)", async () => {
    const token = await new SignJWT({ aud: idp.clientId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(idp.issuer)
      .setSubject(newId())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    assertError(await server.request('GET', '/v1/boards', { token }), 401, 'unauthorized');
  });
});

describe('with an ES256 provider and AUTH_OIDC_AUDIENCE', () => {
  let idp: FakeOidc;
  let server: TestServer;

  before(async () => {
    idp = await startFakeOidc({ alg: 'ES256', audience: 'https://api.board.example' });
    server = await startServer({
      DATABASE_URL: '',
      AUTH_JWT_SECRET: '',
      AUTH_OIDC_ISSUER: `${idp.issuer}/`,
      AUTH_OIDC_CLIENT_ID: idp.clientId,
      AUTH_OIDC_AUDIENCE: 'https://api.board.example',
      AUTH_OIDC_SCOPE: 'openid email offline_access',
    });
  });
  after(async () => {
    await server?.close();
    await idp?.close();
  });

  test('tokens for the configured audience work; the client id alone is not enough', async () => {
    const config = await oidcConfig(server);
    assert.equal(config.scope, 'openid email offline_access');
    assert.equal(config.audience, 'https://api.board.example');
    // A trailing slash on AUTH_OIDC_ISSUER is forgiven; the discovered issuer is reported.
    assert.equal(config.issuer, idp.issuer);
    const flow = await codeFlow(config, 'frank@example.test');
    const tokens = (await (await flow.exchange(flow.verifier)).json()) as TokenAnswer;
    assert.equal(JSON.parse(Buffer.from(tokens.access_token.split('.')[0]!, 'base64url').toString()).alg, 'ES256');
    assert.equal((await server.request('GET', '/v1/me', { token: tokens.access_token })).status, 200);
    const u = idp.user('frank@example.test');
    assertError(
      await server.request('GET', '/v1/boards', { token: await idp.accessToken(u, { aud: idp.clientId }) }),
      401,
      'unauthorized',
      'aud = client id only',
    );
  });
});

describe('with a provider that cannot be reached', () => {
  // A port nothing listens on: the service must still start.
  const server = useServer({ DATABASE_URL: '', AUTH_OIDC_ISSUER: 'http://127.0.0.1:9', AUTH_OIDC_CLIENT_ID: 'web' });

  test('/v1/auth/config is 503 with Retry-After; API keys still work', async () => {
    const res = await server.request('GET', '/v1/auth/config');
    assertError(res, 503, 'unavailable');
    assert.equal(res.headers.get('retry-after'), '5');
    const user = await server.user();
    assert.equal((await server.request('GET', '/v1/boards', { token: user.token })).status, 200);
    // A token naming the unreachable issuer cannot be verified: 401, not a hang or a 500.
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${part({ alg: 'RS256', kid: 'k' })}.${part({ iss: 'http://127.0.0.1:9', sub: 'x', aud: 'web', exp: Math.floor(Date.now() / 1000) + 300 })}.${randomBytes(64).toString('base64url')}`;
    assertError(await server.request('GET', '/v1/boards', { token }), 401, 'unauthorized');
  });
});

describe('configuration', () => {
  test('AUTH_OIDC_ISSUER and AUTH_OIDC_CLIENT_ID go together; the local issuer is reserved', () => {
    assert.throws(() => loadConfig({ AUTH_OIDC_ISSUER: 'https://idp.example' }), ConfigError);
    assert.throws(() => loadConfig({ AUTH_OIDC_CLIENT_ID: 'web' }), ConfigError);
    assert.throws(() => loadConfig({ AUTH_OIDC_ISSUER: 'not a url', AUTH_OIDC_CLIENT_ID: 'web' }), ConfigError);
    assert.throws(() => loadConfig({ AUTH_ISSUER: 'board-workspace' }), ConfigError);
    const config = loadConfig({ AUTH_OIDC_ISSUER: 'https://idp.example', AUTH_OIDC_CLIENT_ID: 'web' });
    assert.deepEqual(config.oidc, { issuer: 'https://idp.example', clientId: 'web', audience: undefined, scope: 'openid profile email' });
    const local = loadConfig({});
    assert.equal(local.oidc, undefined);
    assert.equal(local.localSignup, true);
    assert.equal(local.accessTokenTtlSeconds, 900);
    assert.equal(local.refreshTokenTtlDays, 30);
    assert.equal(local.authLoginPerMinute, 10);
    assert.match(local.webDistDir, /web[/\\]dist$/);
  });
});
