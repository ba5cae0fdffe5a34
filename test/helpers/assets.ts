// Real files for the asset tests (a PNG, a multi-page PDF made with pdf-lib and a text-less "scanned" one, a JPEG, a GIF, a
// WebP), a raw multipart/form-data builder (so names with control characters reach the server
// as sent), and an upload helper that returns the asset and the node data pointing at it.
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import type { AssetBody } from './api-types.js';
import type { TestServer, TestUser } from './harness.js';

export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const WEBP = Buffer.from('UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA', 'base64');
export const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

/** A PDF of `pages` pages, each with a line of text. */
export async function makePdf(pages = 3): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 1; i <= pages; i++) doc.addPage([200, 200]).drawText(`Page ${i}`, { x: 20, y: 100, size: 12 });
  return Buffer.from(await doc.save());
}

/** A PDF of `pages` pages holding only a drawn rectangle each, no text: what a scan without OCR looks like to a text extractor. */
export async function makeScannedPdf(pages = 1): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 1; i <= pages; i++) doc.addPage([200, 200]).drawRectangle({ x: 20, y: 20, width: 160, height: 160, borderWidth: 2 });
  return Buffer.from(await doc.save());
}

export interface Part {
  field?: string;
  /** undefined: a plain field, not a file */
  filename?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart/form-data body exactly as given (filenames are written as raw UTF-8, as browsers do). */
export function multipart(parts: Part[]): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = `----bwk${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"`;
    // Quotes and backslashes escaped as curl does; everything else raw.
    if (part.filename !== undefined) head += `; filename="${part.filename.replace(/["\\]/g, '\\$&')}"`;
    head += '\r\n';
    if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(chunks)), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /v1/boards/{boardId}/assets; the body is the asset when 201, else an error envelope. */
export function postParts(server: TestServer, token: string, boardId: string, parts: Part[]) {
  const { body, contentType } = multipart(parts);
  return server.request<AssetBody>('POST', `/v1/boards/${boardId}/assets`, { token, raw: body, headers: { 'content-type': contentType } });
}

/** Uploads a file (asserting 201; `type` undefined sends the part without a Content-Type); returns the asset and the pdf/image node data naming it. */
export async function uploadFile(
  server: TestServer,
  user: TestUser,
  boardId: string,
  data: Buffer,
  filename: string,
  type: string | undefined,
) {
  const res = await postParts(server, user.token, boardId, [{ filename, type, data }]);
  assert.equal(res.status, 201, res.text);
  const asset = res.body.data;
  return { asset, nodeData: { storagePath: asset.storage_path, publicUrl: asset.url, fileSize: asset.size } };
}
