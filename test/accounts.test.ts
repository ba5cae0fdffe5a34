// Local accounts (the embedded sign-in of the web app): sign-up, login, the service's own access
// tokens on the API, refresh-token rotation with reuse detection, logout, expiry, the refresh
// cookie's attributes, cross-origin refusal, validation, the tight login rate limit (per client
// address, shared through Redis) and that sessions never land in the idempotency table.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { AccountService } from '../src/accounts/accounts.js';
import { hashPassword } from '../src/accounts/password.js';
import { loadConfig } from '../src/config.js';
import { PNG, uploadFile } from './helpers/assets.js';
import type { ApiKeyCreated, AssetList, AuthConfigBody, BodyOf, BoardBody, BoardList, ErrorBody, MeBody } from './helpers/api-types.js';
import { JWT_SECRET, isErrorEnvelope, startServer, type Response, type TestServer, useServer } from './helpers/harness.js';
import { redisAvailable, startRedis, type RedisServer } from './helpers/redis.js';

const PASSWORD = 'correct horse battery staple';
/** A sign-in's answer: the access token and the user (signup, login and refresh answer the same). */
type Session = BodyOf<'/v1/auth/login', 'post'>;

const email = (label = 'user') => `${label}-${randomBytes(5).toString('hex')}@Example.test`;

/** The bw_refresh cookie set by a response: its value and attributes (lower-cased names). */
function refreshCookie(res: Response): { value: string; attributes: Record<string, string | true> } | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...rest] = line.split(';').map((s) => s.trim());
    const [name, ...value] = pair!.split('=');
    if (name !== 'bw_refresh') continue;
    const attributes: Record<string, string | true> = {};
    for (const attr of rest) {
      const [k, ...v] = attr.split('=');
      attributes[k!.toLowerCase()] = v.length ? v.join('=') : true;
    }
    return { value: decodeURIComponent(value.join('=')), attributes };
  }
  return undefined;
}

/** Asserts the error envelope with this status and code; the body reads as ErrorBody after it. */
function assertError(res: Response<unknown>, status: number, code: string, label = ''): asserts res is Response<ErrorBody> {
  assert.equal(res.status, status, `${label} ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), `${label} ${res.text}`);
  assert.equal(res.body.code, code, label);
}

describe('local accounts', () => {
  const server = useServer({ AUTH_LOGIN_PER_MINUTE: '1000' });
  const signup = (body: unknown, headers: Record<string, string> = {}) =>
    server.request<Session>('POST', '/v1/auth/signup', { body, headers });
  const login = (body: unknown, headers: Record<string, string> = {}) =>
    server.request<Session>('POST', '/v1/auth/login', { body, headers });
  const refresh = (cookie?: string, headers: Record<string, string> = {}) =>
    server.request<Session>('POST', '/v1/auth/refresh', {
      headers: { ...(cookie === undefined ? {} : { cookie: `bw_refresh=${cookie}` }), ...headers },
    });

  test('GET /v1/auth/config says local accounts with sign-up, and whether a refresh cookie came with it', async () => {
    const res = await server.request<AuthConfigBody>('GET', '/v1/auth/config');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { mode: 'local', signup: true, session: false });
    const withCookie = await server.request<AuthConfigBody>('GET', '/v1/auth/config', { headers: { cookie: 'bw_refresh=anything' } });
    assert.deepEqual(withCookie.body, { mode: 'local', signup: true, session: true });
  });

  test('sign-up answers a session and the refresh cookie with the contract attributes; the email is normalised', async () => {
    const address = email('signup');
    const res = await signup({ email: `  ${address} `, password: PASSWORD });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'token_type', 'user']);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 900);
    assert.equal(res.body.user.email, address.toLowerCase());
    assert.match(res.body.user.id, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const cookie = refreshCookie(res);
    assert.ok(cookie, 'bw_refresh cookie set');
    assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(cookie.attributes.httponly, true);
    assert.equal(cookie.attributes.samesite, 'Strict');
    assert.equal(cookie.attributes.path, '/v1/auth');
    assert.equal(cookie.attributes['max-age'], String(30 * 24 * 60 * 60));
    // Plain http without an https PUBLIC_BASE_URL: not Secure (the browser would drop it on http).
    assert.equal(cookie.attributes.secure, undefined);
    // The access token is the service's own: ES256, its issuer, the user as subject, 900 s.
    const [header, payload] = res.body.access_token
      .split('.')
      .slice(0, 2)
      .map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'at+jwt');
    assert.equal(payload.iss, 'board-workspace');
    assert.equal(payload.sub, res.body.user.id);
    assert.equal(payload.exp - payload.iat, 900);
  });

  test('what is stored: an scrypt hash with its parameters, and only the SHA-256 of refresh tokens', async () => {
    const res = await signup({ email: email('stored'), password: PASSWORD });
    const account = await server.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('user_id', '=', res.body.user.id)
      .executeTakeFirstOrThrow();
    // At the cost the suite runs with (AUTH_SCRYPT_COST, helpers/compiled.ts); production's is checked below.
    const ln = server.config.scryptCost;
    assert.match(account.password_hash, new RegExp(`^\\$scrypt\\$ln=${ln},r=8,p=3\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`));
    assert.ok(!account.password_hash.includes(PASSWORD));
    const raw = refreshCookie(res)!.value;
    const rows = await server.database.db
      .selectFrom('refresh_tokens')
      .select('token_hash')
      .where('user_id', '=', res.body.user.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.token_hash),
      [createHash('sha256').update(raw).digest('hex')],
    );
  });

  test('a duplicate email is 409, also in another case or with spaces', async () => {
    const address = email('dup');
    assert.equal((await signup({ email: address, password: PASSWORD })).status, 201);
    for (const again of [address, address.toUpperCase(), ` ${address.toLowerCase()}\t`]) {
      const res = await signup({ email: again, password: 'another password' });
      assertError(res, 409, 'conflict', again);
      assert.match(res.body.message, /already exists/);
      assert.equal(refreshCookie(res), undefined);
    }
    const count = await server.database.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('email', '=', address.toLowerCase())
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  test('validation errors are 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ password: PASSWORD }, /email/],
      [{ email: email() }, /password/],
      [{ email: email(), password: 'short' }, /password/],
      [{ email: email(), password: 'x'.repeat(257) }, /password/],
      [{ email: 'not an email', password: PASSWORD }, /email/],
      [{ email: 'a@b', password: PASSWORD }, /email/],
      [{ email: `${'x'.repeat(250)}@example.test`, password: PASSWORD }, /email/],
      [{ email: 42, password: PASSWORD }, /email/],
      [{ email: email(), password: PASSWORD, admin: true }, /admin/],
    ];
    for (const [body, field] of cases) {
      const res = await signup(body);
      assertError(res, 400, 'invalid_request', JSON.stringify(body).slice(0, 80));
      assert.match(res.body.message, field);
    }
    assertError(await login({ email: email() }), 400, 'invalid_request');
    assertError(await login({ email: email(), password: '' }), 400, 'invalid_request');
  });

  test('login: right password works (email in any case); a wrong password and an unknown email get the same 401', async () => {
    const address = email('login');
    const created = await signup({ email: address, password: PASSWORD });
    const ok = await login({ email: address.toUpperCase(), password: PASSWORD });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.user.id, created.body.user.id);
    assert.equal(ok.body.user.email, address.toLowerCase());
    assert.ok(refreshCookie(ok));
    const wrong = await login({ email: address, password: `${PASSWORD}!` });
    const unknown = await login({ email: email('nobody'), password: PASSWORD });
    const malformed = await login({ email: 'not-an-email', password: PASSWORD });
    for (const res of [wrong, unknown, malformed]) {
      assertError(res, 401, 'unauthorized');
      assert.equal(res.body.message, 'Email or password is incorrect');
      assert.equal(refreshCookie(res), undefined);
    }
  });

  test('a login with a hash of older (weaker) parameters upgrades the stored hash', async () => {
    const address = email('rehash');
    const created = await signup({ email: address, password: PASSWORD });
    const ln = server.config.scryptCost;
    const weak = await hashPassword(PASSWORD, { ln: ln - 1, r: 8, p: 1 });
    await server.database.db.updateTable('accounts').set({ password_hash: weak }).where('user_id', '=', created.body.user.id).execute();
    assert.equal((await login({ email: address, password: PASSWORD })).status, 200);
    const row = await server.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('user_id', '=', created.body.user.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, new RegExp(`^\\$scrypt\\$ln=${ln},r=8,p=3\\$`));
    assert.equal((await login({ email: address, password: PASSWORD })).status, 200);
  });

  test('a hash of stronger parameters than the setting signs in and is kept as it is', async () => {
    const address = email('strong');
    const created = await signup({ email: address, password: PASSWORD });
    const strong = await hashPassword(PASSWORD, { ln: server.config.scryptCost + 1, r: 8, p: 3 });
    await server.database.db.updateTable('accounts').set({ password_hash: strong }).where('user_id', '=', created.body.user.id).execute();
    assert.equal((await login({ email: address, password: PASSWORD })).status, 200);
    assertError(await login({ email: address, password: `${PASSWORD}!` }), 401, 'unauthorized');
    const row = await server.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('user_id', '=', created.body.user.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.password_hash, strong);
  });

  test('the access token works on /v1/boards and /v1/me; users see only their own boards', async () => {
    const a = await signup({ email: email('alice'), password: PASSWORD });
    const b = await signup({ email: email('bob'), password: PASSWORD });
    const me = await server.request<MeBody>('GET', '/v1/me', { token: a.body.access_token });
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(me.body, { id: a.body.user.id, email: a.body.user.email, auth: 'jwt', scopes: ['read', 'write', 'admin'] });
    const board = await server.request<BoardBody>('POST', '/v1/boards', { token: a.body.access_token, body: { name: 'Alice private' } });
    assert.equal(board.status, 201, board.text);
    const own = await server.request<BoardList>('GET', '/v1/boards', { token: a.body.access_token });
    assert.deepEqual(
      own.body.data.map((x) => x.id),
      [board.body.data.id],
    );
    // Bob: not in his list, 404 by id, cannot write to it.
    const list = await server.request<BoardList>('GET', '/v1/boards', { token: b.body.access_token });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    assertError(await server.request('GET', `/v1/boards/${board.body.data.id}`, { token: b.body.access_token }), 404, 'not_found');
    assertError(
      await server.request('PATCH', `/v1/boards/${board.body.data.id}`, { token: b.body.access_token, body: { name: 'mine' } }),
      404,
      'not_found',
    );
    // An API key made with the token belongs to the same user, and /v1/me says so.
    const key = await server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', {
      token: a.body.access_token,
      body: { name: 'web', scopes: ['read'] },
    });
    assert.equal(key.status, 201, key.text);
    const viaKey = await server.request<MeBody>('GET', '/v1/me', { token: key.body.data.raw_key });
    assert.deepEqual(viaKey.body, { id: a.body.user.id, email: a.body.user.email, auth: 'api_key', scopes: ['read'] });
  });

  test('refresh rotates the cookie; reusing a rotated token revokes the whole sign-in', async () => {
    const start = await signup({ email: email('rotate'), password: PASSWORD });
    const first = refreshCookie(start)!.value;
    const r1 = await refresh(first);
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.body.user.id, start.body.user.id);
    assert.equal(r1.headers.get('cache-control'), 'no-store');
    const second = refreshCookie(r1)!.value;
    assert.notEqual(second, first);
    assert.equal((await server.request('GET', '/v1/boards', { token: r1.body.access_token })).status, 200);
    const r2 = await refresh(second);
    assert.equal(r2.status, 200, r2.text);
    const third = refreshCookie(r2)!.value;
    // A thief replays the first token after the reuse window (its first use a minute ago): refused,
    // and every token of the sign-in is revoked.
    await server.database.db
      .updateTable('refresh_tokens')
      .set({ used_at: new Date(Date.now() - 60_000) })
      .where('token_hash', '=', createHash('sha256').update(first).digest('hex'))
      .execute();
    const reuse = await refresh(first);
    assertError(reuse, 401, 'unauthorized');
    assert.match(reuse.body.message, /already used/);
    assert.equal(refreshCookie(reuse)?.value, '', 'the failed refresh clears the cookie');
    assertError(await refresh(third), 401, 'unauthorized', 'latest token after reuse');
    // Another sign-in of the same user is a separate family and unaffected.
    const other = await login({ email: start.body.user.email, password: PASSWORD });
    assert.equal((await refresh(refreshCookie(other)!.value)).status, 200);
  });

  test('within the reuse window a spent token refreshes again (a reload mid-refresh, two tabs at once)', async () => {
    const start = await signup({ email: email('race'), password: PASSWORD });
    const token = refreshCookie(start)!.value;
    // Two tabs opening at once send the same cookie: both stay signed in, each with a token of its own.
    const both = await Promise.all([refresh(token), refresh(token)]);
    assert.deepEqual(
      both.map((r) => r.status),
      [200, 200],
      both.map((r) => r.text).join('\n'),
    );
    const [a, b] = both.map((r) => refreshCookie(r)!.value);
    assert.notEqual(a, b);
    // The page reloaded before the first answer arrived: the old cookie once more, still signed in.
    const reload = await refresh(token);
    assert.equal(reload.status, 200, reload.text);
    for (const next of [a!, b!, refreshCookie(reload)!.value]) assert.equal((await refresh(next)).status, 200);
  });

  test('refresh without, or with a malformed or unknown, cookie is 401', async () => {
    assertError(await refresh(), 401, 'unauthorized', 'no cookie');
    assertError(await refresh('garbage'), 401, 'unauthorized', 'garbage');
    assertError(await refresh(randomBytes(32).toString('base64url')), 401, 'unauthorized', 'unknown');
  });

  test('an expired refresh token is 401', async () => {
    const start = await signup({ email: email('expired'), password: PASSWORD });
    await server.database.db
      .updateTable('refresh_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', start.body.user.id)
      .execute();
    const res = await refresh(refreshCookie(start)!.value);
    assertError(res, 401, 'unauthorized');
    assert.match(res.body.message, /expired/);
  });

  test('logout revokes the sign-in and clears the cookie', async () => {
    const start = await signup({ email: email('logout'), password: PASSWORD });
    const token = refreshCookie(start)!.value;
    const rotated = refreshCookie(await refresh(token))!.value;
    const out = await server.request('POST', '/v1/auth/logout', { headers: { cookie: `bw_refresh=${rotated}` } });
    assert.equal(out.status, 204, out.text);
    assert.equal(out.text, '');
    const cleared = refreshCookie(out)!;
    assert.equal(cleared.value, '');
    assert.equal(cleared.attributes.path, '/v1/auth');
    assert.ok(
      cleared.attributes.expires === 'Thu, 01 Jan 1970 00:00:00 GMT' || cleared.attributes['max-age'] === '0',
      JSON.stringify(cleared.attributes),
    );
    assertError(await refresh(rotated), 401, 'unauthorized');
    // Logout without a cookie is fine too.
    assert.equal((await server.request('POST', '/v1/auth/logout')).status, 204);
  });

  test('expired, foreign-key and HS256 tokens claiming the local issuer are refused', async () => {
    const start = await signup({ email: email('forged'), password: PASSWORD });
    const sub = start.body.user.id;
    const key = await server.database.db.selectFrom('service_keys').select('private_jwk').executeTakeFirstOrThrow();
    const serviceKey = await importJWK(key.private_jwk as JWK, 'ES256');
    const nowSec = Math.floor(Date.now() / 1000);
    const local = (k: Parameters<SignJWT['sign']>[0], alg: string, exp: number, claims: Record<string, unknown> = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg, typ: 'at+jwt' })
        .setIssuer('board-workspace')
        .setAudience('board-workspace-api')
        .setSubject(sub)
        .setIssuedAt(nowSec - 1000)
        .setExpirationTime(exp)
        .sign(k);
    // Control: the service key with a valid exp works, so the rejections below are about what they change.
    assert.equal((await server.request('GET', '/v1/boards', { token: await local(serviceKey, 'ES256', nowSec + 60) })).status, 200);
    const cases: [string, string][] = [
      ['expired', await local(serviceKey, 'ES256', nowSec - 60)],
      ['another ES256 key', await local((await generateKeyPair('ES256')).privateKey, 'ES256', nowSec + 60)],
      ['HS256 with AUTH_JWT_SECRET', await local(new TextEncoder().encode(JWT_SECRET), 'HS256', nowSec + 60)],
      [
        'another audience',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
          .setIssuer('board-workspace')
          .setAudience('other')
          .setSubject(sub)
          .setIssuedAt()
          .setExpirationTime(nowSec + 60)
          .sign(serviceKey),
      ],
      [
        'not an access token (typ)',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
          .setIssuer('board-workspace')
          .setAudience('board-workspace-api')
          .setSubject(sub)
          .setIssuedAt()
          .setExpirationTime(nowSec + 60)
          .sign(serviceKey),
      ],
    ];
    for (const [label, token] of cases) assertError(await server.request('GET', '/v1/boards', { token }), 401, 'unauthorized', label);
  });

  test('cross-origin requests are refused; same-origin ones work', async () => {
    const start = await signup({ email: email('origin'), password: PASSWORD });
    const token = refreshCookie(start)!.value;
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
      assertError(await refresh(token, { origin }), 403, 'forbidden', origin);
      assertError(await login({ email: start.body.user.email, password: PASSWORD }, { origin }), 403, 'forbidden', origin);
    }
    assertError(await refresh(token, { 'sec-fetch-site': 'cross-site' }), 403, 'forbidden');
    // The refused attempts did not spend the token.
    const ok = await refresh(token, { origin: server.url, 'sec-fetch-site': 'same-origin' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(
      (
        await server.request('POST', '/v1/auth/logout', {
          headers: { origin: 'https://evil.example', cookie: `bw_refresh=${refreshCookie(ok)!.value}` },
        })
      ).status,
      403,
    );
  });

  test('sessions are never stored for Idempotency-Key: a retry signs in afresh', async () => {
    const address = email('idem');
    await signup({ email: address, password: PASSWORD });
    const key = `login-${randomBytes(4).toString('hex')}`;
    const one = await login({ email: address, password: PASSWORD }, { 'idempotency-key': key });
    const two = await login({ email: address, password: PASSWORD }, { 'idempotency-key': key });
    assert.equal(one.status, 200);
    assert.equal(two.status, 200);
    assert.equal(two.headers.get('idempotent-replayed'), null);
    assert.notEqual(refreshCookie(one)!.value, refreshCookie(two)!.value);
    const stored = await server.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
    assert.deepEqual(stored, []);
  });
});

/** A request from a chosen loopback source address (127.0.0.x), to be another client IP. */
function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const data = options.body === undefined ? '' : JSON.stringify(options.body);
    const headers = {
      ...options.headers,
      ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}),
    };
    const req = http.request(url, { method: options.method ?? 'GET', localAddress, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const postFrom = (localAddress: string, url: string, body: unknown, headers?: Record<string, string>) =>
  requestFrom(localAddress, url, { method: 'POST', body, headers });

describe('refresh tokens without a reuse window (AUTH_REFRESH_REUSE_SECONDS=0)', () => {
  const server = useServer({ AUTH_LOGIN_PER_MINUTE: '1000', AUTH_REFRESH_REUSE_SECONDS: '0' });
  const refresh = (cookie: string) => server.request<Session>('POST', '/v1/auth/refresh', { headers: { cookie: `bw_refresh=${cookie}` } });

  test('two concurrent refreshes with one token: one wins, the other is reuse and revokes the sign-in', async () => {
    const start = await server.request<Session>('POST', '/v1/auth/signup', { body: { email: email('race0'), password: PASSWORD } });
    assert.equal(start.status, 201, start.text);
    const results = await Promise.all([refresh(refreshCookie(start)!.value), refresh(refreshCookie(start)!.value)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 401]);
    const winner = results.find((r) => r.status === 200)!;
    assertError(await refresh(refreshCookie(winner)!.value), 401, 'unauthorized', "the winner's token after the reuse");
  });

  test('a token spent by an instance whose clock runs ahead is reuse too, not a refresh', async () => {
    // The race above, made certain: the first refresh's clock reading later than the second's.
    const start = await server.request<Session>('POST', '/v1/auth/signup', { body: { email: email('ahead'), password: PASSWORD } });
    assert.equal(start.status, 201, start.text);
    const raw = refreshCookie(start)!.value;
    await server.database.db
      .updateTable('refresh_tokens')
      .set({ used_at: new Date(Date.now() + 2000) })
      .where('token_hash', '=', createHash('sha256').update(raw).digest('hex'))
      .execute();
    assertError(await refresh(raw), 401, 'unauthorized', 'a spent token with no reuse window');
  });
});

describe('password hashes at the production cost (AUTH_SCRYPT_COST unset)', () => {
  // The suite's servers hash at a low cost (helpers/compiled.ts); this one at the default.
  const server = useServer({ AUTH_SCRYPT_COST: '' });

  test('sign-up stores N=2^15, r=8, p=3; a hash of the lower cost the suite uses signs in and is upgraded', async () => {
    assert.equal(server.config.scryptCost, 15);
    const address = email('production');
    const res = await server.request<Session>('POST', '/v1/auth/signup', { body: { email: address, password: PASSWORD } });
    assert.equal(res.status, 201, res.text);
    const stored = () =>
      server.database.db.selectFrom('accounts').select('password_hash').where('user_id', '=', res.body.user.id).executeTakeFirstOrThrow();
    assert.match((await stored()).password_hash, /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const low = await hashPassword(PASSWORD, { ln: 10, r: 8, p: 3 });
    await server.database.db.updateTable('accounts').set({ password_hash: low }).where('user_id', '=', res.body.user.id).execute();
    const login = await server.request('POST', '/v1/auth/login', { body: { email: address, password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
    assert.match((await stored()).password_hash, /^\$scrypt\$ln=15,r=8,p=3\$/);
  });

  test('AUTH_SCRYPT_COST is validated: a whole number from 10 to 18', () => {
    assert.equal(loadConfig({}).scryptCost, 15);
    assert.equal(loadConfig({ AUTH_SCRYPT_COST: '10' }).scryptCost, 10);
    for (const bad of ['9', '19', '12.5', 'high', '-1']) {
      assert.throws(() => loadConfig({ AUTH_SCRYPT_COST: bad }), /AUTH_SCRYPT_COST must be/, bad);
    }
  });
});

describe('login rate limit and sign-up switch', () => {
  // Its own embedded database in the wire run (one connection to the shared one at a time).
  const server = useServer({
    DATABASE_URL: '',
    AUTH_LOGIN_PER_MINUTE: '3',
    AUTH_LOCAL_SIGNUP: 'false',
    PUBLIC_BASE_URL: 'https://boards.example.test',
  });

  test('AUTH_LOCAL_SIGNUP=false: the config says so and sign-up is 403; existing accounts still sign in', async () => {
    assert.deepEqual((await server.request<AuthConfigBody>('GET', '/v1/auth/config')).body, {
      mode: 'local',
      signup: false,
      session: false,
    });
    assertError(await server.request('POST', '/v1/auth/signup', { body: { email: email(), password: PASSWORD } }), 403, 'forbidden');
    const account = await new AccountService({ db: server.database.db }).signUp(email('existing'), PASSWORD);
    // The public base URL is https: the cookie is Secure, and that origin is the server's own.
    const res = await server.request('POST', '/v1/auth/login', {
      body: { email: account.email, password: PASSWORD },
      headers: { origin: 'https://boards.example.test' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(refreshCookie(res)!.attributes.secure, true);
  });

  test('per IP: the 4th attempt in a minute is 429 with Retry-After', async () => {
    const url = `${server.url}/v1/auth/login`;
    for (let i = 0; i < 3; i++) {
      const res = await postFrom('127.0.0.2', url, { email: email('ip'), password: PASSWORD });
      assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    const limited = await postFrom('127.0.0.2', url, { email: email('ip'), password: PASSWORD });
    assert.equal(limited.status, 429);
    assert.ok(isErrorEnvelope(limited.body, 429));
    assert.equal(limited.body.code, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // Another client IP is not affected.
    assert.equal((await postFrom('127.0.0.3', url, { email: email('ip'), password: PASSWORD })).status, 401);
  });
});

describe('behind a reverse proxy (TRUST_PROXY)', () => {
  const server = useServer({ DATABASE_URL: '', AUTH_LOGIN_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' });

  test('the client address comes from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const url = `${server.url}/v1/auth/login`;
    const attempt = (peer: string, forwardedFor: string) =>
      postFrom(peer, url, { email: email('proxy'), password: 'guess' }, { 'x-forwarded-for': forwardedFor });
    // Through the proxy (127.0.0.1): each forwarded client has its own limit.
    for (let i = 0; i < 2; i++) assert.equal((await attempt('127.0.0.1', '203.0.113.1')).status, 401);
    assert.equal((await attempt('127.0.0.1', '203.0.113.1')).status, 429);
    assert.equal((await attempt('127.0.0.1', '203.0.113.2')).status, 401);
    // From any other peer the header is ignored: its own address is limited, whatever it claims.
    for (let i = 0; i < 2; i++) assert.equal((await attempt('127.0.0.9', `198.51.100.${i}`)).status, 401);
    assert.equal((await attempt('127.0.0.9', '198.51.100.7')).status, 429);
  });

  test("asset urls use the proxy's X-Forwarded-Proto and -Host, and only a trusted peer's", async () => {
    const user = await server.user();
    const boardId = await server.makeBoard(user);
    await uploadFile(server, user, boardId, PNG, 'pixel.png', 'image/png');
    const listUrl = (peer: string) =>
      requestFrom(peer, `${server.url}/v1/boards/${boardId}/assets`, {
        headers: { authorization: `Bearer ${user.token}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'boards.example.test' },
      }).then((res) => (res.body as AssetList).data[0]!.url);
    assert.match(await listUrl('127.0.0.1'), /^https:\/\/boards\.example\.test\/v1\/files\//);
    assert.ok((await listUrl('127.0.0.9')).startsWith(`${server.url}/v1/files/`));
  });
});

test('TRUST_PROXY: addresses, CIDR ranges and named ranges are accepted, anything else stops the start', () => {
  assert.equal(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, loopback,::1 ' }).trustProxy, '10.0.0.0/8,loopback,::1');
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({}).trustProxy, false);
  for (const bad of ['2', 'nginx', '10.0.0.0/33', '10.0.0.1/8/1', 'fe80::/129']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY must be/, bad);
  }
});

describe('login rate limit shared through Redis', { skip: redisAvailable() ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let one: TestServer;
  let two: TestServer;

  before(async () => {
    redis = await startRedis();
    const env = { DATABASE_URL: '', AUTH_LOGIN_PER_MINUTE: '3', REDIS_URL: redis.url };
    one = await startServer(env);
    two = await startServer(env);
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await redis?.stop();
  });

  test("one address's attempts on two instances count together", async () => {
    const target = email('shared');
    assert.equal((await postFrom('127.0.0.8', `${one.url}/v1/auth/login`, { email: target, password: 'guess' })).status, 401);
    assert.equal((await postFrom('127.0.0.8', `${two.url}/v1/auth/login`, { email: target, password: 'guess' })).status, 401);
    assert.equal((await postFrom('127.0.0.8', `${one.url}/v1/auth/login`, { email: target, password: 'guess' })).status, 401);
    assert.equal((await postFrom('127.0.0.8', `${two.url}/v1/auth/login`, { email: target, password: 'guess' })).status, 429);
  });
});
