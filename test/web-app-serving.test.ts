// The web app served at `/` from WEB_DIST_DIR (a temporary build made here, not the real vite
// build): files of the build with their caching, index.html for client-side routes, the API, /docs
// and missing files still JSON, the security headers (with the identity provider in connect-src
// when one is configured), and the page saying the app is not built when it is not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/lib/ids.js';
import { startFakeOidc, type FakeOidc } from './helpers/fake-oidc.js';
import type { HealthBody, OpenApiDocument } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, type Response, type TestServer } from './helpers/harness.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-4f2a9c.js"></script></head><body><div id="root" data-test="spa-index"></div></body></html>';
const SCRIPT = 'console.log("board workspace");';
const SOURCE_MAP = '{"version":3,"sources":["../src/secret-sauce.tsx"],"mappings":""}';

function makeDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-4f2a9c.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'assets', 'index-4f2a9c.js.map'), SOURCE_MAP);
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function csp(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((p) => p[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function assertIndex(res: Response, label: string): void {
  assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, label);
  assert.equal(res.text, INDEX, label);
  assert.equal(res.headers.get('cache-control'), 'no-cache', label);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', label);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', label);
  const policy = csp(res);
  assert.deepEqual(policy.get('default-src'), ["'self'"], label);
  assert.deepEqual(policy.get('script-src'), ["'self'"], label);
  assert.deepEqual(policy.get('style-src'), ["'self'", "'unsafe-inline'"], label);
  assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], label);
  // Video nodes play in YouTube's privacy-enhanced player or Vimeo's, and nothing else is framed.
  assert.deepEqual(policy.get('frame-src'), ['https://www.youtube-nocookie.com', 'https://player.vimeo.com'], label);
  for (const source of ["'self'", 'data:', 'blob:', 'https:'])
    assert.ok(policy.get('img-src')?.includes(source), `${label}: img-src ${source}`);
}

function assertJson404(res: Response, label: string): void {
  assert.equal(res.status, 404, `${label}: ${res.text.slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
  assert.ok(isErrorEnvelope(res.body, 404), label);
}

describe('a built web app', () => {
  let dist: string;
  let server: TestServer;

  before(async () => {
    dist = makeDist();
    server = await startServer({ WEB_DIST_DIR: dist });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('/ and client-side routes answer index.html with the security headers', async () => {
    for (const p of [
      '/',
      '/index.html',
      '/login',
      '/keys',
      `/boards/${newId()}`,
      '/auth/callback?code=abc&state=xyz',
      '/b/some-public-board/',
    ]) {
      assertIndex(await server.request('GET', p), p);
    }
    const head = await fetch(`${server.url}/boards/x`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^text\/html/);
  });

  test('hashed assets are served with a long immutable cache; other files are revalidated', async () => {
    const js = await server.request('GET', '/assets/index-4f2a9c.js');
    assert.equal(js.status, 200);
    assert.equal(js.text, SCRIPT);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(js.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(js.headers.get('etag'));
    const icon = await server.request('GET', '/favicon.svg');
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.equal(icon.headers.get('cache-control'), 'no-cache');
  });

  test('the API, the reference and missing files are not the app', async () => {
    assertJson404(await server.request('GET', '/v1/nothing-here'), '/v1 unknown');
    assertJson404(await server.request('GET', '/v1'), '/v1');
    assertJson404(await server.request('GET', '/assets/gone-123.js'), 'missing asset');
    assertJson404(await server.request('GET', '/robots.txt'), 'missing file');
    assertJson404(await server.request('POST', '/login', { body: {} }), 'POST to an app path');
    // An id past the router's parameter limit is still the API's 404 (not a 405, not the app).
    const user = await server.user();
    assertJson404(await server.request('GET', `/v1/boards/${'x'.repeat(2000)}`, { token: user.token }), 'overlong id');
    assertJson404(await server.request('GET', `/v1/boards/${'x'.repeat(2000)}/nodes`, { token: user.token }), 'overlong board id');
    const wrongMethod = await server.request('GET', `/v1/boards/${newId()}/duplicate`, { token: user.token });
    assert.equal(wrongMethod.status, 405, 'a POST-only API path is still 405 for GET');
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    const unauthorized = await server.request('GET', '/v1/boards');
    assert.equal(unauthorized.status, 401);
    assert.ok(isErrorEnvelope(unauthorized.body, 401));
    assert.equal((await server.request<HealthBody>('GET', '/healthz')).body.status, 'ok');
    assert.equal((await server.request('GET', '/v1/openapi.json')).status, 200);
    const docs = await fetch(`${server.url}/docs`, { redirect: 'manual' });
    assert.ok(docs.status === 200 || docs.status === 302, `/docs ${docs.status}`);
    assert.ok(!(await docs.text()).includes('spa-index'));
  });

  test('source maps are not served: the JSON 404 (WEB_SOURCE_MAPS is off by default)', async () => {
    for (const p of ['/assets/index-4f2a9c.js.map', '/assets/index-4f2a9c.js.map?v=1']) {
      const res = await server.request('GET', p);
      assertJson404(res, p);
      assert.ok(!res.text.includes('secret-sauce'), p);
    }
    assert.equal((await server.request('GET', '/assets/index-4f2a9c.js')).status, 200);
  });

  test('the API reference at /docs has a Content-Security-Policy and may not be framed', async () => {
    for (const p of ['/docs', '/docs/static/index.html']) {
      const res = await fetch(`${server.url}${p}`);
      const text = await res.text();
      assert.equal(res.status, 200, `${p}: ${text.slice(0, 200)}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, p);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', p);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', p);
      const policy = csp({ status: res.status, headers: res.headers, body: undefined, text });
      assert.deepEqual(policy.get('default-src'), ["'self'"], p);
      assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], p);
      assert.deepEqual(policy.get('object-src'), ["'none'"], p);
      assert.ok(policy.get('script-src')?.includes("'self'"), p);
      assert.ok(!policy.has('upgrade-insecure-requests'), `${p}: the page is served over http here`);
    }
  });

  test('nothing outside the build is reachable', async () => {
    for (const p of [
      '/..%2f..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/%2e%2e%2findex.html',
    ]) {
      const res = await server.request('GET', p);
      assert.ok(!res.text.includes('root:') && !res.text.includes('"dependencies"'), `${p}: ${res.status}`);
      assert.ok(res.status === 200 ? res.text === INDEX : res.status >= 400, `${p}: ${res.status}`);
    }
  });

  test('the app routes are not part of the API description', async () => {
    const doc = (await server.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    for (const p of Object.keys(doc.paths)) assert.match(p, /^\/(v1\/|healthz$)/, p);
  });
});

describe('a built web app with an identity provider', () => {
  let dist: string;
  let idp: FakeOidc;
  let server: TestServer;

  before(async () => {
    dist = makeDist();
    idp = await startFakeOidc();
    server = await startServer({
      DATABASE_URL: '',
      WEB_DIST_DIR: dist,
      AUTH_OIDC_ISSUER: idp.issuer,
      AUTH_OIDC_CLIENT_ID: idp.clientId,
      PUBLIC_BASE_URL: 'https://boards.example.test',
    });
  });
  after(async () => {
    await server?.close();
    await idp?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test("connect-src allows the provider's endpoints; img-src the public base URL", async () => {
    // Discovery has loaded once the config answers.
    assert.equal((await server.request('GET', '/v1/auth/config')).status, 200);
    const res = await server.request('GET', '/');
    assertIndex(res, '/');
    const policy = csp(res);
    assert.ok(policy.get('connect-src')?.includes("'self'"));
    assert.ok(policy.get('connect-src')?.includes(idp.issuer), JSON.stringify(policy.get('connect-src')));
    assert.ok(policy.get('img-src')?.includes('https://boards.example.test'));
    assert.ok(!policy.get('script-src')?.includes(idp.issuer));
  });
});

describe('without a build', () => {
  let empty: string;
  let server: TestServer;

  before(async () => {
    empty = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-web-empty-'));
    server = await startServer({ DATABASE_URL: '', WEB_DIST_DIR: empty });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(empty, { recursive: true, force: true });
  });

  test('/ says the web app is not built and how to build it; other paths stay 404', async () => {
    const res = await server.request('GET', '/');
    assert.equal(res.status, 503, res.text);
    assert.ok(isErrorEnvelope(res.body, 503));
    assert.match(res.body.message, /not built/);
    assert.match(res.body.message, /npm run build/);
    assertJson404(await server.request('GET', '/login'), '/login');
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});

describe('a built web app with WEB_SOURCE_MAPS=true', () => {
  let dist: string;
  let server: TestServer;

  before(async () => {
    dist = makeDist();
    server = await startServer({ WEB_DIST_DIR: dist, WEB_SOURCE_MAPS: 'true' });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('source maps are served when asked for', async () => {
    const res = await server.request('GET', '/assets/index-4f2a9c.js.map');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, SOURCE_MAP);
  });
});
