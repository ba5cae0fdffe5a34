// Scopes on every route of the app, read from the OpenAPI document so that new routes are covered
// without touching this file: GET (and presence, and marking comments read) needs read, POST/PATCH/DELETE need write, /v1/me/api-keys*
// and /v1/webhooks* need admin (scopes nest: admin > write > read); a missing scope is 403 before any lookup; no token or
// another scheme is 401; routes documented with `security: []` need nothing.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Scope } from '../src/auth/principal.js';
import { newId } from '../src/lib/ids.js';
import type { ErrorBody, OpenApiDocument } from './helpers/api-types.js';
import { isErrorEnvelope, type Response, useServer } from './helpers/harness.js';

interface Operation {
  method: string;
  path: string;
  public: boolean;
}

const rank: Record<Scope, number> = { read: 0, write: 1, admin: 2 };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function requiredScope(op: Operation): Scope {
  if (op.path.startsWith('/v1/me/api-keys') || op.path.startsWith('/v1/webhooks')) return 'admin';
  // Presence is announced by anyone who may read the board.
  if (op.path.includes('/presence')) return 'read';
  // So is marking comments read (a reader's own mark).
  if (op.path.endsWith('/comments/read')) return 'read';
  // MCP: a read key connects and is offered the read tools only (test/mcp.test.ts).
  if (op.path === '/v1/mcp') return 'read';
  return op.method === 'GET' ? 'read' : 'write';
}

/** Path parameters become random UUIDs: the scope check comes before any lookup. */
const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, () => newId());

function assertEnvelope(res: Response, status: number, code: string, label: string): asserts res is Response<ErrorBody> {
  assert.equal(res.status, status, `${label}: ${res.text}`);
  assert.ok(isErrorEnvelope(res.body, status), `${label}: not an error envelope: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message', 'object', 'status'], label);
  assert.equal(res.body.object, 'error', label);
  assert.equal(res.body.status, status, label);
  assert.equal(res.body.code, code, label);
}

const server = useServer();
let operations: Operation[];
const tokens = {} as Record<'read' | 'write' | 'admin' | 'jwt', string>;

before(async () => {
  const user = await server.user();
  tokens.read = (await user.keyWith(['read'])).raw_key;
  tokens.write = (await user.keyWith(['write'])).raw_key;
  tokens.admin = (await user.keyWith(['admin'])).raw_key;
  tokens.jwt = await user.jwt();
  const doc = await server.request<OpenApiDocument>('GET', '/v1/openapi.json');
  assert.equal(doc.status, 200);
  operations = [];
  for (const [path, item] of Object.entries(doc.body.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      operations.push({ method: method.toUpperCase(), path, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
});

describe('scopes on every route', () => {
  test('the OpenAPI document lists the routes this test is about', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    for (const expected of [
      'GET /v1/boards',
      'POST /v1/boards',
      'PATCH /v1/boards/{id}',
      'DELETE /v1/boards/{id}',
      'GET /v1/me/api-keys',
      'POST /v1/me/api-keys',
      'DELETE /v1/me/api-keys/{id}',
    ]) {
      assert.ok(names.includes(expected), `${expected} missing from the OpenAPI document`);
    }
    // A route without authentication is a deliberate choice: add it here when you add one.
    // /v1/files/…: asset files, protected by the random token in their url (docs/assets.md).
    // /v1/auth/…: signing in (docs/auth.md); the refresh token travels in a cookie, not a bearer token.
    assert.deepEqual(
      operations
        .filter((o) => o.public)
        .map((o) => o.path)
        .sort(),
      [
        '/healthz',
        '/v1/auth/config',
        '/v1/auth/login',
        '/v1/auth/logout',
        '/v1/auth/refresh',
        '/v1/auth/signup',
        '/v1/files/{path}',
        '/v1/openapi.json',
        '/v1/ping',
      ],
    );
  });

  test('each route against read, write and admin keys and a JWT', async () => {
    for (const op of operations.filter((o) => !o.public)) {
      const needed = requiredScope(op);
      const path = concrete(op.path);
      const body = op.method === 'POST' || op.method === 'PATCH' ? {} : undefined;
      for (const [principal, token] of Object.entries(tokens)) {
        const label = `${op.method} ${op.path} with ${principal}`;
        const res = await server.request(op.method, path, { token, body });
        const allowed = principal === 'jwt' || rank[principal as Scope] >= rank[needed];
        if (allowed) {
          assert.notEqual(res.status, 401, `${label}: ${res.text}`);
          assert.ok(
            !(res.status === 403 && isErrorEnvelope(res.body, 403) && /^Missing required scope/.test(res.body.message)),
            `${label}: ${res.text}`,
          );
        } else {
          assertEnvelope(res, 403, 'forbidden', label);
          assert.equal(res.body.message, `Missing required scope: ${needed}`, label);
        }
      }
    }
  });

  test('each route without a token, or with another scheme, is 401', async () => {
    const schemes: [string, Record<string, string>][] = [
      ['no header', {}],
      ['Basic', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
      ['Basic with an API key', { authorization: `Basic ${Buffer.from(`${tokens.admin}:`).toString('base64')}` }],
      ['the bare key without Bearer', { authorization: tokens.admin }],
      ['Bearer without a token', { authorization: 'Bearer ' }],
      ['Bearer with two tokens', { authorization: `Bearer ${tokens.admin} ${tokens.admin}` }],
      ['the key in another header', { 'x-api-key': tokens.admin }],
    ];
    for (const op of operations.filter((o) => !o.public)) {
      const methods = op.method === 'GET' ? ['GET', 'HEAD'] : [op.method];
      for (const method of methods) {
        for (const [scheme, headers] of schemes) {
          const body = method === 'POST' || method === 'PATCH' ? {} : undefined;
          const res = await server.request(method, concrete(op.path), { headers, body });
          const label = `${method} ${op.path} with ${scheme}`;
          if (method === 'HEAD') assert.equal(res.status, 401, label);
          else assertEnvelope(res, 401, 'unauthorized', label);
        }
      }
    }
  });

  test('public routes need nothing', async () => {
    // A file url without its token names nothing (test/assets.test.ts serves real ones); sign-in
    // routes without a body or cookie answer for that (test/accounts.test.ts signs in for real).
    const expected: Record<string, number> = {
      'GET /v1/files/{path}': 404,
      'POST /v1/auth/signup': 400,
      'POST /v1/auth/login': 400,
      'POST /v1/auth/refresh': 401,
      'POST /v1/auth/logout': 204,
    };
    for (const op of operations.filter((o) => o.public)) {
      const res = await server.request(op.method, concrete(op.path));
      assert.equal(res.status, expected[`${op.method} ${op.path}`] ?? 200, `${op.method} ${op.path}: ${res.text}`);
    }
    const docs = await server.request('GET', '/docs');
    assert.ok(docs.status === 200 || docs.status === 302, `/docs: ${docs.status}`);
  });
});
