// What a document_process job reads when the request gave no text: the pages of a pdf node's file,
// the page a url node links to, the text of a document node's uploaded file, a video's transcript
// file. Each gives the pages to chunk and, for url, document and video nodes, what the job writes
// into the node's data once its chunks are live (writeReadData: a normal node update, with its
// node.updated event, touching only those keys).
import type { Readable } from 'node:stream';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../../db/schema.js';
import { JobError } from '../../jobs/worker.js';
import { now } from '../../lib/ids.js';
import { fieldsOf } from '../../contract/common.js';
import { Node, type NodeType } from '../../contract/nodes.js';
import { NODE_TEXT_MAX_CHARS } from '../../contract/limits.js';
import { recordChanges } from '../../events/record.js';
import { mergeNodeData, storedNodeData } from '../../nodes/node-data.js';
import type { PageText } from '../chunker.js';
import { pdfPages } from '../pdf-text.js';
import type { DocumentJobPayload } from '../document-service.js';
import { documentText } from './document-text.js';
import { fetchPage } from './fetch-page.js';
import { readHtml } from './page-text.js';
import { type Cue, parseTranscript } from './transcript.js';

/** The part of the storage provider the reader reads uploaded files with. */
export interface FileReader {
  get(path: string): Promise<{ body: Readable; size: number; contentType: string } | undefined>;
}

export interface ReaderDeps {
  db: Db;
  storage?: FileReader;
  /** Hosts a page may be fetched from although private, loopback or http (OUTBOUND_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** How long one page may take (READ_PAGE_TIMEOUT_MS). */
  pageTimeoutMs: number;
}

export interface ReadSource {
  pages: PageText[];
  /** A transcript's cues, where each stands in the text: the chunks' times. */
  cues?: Cue[];
  /** Keys to merge into the node's data once its chunks are live. */
  nodeData?: Record<string, unknown>;
}

const MAX_PDF_BYTES = 200 * 1024 * 1024;
const MAX_FILE_BYTES = 50 * 1024 * 1024;

export async function readSource(deps: ReaderDeps, payload: DocumentJobPayload, signal: AbortSignal): Promise<ReadSource> {
  if (payload.text !== undefined) return { pages: [{ page: 1, text: payload.text }] };
  switch (payload.read) {
    case 'url': {
      const page = await fetchPage(payload.url ?? '', { allowedHosts: deps.allowedHosts, timeoutMs: deps.pageTimeoutMs, signal });
      const { text, preview } =
        page.type === 'text/html' || page.type === 'application/xhtml+xml'
          ? await readHtml(page.text, page.url)
          : { text: page.text, preview: {} };
      if (text.trim() === '') throw new JobError('The page has no readable text');
      return { pages: [{ page: 1, text }], nodeData: { ...nullPreview, ...preview, read_at: new Date().toISOString() } };
    }
    case 'document': {
      const { bytes, contentType } = await readStored(deps, payload.storagePath ?? '', MAX_FILE_BYTES, 'document');
      const text = (await documentText(bytes, contentType)).replace(/\r\n?/g, '\n');
      if (text.trim() === '') throw new JobError('The document has no text');
      if (text.length > NODE_TEXT_MAX_CHARS && [...text].length > NODE_TEXT_MAX_CHARS)
        throw new JobError(
          `The document's text is longer than ${NODE_TEXT_MAX_CHARS.toLocaleString('en-US')} characters, the most a node holds`,
        );
      return { pages: [{ page: 1, text }], nodeData: { text, read_at: new Date().toISOString() } };
    }
    case 'video': {
      const { bytes } = await readStored(deps, payload.transcriptPath ?? '', MAX_FILE_BYTES, 'transcript');
      const { text, cues } = parseTranscript(new TextDecoder('utf-8').decode(bytes));
      return { pages: [{ page: 1, text }], cues, nodeData: { read_at: new Date().toISOString() } };
    }
    default: {
      const { bytes } = await readStored(deps, payload.storagePath ?? '', MAX_PDF_BYTES, 'pdf');
      try {
        return { pages: await pdfPages(bytes) };
      } catch {
        throw new JobError('The file could not be read as a PDF');
      }
    }
  }
}

/** A preview key the page no longer has is removed (null in a merge), not left from an earlier read. */
const nullPreview = { title: null, description: null, site_name: null, image_url: null };

/** An uploaded file's bytes and its type as judged on upload (the asset's row). */
async function readStored(deps: ReaderDeps, path: string, maxBytes: number, what: string): Promise<{ bytes: Buffer; contentType: string }> {
  if (!deps.storage) throw new JobError(`Reading ${what} files is not available on this server (no file storage)`);
  const file = await deps.storage.get(path);
  if (!file) throw new JobError(`The ${what} file was not found in storage`);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of file.body) {
    size += (part as Buffer).length;
    if (size > maxBytes) {
      file.body.destroy();
      throw new JobError(`The ${what} file is too large to extract`);
    }
    parts.push(part as Buffer);
  }
  const asset = await deps.db.selectFrom('assets').select('content_type').where('storage_path', '=', path).executeTakeFirst();
  return { bytes: Buffer.concat(parts), contentType: asset?.content_type ?? file.contentType };
}

const nodeColumns = fieldsOf(Node);

/**
 * Merges what the read found into the node's data, inside the job's completing transaction (which
 * holds the node's row): a node update like any other, its updated_at (and so its ETag) moved on
 * and a node.updated event recorded, by the user who asked for the read. Keys the read does not
 * write are left as they are.
 */
export async function writeReadData(
  trx: Transaction<Database>,
  boardId: string,
  nodeId: string,
  userId: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const row = await trx.selectFrom('nodes').select(['node_type', 'node_data']).where('id', '=', nodeId).executeTakeFirst();
  if (!row) return;
  const data = mergeNodeData(row.node_data, patch);
  const at = now();
  const node = await trx
    .updateTable('nodes')
    .set({ node_data: storedNodeData(row.node_type as NodeType, data), updated_at: at })
    .where('id', '=', nodeId)
    .returning(nodeColumns)
    .executeTakeFirstOrThrow();
  await recordChanges(trx, boardId, userId, [{ type: 'node.updated', data: node }], at, true);
}
