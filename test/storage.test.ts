// The storage providers on their own: the path guard, and the local filesystem's behaviour
// (no partial file after a failed write, listing by prefix, empty directories removed), checked
// on the real filesystem; the S3 provider against s3rver.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createStorage } from '../src/providers/storage/create-storage.js';
import { assertSafePath, StorageError, type Storage } from '../src/providers/storage/storage.js';
import { startS3, type TestS3 } from './helpers/s3.js';

const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

test('the path guard refuses null bytes, absolute paths, backslashes and dot segments', () => {
  for (const bad of ['', '/etc/passwd', 'a/../../etc', '..', 'a/./b', 'a//b', 'a/b/', 'a\0b', 'a\\b', 'C:/x', 'x'.repeat(1025)]) {
    assert.throws(() => assertSafePath(bad), Error, JSON.stringify(bad));
  }
  for (const good of ['u/b/1-a.png', 'a', 'u/b/1-ré sumé..png', 'u/b/1-.x']) assert.doesNotThrow(() => assertSafePath(good), good);
});

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-storage-'));
let s3: TestS3 | undefined;
after(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  await s3?.close();
});

const backends: [string, () => Promise<Storage>][] = [
  ['local', () => createStorage(loadConfig({ DATA_DIR: dataDir }))],
  [
    's3',
    async () => {
      s3 ??= await startS3('storage-test');
      return createStorage(loadConfig({ DATA_DIR: dataDir, ...s3.env }));
    },
  ],
];

for (const [name, open] of backends) {
  describe(`${name} storage`, () => {
    test('put, get, list by prefix, delete; a missing file is undefined and deleting it is no error', async () => {
      const storage = await open();
      assert.deepEqual(await storage.put('u1/b1/1-a.pdf', Readable.from([Buffer.from('%PDF-'), Buffer.from('1.7')]), 'application/pdf'), {
        size: 8,
      });
      await storage.put('u1/b2/2-b.png', Readable.from([Buffer.from('png')]), 'image/png');
      await storage.put('u2/b3/3-c.gif', Readable.from([Buffer.from('gif')]), 'image/gif');
      const got = await storage.get('u1/b1/1-a.pdf');
      assert.ok(got);
      assert.equal(got.size, 8);
      assert.equal(got.contentType, 'application/pdf');
      assert.equal(await text(got.body), '%PDF-1.7');
      assert.deepEqual(await storage.list('u1/'), ['u1/b1/1-a.pdf', 'u1/b2/2-b.png']);
      assert.deepEqual(await storage.list('u1/b2'), ['u1/b2/2-b.png']);
      assert.equal((await storage.list('')).length, 3);
      assert.equal(await storage.get('u1/b1/missing.pdf'), undefined);
      await storage.delete('u1/b1/1-a.pdf');
      await storage.delete('u1/b1/1-a.pdf');
      assert.equal(await storage.get('u1/b1/1-a.pdf'), undefined);
      assert.deepEqual(await storage.list('u1/'), ['u1/b2/2-b.png']);
      if (name === 'local') assert.ok(!fs.existsSync(path.join(dataDir, 'files', 'u1', 'b1')), 'the empty board directory is removed');
      for (const p of ['u1/b2/2-b.png', 'u2/b3/3-c.gif']) await storage.delete(p);
    });

    test('unsafe paths are refused before touching storage', async () => {
      const storage = await open();
      for (const bad of ['../escape.png', '/abs.png', 'a/../../b.png', 'a\0.png']) {
        await assert.rejects(storage.put(bad, Readable.from([Buffer.from('x')]), 'image/png'), Error, bad);
        await assert.rejects(storage.get(bad), Error, bad);
        await assert.rejects(storage.delete(bad), Error, bad);
      }
      assert.ok(!fs.existsSync(path.join(dataDir, 'escape.png')));
    });

    test('a body that fails midway leaves no file behind', async () => {
      const storage = await open();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('client went away'));
        },
      });
      // The body's own error, not a StorageError: the client's failure is not the store's.
      await assert.rejects(storage.put('u9/b9/9-broken.png', failing, 'image/png'), (error: Error) => {
        assert.ok(!(error instanceof StorageError), String(error));
        return /client went away/.test(error.message);
      });
      assert.equal(await storage.get('u9/b9/9-broken.png'), undefined);
      assert.deepEqual(await storage.list('u9/'), []);
      if (name === 'local') assert.deepEqual(fs.readdirSync(path.join(dataDir, 'files', '.partial')), []);
    });
  });
}

test('a failing disk is a StorageError, with the backend error as its cause', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-storage-fail-'));
  try {
    const storage = await createStorage(loadConfig({ DATA_DIR: root }));
    // A file where the user's directory should be: the board directory cannot be made.
    fs.writeFileSync(path.join(root, 'files', 'u1'), 'in the way');
    await assert.rejects(storage.put('u1/b1/1-a.png', Readable.from([Buffer.from('png')]), 'image/png'), (error: Error) => {
      assert.ok(error instanceof StorageError, String(error));
      assert.equal(error.operation, 'write');
      assert.match(error.message, /^Storage write failed/);
      assert.ok((error.cause as NodeJS.ErrnoException).code, 'the backend error is kept');
      return true;
    });
    await assert.rejects(storage.get('u1/b1/1-a.png'), StorageError);
    assert.deepEqual(fs.readdirSync(path.join(root, 'files', '.partial')), []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('an unreachable S3 store is a StorageError on every operation', async () => {
  // A port that refuses connections: listened on, then closed.
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const storage = await createStorage(
    loadConfig({
      DATA_DIR: dataDir,
      S3_BUCKET: 'gone',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: 'x',
      S3_SECRET_ACCESS_KEY: 'x',
      S3_FORCE_PATH_STYLE: 'true',
    }),
  );
  await assert.rejects(storage.put('u1/b1/1-a.png', Readable.from([Buffer.from('png')]), 'image/png'), StorageError);
  await assert.rejects(storage.get('u1/b1/1-a.png'), StorageError);
  await assert.rejects(storage.delete('u1/b1/1-a.png'), StorageError);
  await assert.rejects(storage.list(''), StorageError);
});
