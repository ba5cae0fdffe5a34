// The storage behind uploaded asset files: one interface, a local-filesystem implementation (the
// default, under DATA_DIR/files) and an S3-compatible one (when S3_BUCKET is set), chosen by config
// in create-storage.ts (apart, so that no implementation imports the file that picks it).
// Paths are `<user>/<board>/<filename>`; every implementation refuses paths that could escape its
// root (see assertSafePath).
import type { Readable } from 'node:stream';
import { ProviderError } from '../provider-error.js';
import { PATH_MAX_CHARS } from '../../contract/limits.js';

export interface StoredFile {
  body: Readable;
  /** Bytes in `body`: the whole file, or the range asked for. */
  size: number;
  contentType: string;
}

/** Inclusive byte offsets, as in an HTTP Range (both within the file). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface Storage {
  /** Stores the stream under `path`, replacing nothing half-written: on failure no file remains. */
  put(path: string, body: Readable, contentType: string): Promise<{ size: number }>;
  /** The file, or only the bytes `range` names; undefined when there is no file at `path`. */
  get(path: string, range?: ByteRange): Promise<StoredFile | undefined>;
  /** Removes the file; a missing file is not an error. */
  delete(path: string): Promise<void>;
  /** Every stored path that starts with `prefix` ('' for all). */
  list(prefix: string): Promise<string[]>;
}

/**
 * A failure of the storage backend itself, the ProviderError of kind 'storage' (a disk error, S3 unreachable or refusing): every
 * implementation throws this, so callers and the error handler can tell it from a database error
 * (both may be an ECONNREFUSED underneath) and from a failure of the caller's own stream. The
 * backend's error is the `cause`.
 */
export class StorageError extends ProviderError {
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super('storage', `Storage ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, retryable: true });
    this.name = 'StorageError';
    this.operation = operation;
  }
}

/**
 * Runs one backend operation, its failures thrown as StorageError. `bodyError` (see watchBody)
 * gives the error of the stream being stored when that stream failed by itself (the client went
 * away, a size limit): that error is the caller's, so it passes unchanged.
 */
export async function storageCall<T>(operation: string, run: () => Promise<T>, bodyError?: () => unknown): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StorageError) throw error;
    const own = bodyError?.();
    if (own !== undefined) throw own;
    throw new StorageError(operation, error);
  }
}

/**
 * Watches the stream being stored and returns a getter of its own error: the first error it emits,
 * unless `sink` (what it is piped into) failed first, since a failing sink destroys its source
 * with the sink's error.
 */
export function watchBody(body: Readable, sink?: NodeJS.EventEmitter): () => unknown {
  let own: unknown;
  let sinkFailed = false;
  sink?.on('error', () => {
    sinkFailed = true;
  });
  body.on('error', (error) => {
    if (!sinkFailed) own ??= error;
  });
  return () => own;
}

/**
 * Rejects what could reach outside the storage root or alias another file: null bytes, absolute
 * paths, backslashes, and empty, `.` or `..` segments (the idea of supabase/storage's secure path).
 */
export function assertSafePath(path: string): void {
  if (typeof path !== 'string' || path.length === 0 || path.length > PATH_MAX_CHARS)
    throw new Error(`Storage path must be 1..${PATH_MAX_CHARS} characters`);
  if (path.includes('\0')) throw new Error('Storage path must not contain null bytes');
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path))
    throw new Error('Storage path must be relative, with / separators');
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error('Storage path must not contain empty, . or .. segments');
  }
}
