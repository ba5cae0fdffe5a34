// The error envelope on every failure path: unknown routes, wrong methods, malformed and oversize
// bodies, wrong content types, bad ids, odd encodings. No answer may be a 5xx or leak internals,
// and the server keeps serving after each.
import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import type { BoardBody, ErrorBody } from './helpers/api-types.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;

before(async () => {
  alice = await server.user();
});

// Internals a message must never carry: stack frames, SQL, file paths. ("at " as a word: field
// names such as created_at contain "at " too.)
const LEAKS = [/(^|\s)at /, /\/work/, /SELECT/, /node_modules/, /\/tmp\//, /\.[jt]s:\d/];

/** Asserts the envelope with the given status (and code), no leaked internals, and that the server still answers. */
async function expectError(res: Response, status: number, code?: string): Promise<void> {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
  assert.ok(isErrorEnvelope(res.body, status), `not an error envelope: ${res.text.slice(0, 300)}`);
  if (code) assert.equal(res.body.code, code);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  for (const leak of LEAKS) assert.ok(!leak.test(res.body.message), `message leaks ${leak}: ${res.body.message}`);
  const health = await server.request('GET', '/healthz');
  assert.equal(health.status, 200);
}

/** Sends raw bytes as the body of an authenticated request. */
function rawRequest(
  method: string,
  path: string,
  body: Uint8Array<ArrayBuffer> | string | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.request(method, path, { token: alice.token, raw: body, headers });
}

describe('routing errors', () => {
  test('unknown route is 404 not_found, with or without a token', async () => {
    await expectError(await server.request('GET', '/v1/nothing-here'), 404, 'not_found');
    await expectError(await server.request('GET', '/v1/nothing-here', { token: alice.token }), 404, 'not_found');
    await expectError(await server.request('POST', '/nope', { body: { a: 1 } }), 404, 'not_found');
  });

  test('known path with a wrong method is 405 with an Allow header', async () => {
    const res = await server.request('PUT', '/v1/boards', { token: alice.token, body: { name: 'x' } });
    await expectError(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(/,\s*/).sort();
    assert.deepEqual(allow, ['GET', 'POST']);
    const byId = await server.request('PUT', '/v1/boards/0190a0b0-0000-7000-8000-000000000000', { token: alice.token });
    await expectError(byId, 405, 'method_not_allowed');
    assert.deepEqual((byId.headers.get('allow') ?? '').split(/,\s*/).sort(), ['DELETE', 'GET', 'PATCH']);
    await expectError(await server.request('DELETE', '/healthz'), 405, 'method_not_allowed');
  });

  test('a trailing slash names no route: 404, not 405', async () => {
    const boardId = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 's' } })).body.data.id;
    for (const [method, path] of [
      ['GET', `/v1/boards/${boardId}/`],
      ['PATCH', `/v1/boards/${boardId}/`],
      ['GET', '/v1/boards/'],
      ['POST', '/v1/boards/'],
      ['GET', `/v1/boards/${boardId}/nodes/`],
      ['GET', '/healthz/'],
    ]) {
      const res = await server.request<ErrorBody>(method!, path!, {
        token: alice.token,
        ...(method === 'GET' ? {} : { body: { name: 'x' } }),
      });
      await expectError(res, 404, 'not_found');
      assert.equal(res.headers.get('allow'), null, path);
    }
    // Without the slash, as before.
    assert.equal((await server.request('GET', `/v1/boards/${boardId}`, { token: alice.token })).status, 200);
  });

  test('a malformed uuid in the path is 404', async () => {
    for (const id of ['not-a-uuid', '123', '0190a0b0-0000-7000-8000-00000000000', '%00', '..%2F..%2Fetc', 'x'.repeat(2000)]) {
      await expectError(await server.request('GET', `/v1/boards/${id}`, { token: alice.token }), 404, 'not_found');
    }
    await expectError(await server.request('PATCH', '/v1/boards/nope', { token: alice.token, body: { name: 'x' } }), 404, 'not_found');
  });
});

describe('body errors', () => {
  test('malformed JSON is 400 invalid_request', async () => {
    for (const raw of ['{', '{"name": }', "{'name':'x'}", 'name=x', '{"name":"x"}}', '\u0000']) {
      const res = await server.request('POST', '/v1/boards', { token: alice.token, raw, headers: { 'content-type': 'application/json' } });
      await expectError(res, 400, 'invalid_request');
    }
  });

  test('a wrong Content-Type on a JSON route is 415', async () => {
    const body = JSON.stringify({ name: 'x' });
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'multipart/form-data; boundary=xyz',
      'application/x-www-form-urlencoded',
      'application/xml',
      'image/png',
    ]) {
      const res = await server.request('POST', '/v1/boards', { token: alice.token, raw: body, headers: { 'content-type': type } });
      await expectError(res, 415, 'unsupported_media_type');
    }
  });

  test('a body over 1 MiB is 413 payload_too_large', async () => {
    const res = await server.request('POST', '/v1/boards', { token: alice.token, body: { name: 'x', pad: 'y'.repeat(1024 * 1024 + 10) } });
    await expectError(res, 413, 'payload_too_large');
  });

  test('JSON that is not an object where one is expected is 400', async () => {
    for (const raw of ['[]', '[{"name":"x"}]', '"board"', 'null', '42', 'true']) {
      const res = await server.request('POST', '/v1/boards', { token: alice.token, raw, headers: { 'content-type': 'application/json' } });
      await expectError(res, 400, 'invalid_request');
    }
  });

  test('an empty body on a route that needs one is 400', async () => {
    for (const raw of ['', '   ']) {
      const res = await server.request('POST', '/v1/boards', { token: alice.token, raw, headers: { 'content-type': 'application/json' } });
      await expectError(res, 400, 'invalid_request');
    }
    const noType = await rawRequest('POST', '/v1/boards', undefined);
    await expectError(noType, 400, 'invalid_request');
    const emptyPatch = await server.request('PATCH', '/v1/boards/0190a0b0-0000-7000-8000-000000000000', { token: alice.token, body: {} });
    assert.ok(emptyPatch.status === 400 || emptyPatch.status === 404);
  });

  test('validation messages name the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /name/],
      [{ name: 42 }, /name/],
      [{ name: '' }, /name/],
      [{ name: 'x'.repeat(201) }, /name/],
      [{ name: 'x', is_public: 'yes' }, /is_public/],
      [{ name: 'x', viewport_x: '1' }, /viewport_x/],
      [{ name: 'x', viewport_zoom: -1 }, /viewport_zoom/],
      [{ name: 'x', public_access_level: 'admin' }, /public_access_level/],
      [{ name: 'x', colour: 'red' }, /colour/],
    ];
    for (const [body, field] of cases) {
      const res = await server.request<ErrorBody>('POST', '/v1/boards', { token: alice.token, body });
      await expectError(res, 400, 'invalid_request');
      assert.match(res.body.message, field, JSON.stringify(body));
    }
    const query = await server.request<ErrorBody>('GET', '/v1/boards?limit=abc', { token: alice.token });
    await expectError(query, 400, 'invalid_request');
    assert.match(query.body.message, /limit/);
    const unknownQuery = await server.request<ErrorBody>('GET', '/v1/boards?colour=red', { token: alice.token });
    await expectError(unknownQuery, 400, 'invalid_request');
    assert.match(unknownQuery.body.message, /colour/);
  });

  test('__proto__ and constructor keys do nothing bad', async () => {
    for (const raw of [
      '{"name":"x","__proto__":{"is_public":true}}',
      '{"__proto__":{"polluted":1},"name":"x"}',
      '{"name":"x","constructor":{"prototype":{"polluted":1}}}',
      '{"name":"x","constructor":"y"}',
    ]) {
      const res = await server.request('POST', '/v1/boards', { token: alice.token, raw, headers: { 'content-type': 'application/json' } });
      await expectError(res, 400, 'invalid_request');
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).is_public, undefined);
  });
});

describe('query integers', () => {
  test('are plain decimal digits: hex, spaces, signs, exponents and fractions are 400', async () => {
    const boardId = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'q' } })).body.data.id;
    const paths = [(v: string) => `/v1/boards?limit=${v}`, (v: string) => `/v1/boards/${boardId}/events?after=${v}`];
    for (const path of paths) {
      for (const value of ['0x10', '%205', '5%20', '+5', '1e1', '5.0', '0b1', '0o7', '', 'Infinity', '%E2%80%8A5']) {
        const res = await server.request<ErrorBody>('GET', path(value), { token: alice.token });
        await expectError(res, 400, 'invalid_request');
        assert.match(res.body.message, /decimal integer/, `${path(value)}: ${res.body.message}`);
      }
      for (const value of ['5', '05', '10']) {
        const res = await server.request('GET', path(value), { token: alice.token });
        assert.equal(res.status, 200, `${path(value)}: ${res.text}`);
      }
    }
    const res = await server.request<{ data: unknown[] }>('GET', `/v1/boards/${boardId}/nodes?limit=05`, { token: alice.token });
    assert.equal(res.status, 200, res.text);
  });
});

describe('values the database cannot store', () => {
  test('a NUL character in a text field is 400, not 500', async () => {
    for (const name of ['a\u0000b', '\u0000']) {
      await expectError(await server.request('POST', '/v1/boards', { token: alice.token, body: { name } }), 400, 'invalid_request');
      await expectError(
        await server.request('POST', '/v1/me/api-keys', { token: alice.token, body: { name, scopes: ['read'] } }),
        400,
        'invalid_request',
      );
    }
    const board = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'ok' } })).body.data;
    const res = await server.request<ErrorBody>('PATCH', `/v1/boards/${board.id}`, { token: alice.token, body: { name: 'x\u0000' } });
    await expectError(res, 400, 'invalid_request');
    assert.match(res.body.message, /NUL/);
  });
});

describe('text that is not well-formed Unicode', () => {
  test('an unpaired surrogate or invalid UTF-8 in any text field is 400, and nothing is stored', async () => {
    const board = (await server.request<BoardBody>('POST', '/v1/boards', { token: alice.token, body: { name: 'ok' } })).body.data;
    const chat = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${board.id}/chats`, {
      token: alice.token,
      body: { title: 'ok' },
    });
    assert.equal(chat.status, 201, chat.text);
    // [method, path, the JSON body's text with a bad value where `BAD` is]
    const targets: [string, string, string][] = [
      ['POST', '/v1/boards', '{"name":BAD}'],
      ['PATCH', `/v1/boards/${board.id}`, '{"name":BAD}'],
      ['POST', '/v1/me/api-keys', '{"name":BAD,"scopes":["read"]}'],
      ['POST', `/v1/boards/${board.id}/chats`, '{"title":BAD}'],
      ['PATCH', `/v1/boards/${board.id}/chats/${chat.body.data.id}`, '{"title":BAD}'],
      ['POST', `/v1/boards/${board.id}/nodes`, '{"type":"note","position":{"x":0,"y":0},"data":{"text":BAD}}'],
    ];
    const bad: [string, Uint8Array<ArrayBuffer>][] = [
      ['a lone high surrogate', Buffer.from('"a\\ud800b"')],
      ['a lone low surrogate', Buffer.from('"\\udc00"')],
      ['surrogates the wrong way round', Buffer.from('"\\udc00\\ud800"')],
      ['invalid UTF-8', Uint8Array.from([0x22, 0x61, 0xff, 0xfe, 0x62, 0x22])],
      ['a truncated UTF-8 sequence', Uint8Array.from([0x22, 0x61, 0xe2, 0x82, 0x22])],
      ['an encoded surrogate (CESU-8)', Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22])],
    ];
    for (const [method, path, template] of targets) {
      const [before, after] = template.split('BAD') as [string, string];
      for (const [what, value] of bad) {
        const body = Uint8Array.from([...Buffer.from(before), ...value, ...Buffer.from(after)]);
        const res = await rawRequest(method, path, body, { 'content-type': 'application/json' });
        await expectError(res, 400, 'invalid_request');
        assert.match((res.body as ErrorBody).message, /UTF-8|Unicode/, `${method} ${path} with ${what}: ${res.text}`);
      }
    }
    // Nothing was stored: the board and the chat keep their names; no key or board was made.
    const boards = await server.request<{ data: { name: string }[] }>('GET', '/v1/boards?limit=100', { token: alice.token });
    assert.ok(
      boards.body.data.every((b) => !b.name.includes('\ufffd')),
      JSON.stringify(boards.body.data),
    );
    // A pair in order, escaped or as UTF-8, is fine.
    for (const name of ['"\\ud83d\\ude00"', '"\u{1f600}"']) {
      const res = await rawRequest('POST', '/v1/boards', `{"name":${name}}`, { 'content-type': 'application/json' });
      assert.equal(res.status, 201, res.text);
      assert.equal((res.body as BoardBody).data.name, '\u{1f600}');
    }
  });
});

describe('odd encodings never give a 5xx', () => {
  async function notServerError(res: Response): Promise<void> {
    assert.ok(res.status < 500, `got ${res.status}: ${res.text.slice(0, 300)}`);
    if (res.status >= 400) await expectError(res, res.status);
  }

  test('invalid UTF-8 bytes, a BOM, a latin1 charset', async () => {
    const invalidUtf8 = Uint8Array.from([...Buffer.from('{"name":"'), 0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, ...Buffer.from('"}')]);
    await notServerError(await rawRequest('POST', '/v1/boards', invalidUtf8, { 'content-type': 'application/json' }));
    const bom = Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"name":"bom"}')]);
    await notServerError(await rawRequest('POST', '/v1/boards', bom, { 'content-type': 'application/json' }));
    const latin1 = Uint8Array.from([...Buffer.from('{"name":"caf'), 0xe9, ...Buffer.from('"}')]);
    await notServerError(await rawRequest('POST', '/v1/boards', latin1, { 'content-type': 'application/json; charset=latin1' }));
    await notServerError(await rawRequest('POST', '/v1/boards', '{"name":"x"}', { 'content-type': 'application/json; charset=utf-16' }));
    await notServerError(await rawRequest('POST', '/v1/boards', '{"name":"x"}', { 'content-type': 'application/json;;;charset' }));
    await notServerError(await rawRequest('POST', '/v1/boards', '{"name":"x"}', { 'content-type': 'APPLICATION/JSON' }));
    await notServerError(await rawRequest('POST', '/v1/boards', '{"name":"\\ud800"}', { 'content-type': 'application/json' }));
  });

  test('very long header values', async () => {
    await notServerError(await rawRequest('GET', '/v1/boards', undefined, { 'x-long': 'a'.repeat(8000) }));
    await notServerError(await rawRequest('GET', '/v1/boards', undefined, { authorization: `Bearer ${'a'.repeat(10000)}` }));
    await notServerError(
      await rawRequest('POST', '/v1/boards', '{"name":"x"}', { 'content-type': `application/json; ${'x=y; '.repeat(1500)}` }),
    );
    await notServerError(
      await rawRequest('POST', '/v1/boards', '{"name":"x"}', { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(5000) }),
    );
    // Over Node's header limit: the HTTP layer answers 431 itself; it must not be a 5xx.
    const huge = await fetch(`${server.url}/v1/boards`, { headers: { 'x-huge': 'a'.repeat(40_000) } }).catch(() => undefined);
    if (huge) assert.ok(huge.status < 500, `got ${huge.status}`);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });

  test('a query parameter repeated 1000 times', async () => {
    const qs = Array.from({ length: 1000 }, (_, i) => `limit=${(i % 2) + 1}`).join('&');
    const res = await server.request('GET', `/v1/boards?${qs}`, { token: alice.token });
    await expectError(res, 400, 'invalid_request');
    await notServerError(await server.request('GET', `/v1/boards?${'order=asc&'.repeat(1000)}`, { token: alice.token }));
    await notServerError(await server.request('GET', `/v1/boards?${'cursor=abc&'.repeat(1000)}`, { token: alice.token }));
    await notServerError(await server.request('GET', `/v1/boards?limit[a]=1&limit[b]=2`, { token: alice.token }));
    await notServerError(await server.request('GET', `/v1/boards?%zz=%zz&limit=%ff`, { token: alice.token }));
  });

  test('garbage on the socket gets a 4xx, and the server keeps serving', async () => {
    const { port } = new URL(server.url);
    for (const raw of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      'POST /v1/boards HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n',
      'GET /v1/boards HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n',
    ]) {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(raw));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 400);
      assert.ok(status < 500, `got ${answer.slice(0, 200)}`);
    }
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});
