// Asset files on the local filesystem under DATA_DIR/files. A file is written to a temporary name
// in DATA_DIR/files/.partial and renamed into place once complete, so a reader never sees half a
// file and a crash leaves only a temporary file, removed at the next start.
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafePath, type ByteRange, type Storage, type StoredFile, storageCall, watchBody } from './storage.js';

const PARTIAL_DIR = '.partial';
/** Temporary files older than this at start belong to a crashed upload (requests time out at 2 minutes). */
const STALE_PARTIAL_MS = 10 * 60 * 1000;

// The local filesystem keeps no content type: names always end in the extension of their sniffed
// type (src/assets/file-names.ts), so the extension gives it back.
const typesByExtension: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export class LocalStorage implements Storage {
  private constructor(private readonly root: string) {}

  static async open(dataDir: string): Promise<LocalStorage> {
    const root = path.resolve(dataDir, 'files');
    await fs.mkdir(path.join(root, PARTIAL_DIR), { recursive: true });
    const storage = new LocalStorage(root);
    await storage.removeStalePartials();
    return storage;
  }

  private resolve(p: string): string {
    assertSafePath(p);
    if (p === PARTIAL_DIR || p.startsWith(`${PARTIAL_DIR}/`)) throw new Error('Storage path is reserved');
    const full = path.resolve(this.root, p);
    if (!full.startsWith(this.root + path.sep)) throw new Error('Storage path escapes the storage root');
    return full;
  }

  async put(p: string, body: Readable, _contentType: string): Promise<{ size: number }> {
    const target = this.resolve(p);
    const temp = path.join(this.root, PARTIAL_DIR, `${Date.now()}-${crypto.randomUUID()}`);
    const file = createWriteStream(temp, { flags: 'wx' });
    const bodyError = watchBody(body, file);
    return storageCall(
      'write',
      async () => {
        try {
          await pipeline(body, file);
          const { size } = await fs.stat(temp);
          await fs.mkdir(path.dirname(target), { recursive: true });
          await fs.rename(temp, target);
          return { size };
        } catch (error) {
          // A body failing before the file has opened still lets the open finish and create the
          // file: wait for the stream to close, or the file would appear after its removal.
          if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
          await fs.rm(temp, { force: true });
          throw error;
        }
      },
      bodyError,
    );
  }

  async get(p: string, range?: ByteRange): Promise<StoredFile | undefined> {
    const full = this.resolve(p);
    return storageCall('read', async () => {
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(full, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      // Opened first, then streamed from the handle: a delete in between cannot turn into an error mid-reply.
      const { size } = await handle.stat();
      const contentType = typesByExtension[path.extname(full).toLowerCase()] ?? 'application/octet-stream';
      return { body: handle.createReadStream(range), size: range ? range.end - range.start + 1 : size, contentType };
    });
  }

  async delete(p: string): Promise<void> {
    const full = this.resolve(p);
    await storageCall('delete', () => fs.rm(full, { force: true }));
    // Empty board and user directories go too; rmdir refuses a directory that is not empty.
    for (let dir = path.dirname(full); dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break;
      }
    }
  }

  list(prefix: string): Promise<string[]> {
    return storageCall('list', () => this.walk(prefix));
  }

  private async walk(prefix: string): Promise<string[]> {
    const found: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const relPath = rel ? `${rel}/${entry.name}` : entry.name;
        if (relPath === PARTIAL_DIR) continue;
        // Only descend where the prefix can still match.
        if (!relPath.startsWith(prefix) && !prefix.startsWith(`${relPath}/`)) continue;
        if (entry.isDirectory()) await walk(path.join(dir, entry.name), relPath);
        else if (entry.isFile()) found.push(relPath);
      }
    };
    await walk(this.root, '');
    return found.sort();
  }

  private async removeStalePartials(): Promise<void> {
    const dir = path.join(this.root, PARTIAL_DIR);
    for (const name of await fs.readdir(dir)) {
      const started = Number(name.split('-')[0]);
      if (!Number.isFinite(started) || Date.now() - started > STALE_PARTIAL_MS) await fs.rm(path.join(dir, name), { force: true });
    }
  }
}
