// Asset files in any S3-compatible object store (AWS S3, MinIO, R2, …). Uploads stream through
// @aws-sdk/lib-storage: parts of 8 MiB, so a file is never held in memory whole, and a failed
// upload is aborted so no partial object remains.
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable } from 'node:stream';
import type { S3Config } from '../../config.js';
import { assertSafePath, type ByteRange, type Storage, type StoredFile, storageCall, watchBody } from './storage.js';

export class S3Storage implements Storage {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.client = new S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
      ...(config.accessKeyId && config.secretAccessKey
        ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: the default (aws-chunked bodies with trailing
      // checksums) is not understood by many S3-compatible stores.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(path: string, body: Readable, contentType: string): Promise<{ size: number }> {
    assertSafePath(path);
    let size = 0;
    const counted = new PassThrough();
    counted.on('data', (chunk: Buffer) => (size += chunk.length));
    // The body's own failure ends the upload; a failed upload leaves the body alone.
    const bodyError = watchBody(body);
    body.on('error', (error) => counted.destroy(error));
    body.pipe(counted);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: path, Body: counted, ContentType: contentType },
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    return storageCall(
      'write',
      async () => {
        try {
          await upload.done();
        } catch (error) {
          await upload.abort().catch(() => {});
          throw error;
        }
        return { size };
      },
      bodyError,
    );
  }

  async get(path: string, range?: ByteRange): Promise<StoredFile | undefined> {
    assertSafePath(path);
    return storageCall('read', async () => {
      try {
        const out = await this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: path, Range: range && `bytes=${range.start}-${range.end}` }),
        );
        if (!(out.Body instanceof Readable)) throw new Error('S3 returned a body that is not a Node stream');
        return { body: out.Body, size: out.ContentLength ?? 0, contentType: out.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return undefined;
        throw error;
      }
    });
  }

  async delete(path: string): Promise<void> {
    assertSafePath(path);
    await storageCall('delete', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: path })));
  }

  list(prefix: string): Promise<string[]> {
    return storageCall('list', async () => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token }),
        );
        for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    });
  }
}
