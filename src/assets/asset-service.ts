// Assets of a board: upload (type judged by the bytes, streamed to storage), list, delete, the
// lookup behind the file URLs, the check that a pdf/image node points at a real asset, and the
// sweep of files a crash left behind. Only the board's owner may upload, list and delete.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { Principal } from '../auth/principal.js';
import { assertCanUpload, findVisibleBoard } from '../access/board-access.js';
import { assertAssetRoom } from '../access/board-bounds.js';
import type { AssetsTable, Db, Executor } from '../db/schema.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { now } from '../lib/ids.js';
import { assertSafePath, type Storage } from '../providers/storage/storage.js';
import { allowedTypes, DOCUMENT_TYPES, declaredType, safeOriginalName, textFileType } from './file-names.js';
import type { Asset } from '../contract/assets.js';
import { type BoardChange, changeTransaction, recordChanges } from '../events/record.js';
import type { BoardBounds } from '../config.js';
import type { Logger } from '../lib/logger.js';

/** What the asset service is built with, once per app (src/modules/services.ts). */
export interface AssetDeps {
  db: Db;
  storage: Storage;
  bounds: BoardBounds;
  /** ASSET_MAX_BYTES: the largest file an upload may store. */
  maxBytes: number;
  /** PUBLIC_BASE_URL: the base of asset urls when set, else each request's own origin. */
  publicBaseUrl: string | undefined;
}

/** What of the HTTP request the service needs for asset urls: the address the caller used (scheme and host). */
export interface Origin {
  origin: string;
}

export interface UploadedFile {
  stream: Readable;
  /** The name the client gave, untrusted. */
  filename: string | undefined;
  /** The part's declared Content-Type, untrusted. */
  mimetype: string | undefined;
}

/** Reserved rows and stored files older than this with no finished row belong to a crash. */
export const ORPHAN_AGE_MS = 10 * 60 * 1000;
const PATH_SHAPE = /^[0-9a-f-]{36}\/[0-9a-f-]{36}\/(\d{1,15})-[^/]+$/;

type AssetRow = Omit<AssetsTable, 'size'> & { size: number };

/** The file's address below the base URL: the storage path, and the asset's random access token. */
export const assetUrlPath = (row: Pick<AssetsTable, 'storage_path' | 'access_token'>): string =>
  `/v1/files/${row.storage_path.split('/').map(encodeURIComponent).join('/')}?token=${row.access_token}`;

/** The asset as answered: its id is its filename, its url the address its file is served at. */
const toAsset = (row: AssetRow, baseUrl: string): Asset => ({
  id: row.filename,
  url: `${baseUrl}${assetUrlPath(row)}`,
  filename: row.filename,
  storage_path: row.storage_path,
  size: row.size,
  content_type: row.content_type,
  created_at: row.created_at,
});

/** Assets are listed by the owner and editors (the rule's `upload`); their events reach the owner's streams only. */
const ownerEvent = (type: 'asset.created' | 'asset.deleted', data: unknown): BoardChange => ({ type, data, audience: 'owner' });

/** The board, when the caller may upload to it (its owner, its editors): others get 404 when they cannot see it, else 403. */
async function assertAssetOwner(db: Executor, principal: Principal, boardId: string): Promise<void> {
  assertCanUpload(await findVisibleBoard(db, principal, boardId), principal);
}

function sizeLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(new ApiError('payload_too_large', `The file is larger than the limit of ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
}

const SNIFF_BYTES = 4100;

interface Sniffed {
  /** The MIME type file-type reads from the first bytes, if any. */
  type: string | undefined;
  /** The first bytes, for a text file's check (textFileType). */
  head: Buffer;
  /** The whole file again, first bytes included. */
  body: Readable;
  /** Reads what is left of a refused file so the connection stays usable, without keeping it. */
  discard(): void;
}

/**
 * Reads the first few KiB of the upload to judge its type. (file-type's own fileTypeStream never
 * settles on an empty part, so the head is read here and handed to fileTypeFromBuffer.)
 */
async function sniff(stream: Readable): Promise<Sniffed> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  const first = Buffer.concat(head);
  const type = (await fileTypeFromBuffer(first))?.mime;
  async function* all(): AsyncGenerator<Buffer> {
    if (first.length > 0) yield first;
    if (ended) return;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return {
    type,
    head: first,
    body: Readable.from(all(), { objectMode: false }),
    discard: () =>
      void (async () => {
        while (!ended && !(await chunks.next()).done);
      })().catch(() => {}),
  };
}

/**
 * The app's assets, built once per app with its database, file storage, the board bounds, the upload
 * limit and PUBLIC_BASE_URL (src/modules/services.ts).
 */
export class AssetService {
  constructor(private readonly deps: AssetDeps) {}

  /** The base of asset urls for a request: PUBLIC_BASE_URL when set, else the address the caller used. */
  baseUrl(origin: string): string {
    return this.deps.publicBaseUrl ?? origin;
  }

  /** Ownership first: a refused caller's file is never read (the upload route checks before reading the parts). */
  async assertOwner(principal: Principal, boardId: string): Promise<void> {
    await assertAssetOwner(this.deps.db, principal, boardId);
  }

  /**
   * Stores one uploaded file. Its first bytes decide its type; the name is reserved by a row with
   * size NULL before the bytes are written, so two uploads can never write the same path, and the
   * row is completed once the file is stored (or removed, with the file, when anything fails).
   */
  async upload(principal: Principal, boardId: string, file: UploadedFile, { origin }: Origin): Promise<Asset> {
    const { deps } = this;
    const { bounds, maxBytes } = deps;
    const baseUrl = this.baseUrl(origin);
    let sniffed: Sniffed;
    try {
      sniffed = await sniff(file.stream);
    } catch {
      throw invalid('The upload ended before the file was complete');
    }
    // An animated PNG is a PNG to every client that shows PNGs. Text has no signature: its
    // extension and its first bytes decide (textFileType).
    const detected = sniffed.type === 'image/apng' ? 'image/png' : (sniffed.type ?? textFileType(sniffed.head, file.filename));
    if (!detected || !(detected in allowedTypes)) {
      sniffed.discard();
      throw new ApiError(
        'unsupported_media_type',
        'The file is not an allowed type: PDF, PNG, JPEG, GIF, WebP, Word (.docx), Markdown (.md), text (.txt), HTML (.html), WebVTT (.vtt) or SubRip (.srt) (judged by its contents)',
      );
    }
    const declared = declaredType(file.mimetype);
    if (declared !== undefined && declared !== detected) {
      sniffed.discard();
      throw new ApiError('unsupported_media_type', `The file's declared type ${declared} does not match its contents (${detected})`);
    }

    // A board whose files already fill its bound is refused before the file is stored.
    try {
      await assertAssetRoom(deps.db, boardId, bounds);
    } catch (error) {
      sniffed.discard();
      throw error;
    }

    const name = safeOriginalName(file.filename, detected);
    const prefix = `${principal.userId}/${boardId}/`;
    const createdAt = now();
    let row: AssetsTable | undefined;
    // The epoch prefix moves on by a millisecond when the same name was taken in the same one.
    for (let millis = createdAt.getTime(); !row && millis < createdAt.getTime() + 1000; millis++) {
      const filename = `${millis}-${name}`;
      row = await deps.db
        .insertInto('assets')
        .values({
          storage_path: `${prefix}${filename}`,
          board_id: boardId,
          user_id: principal.userId,
          filename,
          content_type: detected,
          size: null,
          access_token: randomBytes(24).toString('base64url'),
          created_at: createdAt,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    }
    if (!row) throw new ApiError('conflict', 'Too many uploads of this name at once; retry');
    const path = row.storage_path;

    let size: number;
    try {
      const body = pipeline(sniffed.body, sizeLimit(maxBytes), () => {});
      ({ size } = await deps.storage.put(path, body, detected));
    } catch (error) {
      await deps.storage.delete(path).catch(() => {});
      await deps.db.deleteFrom('assets').where('storage_path', '=', path).where('size', 'is', null).execute();
      if (error instanceof ApiError) throw error;
      // A client that went away mid-upload: nobody reads this answer.
      if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || /terminated early|aborted/i.test(String(error))) {
        throw invalid('The upload ended before the file was complete');
      }
      throw error;
    }
    let done: AssetsTable | undefined;
    try {
      done = await changeTransaction(deps.db, async (trx) => {
        await assertAssetRoom(trx, boardId, bounds, size);
        const stored = await trx.updateTable('assets').set({ size }).where('storage_path', '=', path).returningAll().executeTakeFirst();
        if (stored)
          await recordChanges(trx, boardId, principal.userId, [ownerEvent('asset.created', toAsset({ ...stored, size }, baseUrl))]);
        return stored;
      });
    } catch (error) {
      await deps.storage.delete(path).catch(() => {});
      await deps.db.deleteFrom('assets').where('storage_path', '=', path).where('size', 'is', null).execute();
      throw error;
    }
    if (!done) {
      // The board was deleted while the file streamed.
      await deps.storage.delete(path).catch(() => {});
      throw notFound('Board');
    }
    return toAsset({ ...done, size }, baseUrl);
  }

  async list(principal: Principal, boardId: string, { origin }: Origin): Promise<Asset[]> {
    const { db } = this.deps;
    const baseUrl = this.baseUrl(origin);
    await assertAssetOwner(db, principal, boardId);
    const rows = await db
      .selectFrom('assets')
      .selectAll()
      .where('board_id', '=', boardId)
      .where('size', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('filename', 'desc')
      .execute();
    return rows.map((row) => toAsset(row as AssetRow, baseUrl));
  }

  /** Deletes the asset's row; the file goes after the commit (removeStoredFiles). Returns its path. */
  async delete(principal: Principal, { boardId, id }: { boardId: string; id: string }): Promise<string> {
    const { db } = this.deps;
    return changeTransaction(db, async (trx) => {
      await assertAssetOwner(trx, principal, boardId);
      const gone = await trx
        .deleteFrom('assets')
        .where('board_id', '=', boardId)
        .where('filename', '=', id)
        .where('size', 'is not', null)
        .returning('storage_path')
        .executeTakeFirst();
      if (!gone) throw notFound('Asset');
      await recordChanges(trx, boardId, principal.userId, [ownerEvent('asset.deleted', { id })]);
      return gone.storage_path;
    });
  }

  /**
   * Removes files whose rows are gone. Called after the commit, so a failure here leaves only a
   * file without a row, which the start-up sweep removes.
   */
  async removeStoredFiles(paths: string[], log: Pick<Logger, 'warn'>): Promise<void> {
    const { storage } = this.deps;
    for (const path of paths) {
      await storage.delete(path).catch((err: unknown) => log.warn({ err, path }, 'asset file not removed; the next sweep will'));
    }
  }

  /** The finished asset behind a file URL, when the token is its own. */
  async findServed(storagePath: string, token: string): Promise<AssetRow | undefined> {
    const { db } = this.deps;
    // A path no upload could have made (NUL, `..`, …) names nothing; it never reaches the database.
    try {
      assertSafePath(storagePath);
    } catch {
      return undefined;
    }
    const row = await db
      .selectFrom('assets')
      .selectAll()
      .where('storage_path', '=', storagePath)
      .where('size', 'is not', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const given = Buffer.from(token);
    const expected = Buffer.from(row.access_token);
    return given.length === expected.length && timingSafeEqual(given, expected) ? (row as AssetRow) : undefined;
  }

  /**
   * A pdf or image node's data (or a document node's made from a file) must name a finished asset of the same board (DECISIONS "Nodes"):
   * storagePath its storage path, fileSize its size, publicUrl exactly its url as the service gives it
   * to this request (PUBLIC_BASE_URL, else the address the caller used), host included,
   * since the web app links the file from there (an editor of a public board must not be able to
   * point the owner's "Open PDF" at another site); and its type must suit the node.
   */
  async assertNodeAsset(
    trx: Executor,
    boardId: string,
    nodeType: 'pdf' | 'image' | 'document',
    data: Record<string, unknown>,
    { origin }: Origin,
  ): Promise<void> {
    const baseUrl = this.baseUrl(origin);
    const row = await trx
      .selectFrom('assets')
      .select(['storage_path', 'access_token', 'size', 'content_type'])
      .where('board_id', '=', boardId)
      .where('storage_path', '=', String(data.storagePath))
      .where('size', 'is not', null)
      .executeTakeFirst();
    if (!row) throw invalid('data.storagePath is not the storage_path of an asset of this board');
    const fits =
      nodeType === 'pdf'
        ? row.content_type === 'application/pdf'
        : nodeType === 'image'
          ? row.content_type.startsWith('image/')
          : DOCUMENT_TYPES.includes(row.content_type);
    if (!fits) throw invalid(`data.storagePath names a ${row.content_type} asset, which a ${nodeType} node cannot show`);
    if (data.fileSize !== row.size) throw invalid(`data.fileSize does not match the asset's size (${row.size} bytes)`);
    const expected = new URL(`${baseUrl}${assetUrlPath(row)}`).href;
    let given: string | undefined;
    try {
      given = new URL(String(data.publicUrl)).href;
    } catch {
      given = undefined;
    }
    if (given !== expected) throw invalid(`data.publicUrl is not the url of the asset named by data.storagePath (${expected})`);
  }

  /**
   * Removes what a crash left: reserved rows never completed, and stored files with no row, both
   * older than ORPHAN_AGE_MS (a file's age is the epoch prefix of its name). Paths not of the form
   * `<uuid>/<uuid>/<millis>-<name>` are not ours and are left alone (a shared bucket).
   */
  async sweep(at = Date.now()): Promise<{ rows: number; files: number }> {
    const { deps } = this;
    const cutoff = at - ORPHAN_AGE_MS;
    const stale = await deps.db
      .deleteFrom('assets')
      .where('size', 'is', null)
      .where('created_at', '<', new Date(cutoff))
      .returning('storage_path')
      .execute();
    for (const { storage_path } of stale) await deps.storage.delete(storage_path).catch(() => {});
    const candidates = (await deps.storage.list('')).filter((p) => {
      const m = PATH_SHAPE.exec(p);
      return m !== null && Number(m[1]) < cutoff;
    });
    let files = 0;
    for (let i = 0; i < candidates.length; i += 500) {
      const batch = candidates.slice(i, i + 500);
      const known = new Set(
        (await deps.db.selectFrom('assets').select('storage_path').where('storage_path', 'in', batch).execute()).map((r) => r.storage_path),
      );
      for (const path of batch) {
        if (known.has(path)) continue;
        await deps.storage.delete(path);
        files++;
      }
    }
    return { rows: stale.length, files };
  }

  /** Removes an asset made earlier in a request that then failed: the row, then the file. */
  async discard(storagePath: string): Promise<void> {
    const { deps } = this;
    await deps.db.deleteFrom('assets').where('storage_path', '=', storagePath).execute();
    await deps.storage.delete(storagePath).catch(() => {});
  }
}
