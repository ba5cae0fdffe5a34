// A real S3-compatible server on loopback (s3rver, files in a temporary directory) for the asset
// tests' S3 backend, and a client to look at the bucket from outside the service.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no type declarations
import S3rver from 's3rver';

export interface TestS3 {
  /** Environment for startServer: S3_BUCKET, S3_ENDPOINT, credentials, path style. */
  env: Record<string, string>;
  keys(prefix?: string): Promise<string[]>;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'assets'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const env = {
    S3_BUCKET: bucket,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    env,
    async keys(prefix = '') {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
