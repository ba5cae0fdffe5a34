// Assets end to end, against both storage backends: the local filesystem and a real S3-compatible
// server on loopback (s3rver). Upload, list, serve, delete; types judged by the bytes; names made
// safe; the size limit; malformed forms; multipart refused elsewhere; tenancy on every route;
// board deletion and the crash sweep removing files; pdf/image nodes naming real assets.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { GIF, JPEG, makePdf, multipart, PNG, postParts, uploadFile, WEBP } from './helpers/assets.js';
import type { AssetList, Deleted, ErrorBody, NodeBody } from './helpers/api-types.js';
import {
  type Response as Answer,
  isErrorEnvelope,
  MISSING_ID,
  startServer,
  TIMESTAMP,
  type TestServer,
  type TestUser,
} from './helpers/harness.js';
import { startS3, type TestS3 } from './helpers/s3.js';

const ASSET_FIELDS = ['content_type', 'created_at', 'filename', 'id', 'size', 'storage_path', 'url'];

/**
 * startServer, retried briefly when the wire-protocol run's socket server (one connection at a time)
 * has not yet noticed that the previous server's connection closed.
 */
async function startFresh(env: Record<string, string>): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServer(env);
    } catch (error) {
      if (attempt >= 20 || !process.env.TEST_DATABASE_URL || !/Connection terminated|ECONNRESET/.test(String(error))) throw error;
      await sleep(100);
    }
  }
}

interface Backend {
  name: string;
  /** Starts the service on this backend; `dataDir` fixes DATA_DIR (for restarts). */
  start(env?: Record<string, string>, dataDir?: string): Promise<TestServer>;
  /** Every stored path. */
  files(server: TestServer): Promise<string[]>;
  /** Writes a file straight into storage, behind the service's back. */
  plant(server: TestServer, storagePath: string, data: Buffer): Promise<void>;
  close(): Promise<void>;
}

function localBackend(): Backend {
  const walk = (dir: string, rel = ''): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((e) =>
            e.name === '.partial' && rel === ''
              ? []
              : e.isDirectory()
                ? walk(path.join(dir, e.name), `${rel}${e.name}/`)
                : [`${rel}${e.name}`],
          )
      : [];
  return {
    name: 'local filesystem',
    start: (env = {}, dataDir) => startFresh({ ...env, ...(dataDir ? { DATA_DIR: dataDir } : {}) }),
    files: async (server) => walk(path.join(server.config.dataDir, 'files')).sort(),
    plant: async (server, storagePath, data) => {
      const full = path.join(server.config.dataDir, 'files', storagePath);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, data);
    },
    close: async () => {},
  };
}

function s3Backend(): Backend {
  const buckets = new Map<string, TestS3>();
  return {
    name: 'S3 (s3rver)',
    async start(env = {}, dataDir) {
      // One bucket per DATA_DIR: a restarted server finds its files again.
      const key = dataDir ?? `fresh-${buckets.size}`;
      let s3 = buckets.get(key);
      if (!s3) {
        s3 = await startS3();
        buckets.set(key, s3);
      }
      const server = await startFresh({ ...s3.env, ...env, ...(dataDir ? { DATA_DIR: dataDir } : {}) });
      (server as TestServer & { s3?: TestS3 }).s3 = s3;
      return server;
    },
    files: (server) => (server as TestServer & { s3: TestS3 }).s3.keys(),
    plant: (server, storagePath, data) => (server as TestServer & { s3: TestS3 }).s3.put(storagePath, data, 'image/png'),
    async close() {
      for (const s3 of buckets.values()) await s3.close();
    },
  };
}

for (const backend of [localBackend(), s3Backend()]) {
  describe(`assets on ${backend.name}`, () => {
    let server: TestServer;
    let alice: TestUser;
    let bob: TestUser;

    before(async () => {
      server = await backend.start();
      alice = await server.user();
      bob = await server.user();
    });
    after(() => server.close());

    const list = (user: TestUser, boardId: string) =>
      server.request<AssetList>('GET', `/v1/boards/${boardId}/assets`, { token: user.token });
    const remove = (user: TestUser, boardId: string, id: string) =>
      server.request<Deleted>('DELETE', `/v1/boards/${boardId}/assets/${encodeURIComponent(id)}`, { token: user.token });
    const expectError = (res: Answer<unknown>, status: number, code: string, message?: RegExp) => {
      assert.equal(res.status, status, res.text);
      assert.ok(isErrorEnvelope(res.body, status), res.text);
      assert.equal(res.body.code, code);
      if (message) assert.match(res.body.message, message);
    };

    test('upload, list, serve and delete a PNG', async () => {
      const boardId = await server.makeBoard(alice);
      const before = Date.now();
      const res = await postParts(server, alice.token, boardId, [{ filename: 'pixel.png', type: 'image/png', data: PNG }]);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.object, 'asset');
      const asset = res.body.data;
      assert.deepEqual(Object.keys(asset).sort(), ASSET_FIELDS);
      assert.match(asset.filename, /^\d{13}-pixel\.png$/);
      assert.ok(Number(asset.filename.split('-')[0]) >= before);
      assert.equal(asset.id, asset.filename);
      assert.equal(asset.storage_path, `${alice.userId}/${boardId}/${asset.filename}`);
      assert.equal(asset.size, PNG.length);
      assert.equal(asset.content_type, 'image/png');
      assert.match(asset.created_at, TIMESTAMP);
      assert.ok(asset.url.startsWith(`${server.url}/v1/files/`), asset.url);
      assert.deepEqual(await backend.files(server), [asset.storage_path]);

      const listed = await list(alice, boardId);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body, { object: 'list', data: [asset], has_more: false, cursor: null });

      // Served without credentials, as an <img src> would fetch it.
      const file = await fetch(asset.url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'image/png');
      assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
      // Opened on its own, the file runs nothing as this origin, and its url (a credential) is no Referer.
      assert.equal(file.headers.get('content-security-policy'), 'sandbox');
      assert.equal(file.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(file.headers.get('content-disposition'), `inline; filename="${asset.filename}"`);
      assert.equal(file.headers.get('content-length'), String(PNG.length));
      assert.ok(Buffer.from(await file.arrayBuffer()).equals(PNG));

      const deleted = await remove(alice, boardId, asset.id);
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, { object: 'asset', data: { id: asset.id, deleted: true } });
      assert.deepEqual(await backend.files(server), []);
      assert.deepEqual((await list(alice, boardId)).body.data, []);
      expectError(await server.request('GET', asset.url.slice(server.url.length)), 404, 'not_found');
      expectError(await remove(alice, boardId, asset.id), 404, 'not_found');
    });

    test('PDF (three pages), JPEG (image/jpg alias), GIF and WebP are accepted and served back byte for byte, a part without a type judged by its bytes', async () => {
      const boardId = await server.makeBoard(alice);
      const pdf = await makePdf(3);
      const cases: [Buffer, string, string | undefined, string][] = [
        [pdf, 'paper.pdf', 'application/pdf', 'application/pdf'],
        [JPEG, 'photo.jpg', 'image/jpg', 'image/jpeg'],
        [GIF, 'anim.gif', 'image/gif', 'image/gif'],
        [WEBP, 'pic.webp', 'image/webp', 'image/webp'],
        // curl declares application/octet-stream for extensions it does not know: the bytes decide.
        [WEBP, 'pic2.webp', 'application/octet-stream', 'image/webp'],
        // A part without a Content-Type (text/plain by RFC 7578's default): the bytes decide.
        [PNG, 'untyped.png', undefined, 'image/png'],
        [pdf, 'untyped.pdf', 'text/plain', 'application/pdf'],
      ];
      for (const [data, filename, declared, stored] of cases) {
        const { asset } = await uploadFile(server, alice, boardId, data, filename, declared);
        assert.equal(asset.content_type, stored, filename);
        assert.equal(asset.size, data.length);
        const file = await fetch(asset.url);
        assert.equal(file.headers.get('content-type'), stored);
        assert.ok(Buffer.from(await file.arrayBuffer()).equals(data), filename);
      }
      assert.equal((await list(alice, boardId)).body.data.length, cases.length);
    });

    test('Range requests: one byte range is 206 with Content-Range, past the end 416, anything else the whole file', async () => {
      const boardId = await server.makeBoard(alice);
      const pdf = await makePdf(3);
      const { asset } = await uploadFile(server, alice, boardId, pdf, 'paper.pdf', 'application/pdf');
      const get = (headers: Record<string, string>, method = 'GET') => fetch(asset.url, { method, headers });
      const expectPart = async (res: Response, start: number, end: number) => {
        assert.equal(res.status, 206);
        assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${pdf.length}`);
        assert.equal(res.headers.get('content-length'), String(end - start + 1));
        assert.equal(res.headers.get('content-type'), 'application/pdf');
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(pdf.subarray(start, end + 1)));
      };
      const whole = await get({});
      assert.equal(whole.headers.get('accept-ranges'), 'bytes');
      // No sandbox on a PDF: Chromium would refuse to start its viewer; the other headers hold.
      assert.equal(whole.headers.get('content-security-policy'), null);
      assert.equal(whole.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(whole.headers.get('referrer-policy'), 'no-referrer');
      await whole.arrayBuffer();
      await expectPart(await get({ range: 'bytes=0-99' }), 0, 99);
      await expectPart(await get({ range: 'bytes=100-' }), 100, pdf.length - 1);
      await expectPart(await get({ range: 'bytes=-10' }), pdf.length - 10, pdf.length - 1);
      // An end past the file is cut at its last byte; overlapping ranges are combined into one.
      await expectPart(await get({ range: `bytes=${pdf.length - 5}-${pdf.length + 1000}` }), pdf.length - 5, pdf.length - 1);
      await expectPart(await get({ range: 'bytes=0-9,5-19' }), 0, 19);

      const head = await get({ range: 'bytes=10-19' }, 'HEAD');
      assert.equal(head.status, 206);
      assert.equal(head.headers.get('content-range'), `bytes 10-19/${pdf.length}`);
      assert.equal(head.headers.get('content-length'), '10');

      const past = await get({ range: `bytes=${pdf.length}-` });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), `bytes */${pdf.length}`);
      const envelope: unknown = await past.json();
      assert.ok(isErrorEnvelope(envelope, 416));
      assert.equal(envelope.code, 'range_not_satisfiable');

      // Served whole: malformed, another unit, several disjoint ranges, an If-Range (no validator can match).
      for (const headers of [
        { range: 'bytes=abc' },
        { range: 'pages=1-2' },
        { range: 'bytes=0-9,50-59' },
        { range: 'bytes=0-9', 'if-range': '"x"' },
      ] as Record<string, string>[]) {
        const res = await get(headers);
        assert.equal(res.status, 200, JSON.stringify(headers));
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(pdf), JSON.stringify(headers));
      }
      // The token still decides first: a range on a wrong token is the same 404.
      const wrong = await fetch(asset.url.replace(/token=[^&]+/, 'token=wrong'), { headers: { range: 'bytes=0-9' } });
      assert.equal(wrong.status, 404);
    });

    test('types are judged by the bytes: a text file named .png, a mismatched declared type and an empty file are 415', async () => {
      const boardId = await server.makeBoard(alice);
      const cases: [string, Buffer | string, string][] = [
        ['notes.png', 'just some text, not an image', 'image/png'],
        ['page.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'],
        ['page.html', 'no markup at all', 'text/html'],
        ['pixel.png', PNG, 'image/jpeg'],
        ['pixel.png', PNG, 'application/pdf'],
        ['pixel.png', PNG, 'text/html'],
        ['empty.png', Buffer.alloc(0), 'image/png'],
        ['archive.zip', Buffer.from('504b0304140000000800', 'hex'), 'application/zip'],
      ];
      for (const [filename, data, type] of cases) {
        const res = await postParts(server, alice.token, boardId, [
          { filename, type, data: typeof data === 'string' ? Buffer.from(data) : data },
        ]);
        expectError(res, 415, 'unsupported_media_type');
      }
      assert.deepEqual((await list(alice, boardId)).body.data, []);
      assert.deepEqual(
        await backend.files(server),
        (await backend.files(server)).filter((p) => !p.includes(boardId)),
      );
    });

    test('original names are reduced to a safe form', async () => {
      const boardId = await server.makeBoard(alice);
      const long = `${'a'.repeat(300)}.png`;
      const cases: [string, string | RegExp][] = [
        ['../../etc/passwd.png', 'passwd.png'],
        ['..\\..\\windows\\evil.png', 'evil.png'],
        ['a\u0001b\u007fc\u200e\u202e.png', 'abc.png'],
        ['...hidden.png', 'hidden.png'],
        ['  spaced   out  .png', 'spaced out.png'],
        ['Ünïcødé 文件 🎉.png', 'Ünïcødé 文件 🎉.png'],
        ['quote"s:and*stars?.png', 'quote_s_and_stars_.png'],
        ['no-extension', 'no-extension.png'],
        ['wrong.txt', 'wrong.txt.png'],
        ['UPPER.PNG', 'UPPER.png'],
        ['', 'file.png'],
        ['..', 'file.png'],
        [long, /^a{116}\.png$/],
      ];
      for (const [original, expected] of cases) {
        const res = await postParts(server, alice.token, boardId, [{ filename: original, type: 'image/png', data: PNG }]);
        assert.equal(res.status, 201, `${JSON.stringify(original)}: ${res.text}`);
        const name = res.body.data.filename.replace(/^\d{13}-/, '');
        if (typeof expected === 'string') assert.equal(name, expected, JSON.stringify(original));
        else assert.match(name, expected);
        assert.ok([...name].length <= 120);
        assert.equal(res.body.data.storage_path.split('/').length, 3, 'no path separators');
        // Every file is reachable at its url, whatever its name.
        const file = await fetch(res.body.data.url);
        assert.equal(file.status, 200, `${JSON.stringify(original)} served`);
        const disposition = file.headers.get('content-disposition') ?? '';
        assert.match(disposition, /^inline; filename="[\x20-\x7e]+"/);
        if (/[^\x20-\x7e]/.test(name))
          assert.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent(res.body.data.filename)}`), disposition);
        await file.arrayBuffer();
      }
      const stored = await backend.files(server);
      for (const p of stored) assert.ok(!p.includes('..') && !p.includes('\\') && !p.startsWith('/'), p);
    });

    test('long non-ASCII names are cut at 200 UTF-8 bytes between characters, and stored and served', async () => {
      const boardId = await server.makeBoard(alice);
      const flag = '🇯🇵'; // one character of two code points (8 bytes)
      const cases: [string, string][] = [
        // 80 CJK characters are 240 bytes: a file system's 255-byte name limit once the epoch is added.
        [`${'文'.repeat(80)}.png`, `${'文'.repeat(65)}.png`],
        [`a${'文'.repeat(80)}.png`, `a${'文'.repeat(65)}.png`],
        // Four-byte characters (surrogate pairs in JavaScript) are never split.
        [`${'🎉'.repeat(60)}.png`, `${'🎉'.repeat(49)}.png`],
        [`a${'🎉'.repeat(60)}`, `a${'🎉'.repeat(48)}.png`],
        // Nor is a character of several code points: a flag; a letter with a mark NFC cannot compose
        // (cut by the 120 code points first: 58 of them and the extension).
        [`${flag.repeat(30)}.png`, `${flag.repeat(24)}.png`],
        [`${'q\u0303'.repeat(80)}.png`, `${'q\u0303'.repeat(58)}.png`],
      ];
      for (const [original, expected] of cases) {
        const res = await postParts(server, alice.token, boardId, [{ filename: original, type: 'image/png', data: PNG }]);
        assert.equal(res.status, 201, `${JSON.stringify(original)}: ${res.text}`);
        const name = res.body.data.filename.replace(/^\d{13}-/, '');
        assert.equal(name, expected, JSON.stringify(original));
        assert.ok(Buffer.byteLength(name) <= 200);
        assert.ok(Buffer.byteLength(res.body.data.filename) <= 255);
        const file = await fetch(res.body.data.url);
        assert.equal(file.status, 200, `${JSON.stringify(original)} served`);
        assert.ok(Buffer.from(await file.arrayBuffer()).equals(PNG));
      }
      assert.equal((await list(alice, boardId)).body.data.length, cases.length);
    });

    test('the same name twice in a row gets two distinct assets', async () => {
      const boardId = await server.makeBoard(alice);
      const results = await Promise.all([1, 2, 3].map(() => uploadFile(server, alice, boardId, PNG, 'same.png', 'image/png')));
      assert.equal(new Set(results.map((r) => r.asset.id)).size, 3);
      assert.equal((await list(alice, boardId)).body.data.length, 3);
    });

    test('malformed forms are 400; nothing is stored', async () => {
      const boardId = await server.makeBoard(alice);
      const cases: [string, Parameters<typeof multipart>[0], RegExp][] = [
        ['no parts', [], /file is required/],
        ['only a text field', [{ field: 'note', data: 'hello' }], /note is not a recognised field/],
        [
          'a file in another field',
          [{ field: 'upload', filename: 'a.png', type: 'image/png', data: PNG }],
          /upload is not a recognised field/,
        ],
        ['file as a plain field', [{ field: 'file', data: 'not a file' }], /file must be a file part/],
        [
          'two files',
          [
            { filename: 'a.png', type: 'image/png', data: PNG },
            { filename: 'b.png', type: 'image/png', data: PNG },
          ],
          /exactly one/,
        ],
        [
          'a file and then a field',
          [
            { filename: 'a.png', type: 'image/png', data: PNG },
            { field: 'x', data: 'y' },
          ],
          /x is not a recognised field/,
        ],
      ];
      for (const [label, parts, message] of cases) {
        expectError(await postParts(server, alice.token, boardId, parts), 400, 'invalid_request', message);
        assert.deepEqual((await list(alice, boardId)).body.data, [], label);
      }
      assert.equal((await backend.files(server)).filter((p) => p.includes(boardId)).length, 0);
      // A multipart body cut short, and one without a boundary.
      const { body, contentType } = multipart([{ filename: 'a.png', type: 'image/png', data: PNG }]);
      const cut = await fetch(`${server.url}/v1/boards/${boardId}/assets`, {
        method: 'POST',
        body: body.subarray(0, body.length - 30),
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': contentType },
      });
      assert.equal(cut.status, 400, await cut.text());
      const noBoundary = await server.request('POST', `/v1/boards/${boardId}/assets`, {
        token: alice.token,
        raw: 'x',
        headers: { 'content-type': 'multipart/form-data' },
      });
      expectError(noBoundary, 400, 'invalid_request');
      assert.deepEqual((await list(alice, boardId)).body.data, []);
    });

    test('content types: JSON or text to the upload route and multipart to a JSON route are 415', async () => {
      const boardId = await server.makeBoard(alice);
      expectError(
        await server.request('POST', `/v1/boards/${boardId}/assets`, { token: alice.token, body: { file: 'x' } }),
        415,
        'unsupported_media_type',
        /multipart\/form-data/,
      );
      expectError(
        await server.request('POST', `/v1/boards/${boardId}/assets`, {
          token: alice.token,
          raw: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported_media_type',
      );
      const { body, contentType } = multipart([{ field: 'name', data: 'Board' }]);
      for (const route of ['/v1/boards', `/v1/boards/${boardId}/nodes`]) {
        const res = await fetch(`${server.url}${route}`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${alice.token}`, 'content-type': contentType },
        });
        assert.equal(res.status, 415, route);
        assert.equal(((await res.json()) as ErrorBody).code, 'unsupported_media_type');
      }
    });

    test('only the owner uploads, lists and deletes: a public board is 403, a private one 404', async () => {
      const privateBoard = await server.makeBoard(alice);
      const publicBoard = await server.makeBoard(alice, { is_public: true, public_access_level: 'edit' });
      const { asset: privateAsset } = await uploadFile(server, alice, privateBoard, PNG, 'a.png', 'image/png');
      const { asset: publicAsset } = await uploadFile(server, alice, publicBoard, PNG, 'a.png', 'image/png');
      expectError(
        await postParts(server, bob.token, privateBoard, [{ filename: 'b.png', type: 'image/png', data: PNG }]),
        404,
        'not_found',
        /Board not found/,
      );
      expectError(await postParts(server, bob.token, publicBoard, [{ filename: 'b.png', type: 'image/png', data: PNG }]), 403, 'forbidden');
      expectError(await list(bob, privateBoard), 404, 'not_found', /Board not found/);
      expectError(await list(bob, publicBoard), 403, 'forbidden');
      expectError(await remove(bob, privateBoard, privateAsset.id), 404, 'not_found', /Board not found/);
      expectError(await remove(bob, publicBoard, publicAsset.id), 403, 'forbidden');
      // An asset through another board's path, an unknown board, a read-only key.
      const bobBoard = await server.makeBoard(bob);
      expectError(await remove(bob, bobBoard, privateAsset.id), 404, 'not_found', /Asset not found/);
      expectError(await list(alice, MISSING_ID), 404, 'not_found');
      expectError(
        await postParts(server, alice.token, MISSING_ID, [{ filename: 'b.png', type: 'image/png', data: PNG }]),
        404,
        'not_found',
      );
      const readOnly = (await alice.keyWith(['read'])).raw_key;
      expectError(
        await postParts(server, readOnly, privateBoard, [{ filename: 'b.png', type: 'image/png', data: PNG }]),
        403,
        'forbidden',
        /scope: write/,
      );
      expectError(
        await postParts(server, 'bwk_test_nope', privateBoard, [{ filename: 'b.png', type: 'image/png', data: PNG }]),
        401,
        'unauthorized',
      );
      assert.equal((await list(alice, privateBoard)).body.data.length, 1);
      assert.equal((await list(alice, publicBoard)).body.data.length, 1);
      assert.equal((await fetch(privateAsset.url)).status, 200);
    });

    test('file urls: a wrong, missing or borrowed token and a wrong path are 404', async () => {
      const boardId = await server.makeBoard(alice);
      const { asset } = await uploadFile(server, alice, boardId, PNG, 'a.png', 'image/png');
      const { asset: other } = await uploadFile(server, alice, boardId, GIF, 'b.gif', 'image/gif');
      const url = new URL(asset.url);
      const token = url.searchParams.get('token')!;
      assert.ok(token.length >= 32, 'the token is long enough not to be guessed');
      const variants = [
        `${url.pathname}`,
        `${url.pathname}?token=`,
        `${url.pathname}?token=${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
        `${url.pathname}?token=${new URL(other.url).searchParams.get('token')}`,
        `${url.pathname.replace('a.png', 'b.png')}?token=${token}`,
        `/v1/files/${alice.userId}/${boardId}/..%2f..%2fetc%2fpasswd?token=${token}`,
        `/v1/files/%00?token=${token}`,
        `/v1/files/?token=${token}`,
      ];
      for (const variant of variants) {
        const res = await server.request('GET', variant);
        assert.equal(res.status, 404, `${variant}: ${res.text}`);
        assert.ok(isErrorEnvelope(res.body, 404), variant);
      }
      expectError(await server.request('GET', `${url.pathname}${url.search}&extra=1`), 400, 'invalid_request');
      const ok = await server.request('GET', `${url.pathname}${url.search}`);
      assert.equal(ok.status, 200);
      const head = await fetch(asset.url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-type'), 'image/png');
      assert.equal(head.headers.get('content-length'), String(PNG.length));
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    });

    test('deleting a board removes its files after the commit; other boards keep theirs', async () => {
      const doomed = await server.makeBoard(alice);
      const kept = await server.makeBoard(alice);
      const a = await uploadFile(server, alice, doomed, PNG, 'a.png', 'image/png');
      const b = await uploadFile(server, alice, doomed, await makePdf(2), 'b.pdf', 'application/pdf');
      const c = await uploadFile(server, alice, kept, PNG, 'c.png', 'image/png');
      let stored = await backend.files(server);
      for (const x of [a, b, c]) assert.ok(stored.includes(x.asset.storage_path));
      const res = await server.request('DELETE', `/v1/boards/${doomed}`, { token: alice.token });
      assert.equal(res.status, 200, res.text);
      stored = await backend.files(server);
      assert.ok(!stored.includes(a.asset.storage_path) && !stored.includes(b.asset.storage_path), stored.join(', '));
      assert.ok(stored.includes(c.asset.storage_path));
      assert.equal((await fetch(a.asset.url)).status, 404);
      assert.equal((await fetch(c.asset.url)).status, 200);
    });

    test('pdf and image nodes must name an asset of the same board, with its size and url', async () => {
      const boardId = await server.makeBoard(alice);
      const elsewhere = await server.makeBoard(alice);
      const pdf = await uploadFile(server, alice, boardId, await makePdf(2), 'paper.pdf', 'application/pdf');
      const png = await uploadFile(server, alice, boardId, PNG, 'pixel.png', 'image/png');
      const foreign = await uploadFile(server, alice, elsewhere, PNG, 'pixel.png', 'image/png');
      const post = (type: string, data: Record<string, unknown>) =>
        server.request<NodeBody>('POST', `/v1/boards/${boardId}/nodes`, {
          token: alice.token,
          body: { type, position: { x: 0, y: 0 }, data },
        });
      const created = await post('pdf', { ...pdf.nodeData, label: 'Paper' });
      assert.equal(created.status, 201, created.text);
      assert.equal((await post('image', png.nodeData)).status, 201);
      expectError(await post('pdf', { ...pdf.nodeData, fileSize: pdf.asset.size + 1 }), 400, 'invalid_request', /data\.fileSize/);
      expectError(
        await post('pdf', { ...pdf.nodeData, storagePath: `${alice.userId}/${boardId}/1700000000000-made-up.pdf` }),
        400,
        'invalid_request',
        /data\.storagePath/,
      );
      expectError(await post('image', foreign.nodeData), 400, 'invalid_request', /data\.storagePath/);
      expectError(
        await post('pdf', { ...pdf.nodeData, publicUrl: 'https://elsewhere.example/file.pdf' }),
        400,
        'invalid_request',
        /data\.publicUrl/,
      );
      expectError(await post('pdf', { ...pdf.nodeData, publicUrl: png.asset.url }), 400, 'invalid_request', /data\.publicUrl/);
      // Only the asset's own url, host and all: the file's path and token on another site (a
      // phishing page behind the owner's "Open PDF"), under another path, or with more in the query.
      const own = new URL(pdf.asset.url);
      const lookalikes = [
        `https://phish.example${own.pathname}${own.search}`,
        `http://phish.example:${own.port}${own.pathname}${own.search}`,
        `${own.origin}/phish${own.pathname}${own.search}`,
        `${own.origin}${own.pathname}${own.search}&next=https://phish.example`,
        `${own.origin}${own.pathname}?token=${'x'.repeat(32)}`,
      ];
      for (const publicUrl of lookalikes) {
        expectError(await post('pdf', { ...pdf.nodeData, publicUrl }), 400, 'invalid_request', /data\.publicUrl/);
      }
      expectError(await post('image', pdf.nodeData), 400, 'invalid_request', /application\/pdf/);
      // PATCH: pointing at another asset needs all three to match; other changes do not re-check.
      const nodeUrl = `/v1/boards/${boardId}/nodes/${created.body.data.id}`;
      expectError(
        await server.request('PATCH', nodeUrl, { token: alice.token, body: { data: { fileSize: 1 } } }),
        400,
        'invalid_request',
        /data\.fileSize/,
      );
      const pdf2 = await uploadFile(server, alice, boardId, await makePdf(4), 'other.pdf', 'application/pdf');
      // An editor of a public board cannot repoint the node at another site either.
      const shared = await server.makeBoard(alice, { is_public: true, public_access_level: 'edit' });
      const sharedPdf = await uploadFile(server, alice, shared, await makePdf(1), 'shared.pdf', 'application/pdf');
      const sharedNode = await server.makeNode(alice, shared, { type: 'pdf', data: sharedPdf.nodeData });
      const sharedUrl = new URL(sharedPdf.asset.url);
      expectError(
        await server.request('PATCH', `/v1/boards/${shared}/nodes/${sharedNode.id}`, {
          token: bob.token,
          body: { data: { publicUrl: `https://phish.example${sharedUrl.pathname}${sharedUrl.search}` } },
        }),
        400,
        'invalid_request',
        /data\.publicUrl/,
      );
      const moved = await server.request('PATCH', nodeUrl, { token: alice.token, body: { data: pdf2.nodeData } });
      assert.equal(moved.status, 200, moved.text);
      // Deleting the asset leaves the node; the node can still be moved and relabelled.
      assert.equal((await remove(alice, boardId, pdf2.asset.id)).status, 200);
      const still = await server.request<NodeBody>('PATCH', nodeUrl, {
        token: alice.token,
        body: { position: { x: 5, y: 5 }, data: { label: 'Gone' } },
      });
      assert.equal(still.status, 200, still.text);
      assert.equal(still.body.data.node_data.storagePath, pdf2.asset.storage_path);
    });
  });

  // Servers of their own, started after the one above has closed: the wire-protocol run's database
  // takes one connection at a time.
  describe(`assets on ${backend.name}: limits and restarts`, () => {
    after(() => backend.close());
    const expectError = (res: Answer<unknown>, status: number, code: string, message?: RegExp) => {
      assert.equal(res.status, status, res.text);
      assert.ok(isErrorEnvelope(res.body, status), res.text);
      assert.equal(res.body.code, code);
      if (message) assert.match(res.body.message, message);
    };

    test('an upload over ASSET_MAX_BYTES is 413 and leaves no file; one at the limit is accepted', async () => {
      const small = await backend.start({ ASSET_MAX_BYTES: '4096' });
      try {
        const owner = await small.user();
        const boardId = await small.makeBoard(owner);
        // A PNG signature followed by padding: the type passes, the size does not.
        const big = Buffer.concat([PNG, Buffer.alloc(200_000, 7)]);
        const res = await postParts(small, owner.token, boardId, [{ filename: 'big.png', type: 'image/png', data: big }]);
        expectError(res, 413, 'payload_too_large', /4096 bytes/);
        assert.deepEqual(await backend.files(small), []);
        assert.deepEqual((await small.request<AssetList>('GET', `/v1/boards/${boardId}/assets`, { token: owner.token })).body.data, []);
        if (backend.name.startsWith('local')) assert.deepEqual(fs.readdirSync(path.join(small.config.dataDir, 'files', '.partial')), []);
        const exact = Buffer.concat([PNG, Buffer.alloc(4096 - PNG.length, 7)]);
        const ok = await postParts(small, owner.token, boardId, [{ filename: 'exact.png', type: 'image/png', data: exact }]);
        assert.equal(ok.status, 201, ok.text);
        assert.equal(ok.body.data.size, 4096);
      } finally {
        await small.close();
      }
    });

    test('files a crash left behind are swept at start; live files and recent strays stay', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-sweep-'));
      let first: TestServer | undefined = await backend.start({}, dataDir);
      let second: TestServer | undefined;
      try {
        const owner = await first.user();
        const boardId = await first.makeBoard(owner);
        const { asset } = await uploadFile(first, owner, boardId, PNG, 'keep.png', 'image/png');
        const old = `${owner.userId}/${boardId}/1000000000000-orphan.png`;
        const recent = `${owner.userId}/${boardId}/${Date.now()}-in-flight.png`;
        const foreign = 'not-ours/readme.txt';
        for (const p of [old, recent, foreign]) await backend.plant(first, p, PNG);
        // A reservation row whose upload died with its process.
        await first.database.db
          .insertInto('assets')
          .values({
            storage_path: `${owner.userId}/${boardId}/1000000000001-dead.png`,
            board_id: boardId,
            user_id: owner.userId,
            filename: '1000000000001-dead.png',
            content_type: 'image/png',
            size: null,
            access_token: 'x',
            created_at: new Date(1_000_000_000_001),
          })
          .execute();
        await backend.plant(first, `${owner.userId}/${boardId}/1000000000001-dead.png`, PNG);
        await first.built.close();
        await first.database.close();
        first = undefined;

        second = await backend.start({}, dataDir);
        const deadline = Date.now() + 15_000;
        let stored = await backend.files(second);
        while ((stored.includes(old) || stored.some((p) => p.endsWith('-dead.png'))) && Date.now() < deadline) {
          await sleep(100);
          stored = await backend.files(second);
        }
        assert.deepEqual(stored.sort(), [asset.storage_path, foreign, recent].sort());
        const rows = await second.database.db.selectFrom('assets').select('filename').where('board_id', '=', boardId).execute();
        assert.deepEqual(
          rows.map((r) => r.filename),
          [asset.filename],
        );
        assert.equal((await fetch(`${second.url}${new URL(asset.url).pathname}${new URL(asset.url).search}`)).status, 200);
      } finally {
        if (first) {
          await first.built.close();
          await first.database.close();
        }
        if (second) await second.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}

describe('assets when the S3 store fails', () => {
  test('an unreachable store is 503 unavailable naming storage, not the database, on upload and on serving', async () => {
    const s3 = await startS3();
    const server = await startFresh(s3.env);
    try {
      const owner = await server.user();
      const boardId = await server.makeBoard(owner);
      const { asset } = await uploadFile(server, owner, boardId, PNG, 'kept.png', 'image/png');
      // The store goes away: its port refuses connections (ECONNREFUSED, like a database that is down).
      await s3.close();
      const expectStorageDown = (res: Answer<unknown>) => {
        assert.equal(res.status, 503, res.text);
        assert.ok(isErrorEnvelope(res.body, 503), res.text);
        assert.equal(res.body.code, 'unavailable');
        assert.match(res.body.message, /storage/i);
        assert.doesNotMatch(res.body.message, /database/i);
        assert.equal(res.headers.get('retry-after'), '5');
      };
      expectStorageDown(await postParts(server, owner.token, boardId, [{ filename: 'new.png', type: 'image/png', data: PNG }]));
      expectStorageDown(await server.request('GET', asset.url.slice(server.url.length)));
      // The failed upload left no row behind; the database itself is fine.
      const listed = await server.request<AssetList>('GET', `/v1/boards/${boardId}/assets`, { token: owner.token });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.map((a) => a.filename),
        [asset.filename],
      );
    } finally {
      await server.close();
    }
  });
});
