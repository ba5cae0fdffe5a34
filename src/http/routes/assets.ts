// /v1/boards/{boardId}/assets: upload (multipart/form-data, field `file`), list, delete; and
// /v1/files/{storage path}?token=…: the files themselves, readable without an Authorization header
// (an <img src>) by whoever holds the URL, which carries a random per-asset token.
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import type { UploadedFile } from '../../assets/asset-service.js';
import { ApiError, invalid, notFound } from '../../errors.js';
import type { ByteRange } from '../../providers/storage/storage.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { Asset } from '../../contract/assets.js';
import { allowedTypes } from '../../assets/file-names.js';
import { Uuid } from '../../contract/common.js';
import { BoardParams, errorResponses, List, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';
import { validatorCompiler } from '../validation.js';

const AssetParams = Type.Object({
  boardId: Uuid,
  id: Type.String({ minLength: 1, maxLength: 200, description: 'The asset id (its filename)' }),
});
const Deleted = Single('asset', Type.Object({ id: Type.String(), deleted: Type.Literal(true) }));
const uploadErrors = {
  ...errorResponses,
  409: Type.Ref('Error'),
  413: Type.Ref('Error'),
  415: Type.Ref('Error'),
};

/**
 * `inline; filename="…"`, always quoted; a name outside printable ASCII also gets the exact UTF-8
 * form in filename* (RFC 6266 / RFC 8187), with `_` for those characters in the plain fallback.
 */
export function inlineDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (fallback === filename) return `inline; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Multipart framing problems are the client's: 400 with what went wrong (413 for an oversize file). */
function multipartError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalid('Send exactly one part: the file, in the field "file"');
  }
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new ApiError('payload_too_large', 'The file is larger than the upload limit');
  return invalid(`The multipart/form-data body is malformed${error instanceof Error && error.message ? `: ${error.message}` : ''}`);
}

/** The media types a stored file is served with: those an upload may have. */
const FILE_TYPES = Object.keys(allowedTypes);

export function assetRoutes(app: App, services: Services): void {
  const { assets, storage, config } = services;

  // Multipart is parsed only in this scope: every other route still answers 415 to it.
  app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: config.assetMaxBytes + 1, files: 2, fields: 4, parts: 6, fieldNameSize: 200, headerPairs: 20 },
      throwFileSizeLimit: false,
    });
    (scope as unknown as App).post(
      '/v1/boards/:boardId/assets',
      {
        schema: {
          tags: ['assets'],
          operationId: 'uploadAsset',
          summary: 'Upload a file (PDF, PNG, JPEG, GIF, WebP, .docx, .md, .txt, .html, .vtt or .srt) to a board',
          description: `multipart/form-data with one part, the field "file". The type is judged by the bytes and must match the part's declared type. At most ${config.assetMaxBytes} bytes (ASSET_MAX_BYTES). Only the board's owner may upload.`,
          consumes: ['multipart/form-data'],
          params: BoardParams,
          body: Type.Object({ file: Type.String({ format: 'binary', description: 'The file' }) }, { required: ['file'] }),
          response: { 201: Single('asset', Asset), ...uploadErrors },
        },
        // The body schema documents the form for OpenAPI; the parts are streamed and checked in the handler.
        validatorCompiler: (route) => (route.httpPart === 'body' ? () => ({ value: undefined }) : validatorCompiler(route)),
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const { boardId } = request.params;
        if (!request.isMultipart())
          throw new ApiError('unsupported_media_type', 'Content-Type must be multipart/form-data with the file in the field "file"');
        // Ownership first: a refused caller's file is never read.
        await assets.assertOwner(principal, boardId);
        let asset: Asset | undefined;
        try {
          let parts: AsyncIterator<import('@fastify/multipart').Multipart>;
          try {
            parts = request.parts()[Symbol.asyncIterator]();
          } catch (error) {
            throw multipartError(error);
          }
          for (;;) {
            let next: IteratorResult<import('@fastify/multipart').Multipart>;
            try {
              next = await parts.next();
            } catch (error) {
              throw multipartError(error);
            }
            if (next.done) break;
            const part = next.value;
            if (part.fieldname !== 'file' || part.type !== 'file') {
              if (part.type === 'file') part.file.resume();
              throw invalid(
                part.fieldname === 'file'
                  ? 'file must be a file part'
                  : `${part.fieldname} is not a recognised field; send the file in the field "file"`,
              );
            }
            if (asset) {
              part.file.resume();
              throw invalid('Send exactly one file, in the field "file"');
            }
            const file: UploadedFile = { stream: part.file, filename: part.filename, mimetype: part.mimetype };
            asset = await assets.upload(principal, boardId, file, originOf(request));
          }
        } catch (error) {
          if (asset) await assets.discard(asset.storage_path);
          throw error;
        }
        if (!asset) throw invalid('file is required: a multipart/form-data part named "file"');
        return reply.code(201).send({ object: 'asset', data: asset });
      },
    );
  });

  app.get(
    '/v1/boards/:boardId/assets',
    {
      schema: {
        tags: ['assets'],
        operationId: 'listAssets',
        summary: "List all of a board's assets (not paginated; owner only)",
        params: BoardParams,
        response: { 200: List(Asset), ...errorResponses },
      },
    },
    async (request) => ({
      object: 'list' as const,
      data: await assets.list(principalOf(request), request.params.boardId, originOf(request)),
      has_more: false,
      cursor: null,
    }),
  );

  app.delete(
    '/v1/boards/:boardId/assets/:id',
    {
      schema: {
        tags: ['assets'],
        operationId: 'deleteAsset',
        summary: 'Delete an asset and its file; nodes pointing at it stay (owner only)',
        params: AssetParams,
        response: { 200: Deleted, ...errorResponses },
      },
    },
    async (request) => {
      const path = await assets.delete(principalOf(request), request.params);
      await assets.removeStoredFiles([path], request.log);
      return { object: 'asset' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );

  app.get(
    '/v1/files/*',
    {
      config: { public: true, rateLimit: false },
      schema: {
        tags: ['assets'],
        operationId: 'getAssetFile',
        summary: "An asset's file, at the url the asset gives (no Authorization needed: the token in the url is the key)",
        security: [],
        params: Type.Object({ '*': Type.String({ maxLength: 2048, description: 'The storage path' }) }),
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: {
          // Sent as a stream, never serialised: the media types document what arrives.
          200: {
            description: 'The file, with its stored Content-Type',
            content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: Type.String({ format: 'binary' }) }])),
          },
          206: {
            description: 'The bytes a `Range: bytes=…` header asked for (one range), with Content-Range',
            content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: Type.String({ format: 'binary' }) }])),
          },
          400: Type.Ref('Error'),
          404: Type.Ref('Error'),
          416: Type.Ref('Error'),
          500: Type.Ref('Error'),
          503: Type.Ref('Error'),
        },
      },
    },
    async (request, reply) => {
      const storagePath = request.params['*'];
      const token = request.query.token;
      // A wrong or missing token looks exactly like a missing file.
      const asset = token ? await assets.findServed(storagePath, token) : undefined;
      if (!asset) throw notFound('File');
      const size = asset.size!;
      const range = requestedRange(request, size);
      const file = await storage.get(storagePath, range);
      if (!file) throw notFound('File');
      reply
        .header('content-type', asset.content_type)
        .header('content-length', String(file.size))
        .header('accept-ranges', 'bytes')
        .header('x-content-type-options', 'nosniff')
        // The token in a file's url is never sent on as a Referer.
        .header('referrer-policy', 'no-referrer')
        .header('content-disposition', inlineDisposition(asset.filename))
        // The bytes at a path never change; the url is a credential, so no shared caches.
        .header('cache-control', 'private, max-age=86400')
        .header('cross-origin-resource-policy', 'cross-origin');
      // Opened on its own, an image is an opaque-origin document that runs nothing. Not a PDF:
      // Chromium refuses to start its PDF viewer in a sandboxed document, whatever allow- tokens
      // follow, and "Open PDF" would show "blocked"; a PDF is served only as application/pdf (its
      // bytes judged on upload, nosniff), which the browser renders in its own isolated viewer.
      if (asset.content_type !== 'application/pdf') reply.header('content-security-policy', 'sandbox');
      if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      // HEAD answers the headers without reading the file.
      if (request.method === 'HEAD') {
        file.body.destroy();
        // An empty stream, not an empty payload: the serialiser would set Content-Length 0.
        return reply.send(Readable.from([]));
      }
      return reply.send(file.body);
    },
  );
}

/**
 * The one byte range a `Range` header asks for (RFC 9110 §14), or undefined to send the whole file:
 * no header, a malformed one or another unit (ignored, as the RFC allows), several ranges (no
 * multipart/byteranges), or an `If-Range` (the service sends no validators, so none can match).
 * A range that starts past the end is 416, with a Content-Range that gives the size.
 */
function requestedRange(request: FastifyRequest, size: number): ByteRange | undefined {
  const header = request.headers.range;
  if (!header || request.headers['if-range'] !== undefined) return undefined;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) {
    throw new ApiError('range_not_satisfiable', `The range is outside the file (${size} bytes)`, { 'content-range': `bytes */${size}` });
  }
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}
