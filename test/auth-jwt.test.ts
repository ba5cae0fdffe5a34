// JWT authentication: HS256 with AUTH_JWT_SECRET, RS256 and ES256 against a JWKS (a fake identity
// provider on loopback), issuer and audience checks, users created on first sight (also for subjects
// that are not UUIDs), and every kind of bad token answered with 401 and the error envelope.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT, type JWTPayload } from 'jose';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { newId } from '../src/lib/ids.js';
import type { ApiKeyCreated, BoardBody, BoardList, ErrorBody } from './helpers/api-types.js';
import { JWT_SECRET, startServer, type Response, type TestServer } from './helpers/harness.js';
import { startJwksServer, type JwksServer } from './helpers/jwks-server.js';

const nowSec = () => Math.floor(Date.now() / 1000);

interface HsOptions {
  sub?: string;
  exp?: number | null;
  nbf?: number;
  secret?: string | Uint8Array;
  claims?: JWTPayload;
  header?: Record<string, string>;
}

/** An HS256 token; by default valid for the test server's AUTH_JWT_SECRET. */
function hs(options: HsOptions = {}): Promise<string> {
  const jwt = new SignJWT({ ...(options.claims ?? {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...(options.header ?? {}) })
    .setIssuedAt();
  if (options.sub !== undefined) jwt.setSubject(options.sub);
  const exp = options.exp === undefined ? nowSec() + 600 : options.exp;
  if (exp !== null) jwt.setExpirationTime(exp);
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  const secret = options.secret ?? JWT_SECRET;
  return jwt.sign(typeof secret === 'string' ? new TextEncoder().encode(secret) : secret);
}

function assertUnauthorized(res: Response<ErrorBody>, label: string): void {
  assert.equal(res.status, 401, `${label}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message', 'object', 'status'], label);
  assert.equal(res.body.object, 'error', label);
  assert.equal(res.body.status, 401, label);
  assert.equal(res.body.code, 'unauthorized', label);
  assert.equal(typeof res.body.message, 'string', label);
}

/** Flips one character in the middle of the signature, keeping it valid base64url. */
function breakSignature(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const i = Math.floor(s.length / 2);
  return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
}

describe('JWTs with AUTH_JWT_SECRET and AUTH_JWKS_URL', () => {
  let jwks: JwksServer;
  let server: TestServer;

  before(async () => {
    jwks = await startJwksServer();
    server = await startServer({ AUTH_JWKS_URL: jwks.url });
  });
  after(async () => {
    await server?.close();
    await jwks?.close();
  });

  test('HS256 works, with every scope', async () => {
    const alice = await server.user();
    const token = await alice.jwt();
    assert.equal((await server.request('GET', '/v1/boards', { token })).status, 200);
    const key = await server.request<ApiKeyCreated>('POST', '/v1/me/api-keys', { token, body: { name: 'from a JWT', scopes: ['read'] } });
    assert.equal(key.status, 201, key.text);
  });

  test('a new subject becomes a user on first sight, the same user an API key for that uuid has', async () => {
    const sub = newId();
    const board = await server.request<BoardBody>('POST', '/v1/boards', { token: await hs({ sub }), body: { name: 'first sight' } });
    assert.equal(board.status, 201, board.text);
    const users = await server.database.db.selectFrom('users').select(['id', 'subject']).where('subject', '=', sub).execute();
    assert.deepEqual(users, [{ id: sub, subject: sub }]);
    const key = await new ApiKeyService({ db: server.database.db, env: 'test' }).createForSubject(sub, { name: 'k', scopes: ['read'] });
    const seen = await server.request<BoardBody>('GET', `/v1/boards/${board.body.data.id}`, { token: key.raw_key });
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.data.name, 'first sight');
    const list = await server.request<BoardList>('GET', '/v1/boards', { token: key.raw_key });
    assert.deepEqual(
      list.body.data.map((b) => b.id),
      [board.body.data.id],
    );
  });

  test('RS256 and ES256 tokens verified against the JWKS are one user per sub', async () => {
    const sub = newId();
    const rs = await jwks.sign('RS256', { sub });
    const es = await jwks.sign('ES256', { sub });
    const board = await server.request<BoardBody>('POST', '/v1/boards', { token: rs, body: { name: 'rs' } });
    assert.equal(board.status, 201, board.text);
    const seen = await server.request<BoardBody>('GET', `/v1/boards/${board.body.data.id}`, { token: es });
    assert.equal(seen.status, 200, seen.text);
    assert.ok(jwks.fetches() >= 1);
  });

  test('a sub that is not a UUID is a stable user', async () => {
    const sub = `auth0|${randomBytes(6).toString('hex')}`;
    const board = await server.request<BoardBody>('POST', '/v1/boards', {
      token: await jwks.sign('RS256', { sub }),
      body: { name: 'auth0 user' },
    });
    assert.equal(board.status, 201, board.text);
    // Another token for the same subject, another algorithm, is the same user.
    const again = await server.request('GET', `/v1/boards/${board.body.data.id}`, { token: await hs({ sub }) });
    assert.equal(again.status, 200, again.text);
    const other = await server.request('GET', `/v1/boards/${board.body.data.id}`, { token: await hs({ sub: `${sub}x` }) });
    assert.equal(other.status, 404);
    const users = await server.database.db.selectFrom('users').select('subject').where('subject', '=', sub).execute();
    assert.equal(users.length, 1);
  });

  test('bad tokens are 401 with the error envelope', async () => {
    const sub = newId();
    const valid = await hs({ sub });
    const [, validPayload] = valid.split('.');
    const otherPayload = Buffer.from(JSON.stringify({ sub: newId(), exp: nowSec() + 600 })).toString('base64url');
    const cases: [string, string | Promise<string>][] = [
      ['alg none (unsigned)', new UnsecuredJWT({}).setSubject(sub).setIssuedAt().setExpirationTime('10m').encode()],
      [
        'alg none with a signature part',
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${validPayload}.${valid.split('.')[2]}`,
      ],
      ['HS256 signed with the RSA public key PEM', hs({ sub, secret: jwks.rsaPublicPem, header: { kid: 'rsa-1' } })],
      ['HS256 signed with the RSA public JWK', hs({ sub, secret: JSON.stringify(jwks.rsaPublicJwk), header: { kid: 'rsa-1' } })],
      ['HS256 with another secret', hs({ sub, secret: 'another-secret-that-is-at-least-32-bytes!!' })],
      ['HS256 bad signature', breakSignature(valid)],
      ['HS256 payload swapped', `${valid.split('.')[0]}.${otherPayload}.${valid.split('.')[2]}`],
      ['RS256 bad signature', jwks.sign('RS256', { sub }).then(breakSignature)],
      ['RS256 signed by a key the JWKS does not hold', jwks.sign('RS256', { sub, foreignKey: true })],
      ['ES256 signed by a key the JWKS does not hold', jwks.sign('ES256', { sub, foreignKey: true })],
      ['HS256 expired', hs({ sub, exp: nowSec() - 60 })],
      ['RS256 expired', jwks.sign('RS256', { sub, expiresIn: -60 })],
      ['not yet valid (nbf in the future)', hs({ sub, nbf: nowSec() + 3600 })],
      ['HS256 without exp', hs({ sub, exp: null })],
      ['RS256 without exp', jwks.sign('RS256', { sub, expiresIn: null })],
      ['without sub', hs()],
      ['ES256 without sub', jwks.sign('ES256')],
      ['empty sub', hs({ sub: '' })],
      ['empty sub signed RS256', jwks.sign('RS256', { sub: '' })],
      ['sub of spaces', hs({ sub: '   ' })],
      ['sub of whitespace and zero-width characters', hs({ sub: '\t\n\u200b\u3000' })],
      ['sub with a NUL', hs({ sub: 'a\u0000b' })],
      ['sub with a control character', hs({ sub: `${sub}\u001b` })],
      ['sub that is a number', hs({ claims: { sub: 42 as unknown as string } })],
      ['sub longer than 255 characters', hs({ sub: 'x'.repeat(256) })],
      ['garbage', 'garbage'],
      ['three garbage parts', 'a.b.c'],
      ['two parts', valid.split('.').slice(0, 2).join('.')],
      ['only dots', '..'],
      ['header that is not JSON', `${Buffer.from('nope').toString('base64url')}.${validPayload}.AAAA`],
      ['unknown API key', `bwk_test_${randomBytes(32).toString('base64url')}`],
      ['malformed API key', 'bwk_test_short'],
      ['a key of another environment', `bwk_prod_${randomBytes(32).toString('base64url')}`],
    ];
    for (const [label, token] of cases) {
      assertUnauthorized(await server.request<ErrorBody>('GET', '/v1/boards', { token: await token }), label);
    }
    // The same valid token still works: the rejections above are about the tokens, not the user.
    assert.equal((await server.request('GET', '/v1/boards', { token: valid })).status, 200);
  });
});

describe('JWTs with a JWKS only, and AUTH_ISSUER and AUTH_AUDIENCE', () => {
  const issuer = 'https://idp.example.test/';
  const audience = 'board-workspace';
  let jwks: JwksServer;
  let server: TestServer;

  before(async () => {
    jwks = await startJwksServer();
    server = await startServer({ AUTH_JWT_SECRET: '', AUTH_JWKS_URL: jwks.url, AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience });
  });
  after(async () => {
    await server?.close();
    await jwks?.close();
  });

  test('a token from the issuer for the audience works', async () => {
    for (const alg of ['RS256', 'ES256'] as const) {
      const res = await server.request('GET', '/v1/boards', { token: await jwks.sign(alg, { sub: newId(), issuer, audience }) });
      assert.equal(res.status, 200, `${alg}: ${res.text}`);
    }
  });

  test('issuer and audience are enforced', async () => {
    const sub = newId();
    const cases: [string, Promise<string>][] = [
      ['no issuer', jwks.sign('RS256', { sub, audience })],
      ['another issuer', jwks.sign('RS256', { sub, issuer: 'https://evil.example.test/', audience })],
      ['no audience', jwks.sign('RS256', { sub, issuer })],
      ['another audience', jwks.sign('ES256', { sub, issuer, audience: 'another-api' })],
    ];
    for (const [label, token] of cases) {
      assertUnauthorized(await server.request<ErrorBody>('GET', '/v1/boards', { token: await token }), label);
    }
  });

  test('without AUTH_JWT_SECRET, HS256 is refused, including algorithm confusion with the public key', async () => {
    const sub = newId();
    const claims = { iss: issuer, aud: audience };
    const cases: [string, Promise<string>][] = [
      ['HS256 with the harness secret', hs({ sub, claims })],
      ['HS256 signed with the RSA public key PEM', hs({ sub, claims, secret: jwks.rsaPublicPem, header: { kid: 'rsa-1' } })],
      ['HS256 signed with the RSA public JWK', hs({ sub, claims, secret: JSON.stringify(jwks.rsaPublicJwk), header: { kid: 'rsa-1' } })],
      ['unsigned', Promise.resolve(new UnsecuredJWT(claims).setSubject(sub).setExpirationTime('10m').encode())],
    ];
    for (const [label, token] of cases) {
      assertUnauthorized(await server.request<ErrorBody>('GET', '/v1/boards', { token: await token }), label);
    }
  });
});

describe('without any JWT configuration', () => {
  let jwks: JwksServer;
  let server: TestServer;

  before(async () => {
    jwks = await startJwksServer();
    server = await startServer({ AUTH_JWT_SECRET: '' });
  });
  after(async () => {
    await server?.close();
    await jwks?.close();
  });

  test('every JWT is refused; API keys still work', async () => {
    const alice = await server.user();
    assertUnauthorized(await server.request<ErrorBody>('GET', '/v1/boards', { token: await alice.jwt() }), 'HS256');
    assertUnauthorized(
      await server.request<ErrorBody>('GET', '/v1/boards', { token: await jwks.sign('RS256', { sub: alice.userId }) }),
      'RS256',
    );
    assert.equal((await server.request('GET', '/v1/boards', { token: alice.token })).status, 200);
  });
});
