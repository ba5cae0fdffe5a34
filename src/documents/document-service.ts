// Vectorizing requests (queued as `document_process` jobs), and listing and deleting a board's
// stored chunks. Writing needs content-edit rights on the board; listing needs the board visible.
// DocumentService (at the end) is how routes and MCP tools reach all of it and the searches.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { assertCanEditContent, boardVisibleTo, findVisibleBoard } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import { assertStorageRoom } from '../access/user-quota.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { insertJob, insertJobs, type NewJob } from '../jobs/job-service.js';
import type { Job } from '../contract/jobs.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import type { PurgeRequests } from './chunk-purge.js';
import { visibleChunk } from './chunk-store.js';
import type { Chunk, Hit, NodeIndex, VectorizeBody } from '../contract/documents.js';
import type { CrossBoardHit, CrossBoardSearchBody } from '../contract/documents-search.js';
import type { Embedder } from '../providers/embeddings/embedder.js';
import { searchAcrossBoards } from './cross-board-search.js';
import { searchChunksPage, type SearchDeps, type SearchOptions } from './search-service.js';
import type { UserQuotas } from '../config.js';
import { TRANSCRIPT_TYPES } from '../assets/file-names.js';

export const DOCUMENT_JOB = 'document_process';

/** What a document_process job carries: enough to redo the work after a restart. */
export interface DocumentJobPayload {
  boardId: string;
  nodeId: string | null;
  /** Absent when the service reads the node (src/documents/reading/read-node.ts). */
  text?: string;
  /** What to read when no text is given: absent for a pdf node's file (jobs queued before the others existed). */
  read?: 'url' | 'document' | 'video';
  /** The pdf's or the document's stored file. */
  storagePath?: string;
  /** The page a url node links to. */
  url?: string;
  /** A video's transcript file (a .vtt or .srt asset of the board). */
  transcriptPath?: string;
  source: string;
  sourceType: string;
}

/** PostgreSQL text cannot hold NUL, and jsonb rejects lone surrogates: neither carries meaning. */
export const cleanText = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing NUL is the point
  text.replace(/\u0000/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/**
 * Queues a document_process job; `maxQueued` is the user's bound on unfinished jobs (insertJob).
 * A text that cannot fit in the board owner's stored-bytes quota, or any job once it is full, is
 * refused here (409); the job checks its chunks exactly as it writes them.
 */
export async function enqueueVectorize(
  db: Db,
  principal: Principal,
  boardId: string,
  input: VectorizeBody,
  maxQueued: number,
  quotas: UserQuotas,
): Promise<Job> {
  const board = await findVisibleBoard(db, principal, boardId);
  assertCanEditContent(board, principal);
  await assertStorageRoom(db, board.owner_id, quotas, textBytes([input]));
  const nodes = await boardNodes(db, boardId, input.node_id ? [input.node_id] : []);
  const transcripts = await transcriptAssets(db, boardId, [input]);
  const payload = documentPayload(boardId, input, nodes, transcripts);
  return insertJob(db, vectorizeJob(principal, boardId, payload), maxQueued);
}

/**
 * Queues one document_process job per document, all or none: every document is checked first (a
 * node of another board, or a document without text, refuses the whole batch naming
 * `documents[i]`), and the jobs count against the user's bound together (insertJobs).
 */
export async function enqueueVectorizeBatch(
  db: Db,
  principal: Principal,
  boardId: string,
  documents: VectorizeBody[],
  maxQueued: number,
  quotas: UserQuotas,
): Promise<Job[]> {
  const board = await findVisibleBoard(db, principal, boardId);
  assertCanEditContent(board, principal);
  await assertStorageRoom(db, board.owner_id, quotas, textBytes(documents));
  const nodes = await boardNodes(
    db,
    boardId,
    documents.flatMap((d) => (d.node_id ? [d.node_id] : [])),
  );
  const transcripts = await transcriptAssets(db, boardId, documents);
  const payloads = documents.map((input, i) => {
    try {
      return documentPayload(boardId, input, nodes, transcripts);
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(error.code, `documents[${i}]: ${error.message}`, error.headers);
      throw error;
    }
  });
  return insertJobs(
    db,
    principal.userId,
    payloads.map((payload) => vectorizeJob(principal, boardId, payload)),
    maxQueued,
  );
}

/** The bytes of the documents' given text (undefined when none gives any: a pdf node's file is read later). */
function textBytes(documents: VectorizeBody[]): number | undefined {
  const given = documents.filter((d) => d.text !== undefined);
  return given.length === 0 ? undefined : given.reduce((sum, d) => sum + Buffer.byteLength(d.text!), 0);
}

type BoardNode = { id: string; node_type: string; node_data: Record<string, unknown> };

/** The named nodes that are on the board, by id (one query; a node of another board is absent). */
async function boardNodes(db: Db, boardId: string, ids: string[]): Promise<Map<string, BoardNode>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('nodes')
    .select(['id', 'node_type', 'node_data'])
    .where('id', 'in', [...new Set(ids)])
    .where('board_id', '=', boardId)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The transcript files the documents name (transcript_asset_id), by asset id: .vtt and .srt assets of the board only. */
async function transcriptAssets(db: Db, boardId: string, documents: VectorizeBody[]): Promise<Map<string, string>> {
  const ids = documents.flatMap((d) => (d.transcript_asset_id ? [d.transcript_asset_id] : []));
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('assets')
    .select(['filename', 'storage_path'])
    .where('board_id', '=', boardId)
    .where('filename', 'in', [...new Set(ids)])
    .where('content_type', 'in', [...TRANSCRIPT_TYPES])
    .where('size', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.filename, row.storage_path]));
}

/** What a node gives to read when the request gives no text: its own text, or what the job fetches (read-node.ts). */
function nodeSource(node: BoardNode, input: VectorizeBody, transcripts: Map<string, string>): Partial<DocumentJobPayload> {
  const data = node.node_data;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  if (input.transcript_asset_id !== undefined && node.node_type !== 'video') throw invalid('transcript_asset_id is only for a video node');
  switch (node.node_type) {
    case 'pdf':
      if (str(data.storagePath)) return { storagePath: data.storagePath as string };
      break;
    case 'url':
      if (str(data.url)) return { read: 'url', url: data.url as string };
      break;
    case 'video': {
      if (input.transcript_asset_id === undefined)
        throw invalid(
          'transcript_asset_id is required to read a video node: upload its transcript (.vtt or .srt) as an asset of the board',
        );
      const transcriptPath = transcripts.get(input.transcript_asset_id);
      if (!transcriptPath) throw invalid('transcript_asset_id does not name a .vtt or .srt asset of this board');
      return { read: 'video', transcriptPath };
    }
    case 'document':
      // A document made from an uploaded file is read from it until its text is filled in.
      if (str(data.text)) return { text: data.text as string };
      if (str(data.storagePath)) return { read: 'document', storagePath: data.storagePath as string };
      break;
    case 'note':
      if (str(data.text)) return { text: data.text as string };
      break;
    case 'image': {
      // The words the image was given; the pixels are not read (no OCR: docs/api.md).
      const parts = [data.label, data.title, data.alt, data.description, data.text].map(str).filter((part) => part !== undefined);
      if (parts.length > 0) return { text: [...new Set(parts)].join('\n\n') };
      throw invalid('The image node has no label, title, alt, description or text to read (text inside the image is not read)');
    }
  }
  throw invalid(`text is required: the ${node.node_type} node has nothing to read`);
}

/** What a document's job carries, or the reason it cannot be queued (404 for a node not on the board, 400 for nothing to read). */
function documentPayload(
  boardId: string,
  input: VectorizeBody,
  nodes: Map<string, BoardNode>,
  transcripts: Map<string, string>,
): DocumentJobPayload {
  let node: BoardNode | undefined;
  if (input.node_id) {
    node = nodes.get(input.node_id);
    if (!node) throw notFound('Node');
  }
  const data = node?.node_data ?? {};
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  const payload: DocumentJobPayload = {
    boardId,
    nodeId: node?.id ?? null,
    source: cleanText(input.source ?? str(data.label) ?? str(data.url) ?? 'text'),
    sourceType: cleanText(input.source_type ?? node?.node_type ?? 'text'),
  };
  if (input.text !== undefined) {
    if (input.transcript_asset_id !== undefined) throw invalid('transcript_asset_id is for reading a video node; give it without text');
    const text = cleanText(input.text);
    if (text.trim() === '') throw invalid('text must contain some non-blank characters');
    payload.text = text;
    return payload;
  }
  if (!node) throw invalid('text is required, unless node_id names a node to read');
  const source = nodeSource(node, input, transcripts);
  return { ...payload, ...source, ...(source.text !== undefined ? { text: cleanText(source.text) } : {}) };
}

const vectorizeJob = (principal: Principal, boardId: string, payload: DocumentJobPayload): NewJob => ({
  userId: principal.userId,
  boardId,
  type: DOCUMENT_JOB,
  payload: payload as unknown as Record<string, unknown>,
});

export async function listChunks(
  db: Db,
  principal: Principal,
  boardId: string,
  nodeId: string | undefined,
  page: PageRequest,
  list: string,
): Promise<Page<Chunk>> {
  let query = db
    .selectFrom('document_chunks')
    .select(['id', 'content', 'node_id', 'metadata', 'model', 'created_at'])
    .where('board_id', '=', boardId)
    .where(visibleChunk(boardId))
    .where(boardVisibleTo(principal, boardId));
  if (nodeId !== undefined) query = query.where('node_id', '=', nodeId);
  const rows = (await applyPage(query, page, 'document_chunks').execute()) as unknown as Chunk[];
  if (rows.length === 0) await findVisibleBoard(db, principal, boardId);
  return toPage(rows, page, list);
}

/**
 * The board's indexed nodes: each node's live chunk set (the newest, should a model change have left
 * two) with the hash of the text its job vectorized, so a client can tell an index that is behind
 * its node's text. One row per node, so the whole list in one answer.
 */
export async function listNodeIndexes(db: Db, principal: Principal, boardId: string): Promise<NodeIndex[]> {
  await findVisibleBoard(db, principal, boardId);
  const { rows } = await sql<NodeIndex>`
    SELECT DISTINCT ON (s.node_id) s.node_id, s.chunks, s.created_at AS indexed_at, s.text_sha256
    FROM chunk_sets s
    WHERE s.board_id = ${boardId} AND s.state = 'live' AND s.node_id IS NOT NULL
    ORDER BY s.node_id, s.created_at DESC`.execute(db);
  return rows;
}

/**
 * Removes a node's chunks; answers how many were removed. Their sets are retired (the chunks vanish
 * at once) and the rows are deleted in the background.
 */
export async function deleteNodeChunks(
  deps: { db: Db; purger: PurgeRequests },
  principal: Principal,
  boardId: string,
  nodeId: string,
): Promise<number> {
  const { db } = deps;
  const board = await findVisibleBoard(db, principal, boardId);
  assertCanEditContent(board, principal);
  const node = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).where('board_id', '=', boardId).executeTakeFirst();
  if (!node) throw notFound('Node');
  const retired = await db
    .updateTable('chunk_sets')
    .set({ state: 'retired' })
    .where('board_id', '=', boardId)
    .where('node_id', '=', nodeId)
    .where('state', '=', 'live')
    .returning('chunks')
    .execute();
  if (retired.length > 0) deps.purger.kick();
  return retired.reduce((n, r) => n + r.chunks, 0);
}

/** What the documents' service is built with, once per app (src/modules/services.ts). */
export interface DocumentDeps {
  db: Db;
  embedder: Embedder;
  /** Retired chunk sets' purger: kicked after a node's chunks are retired. */
  purger: PurgeRequests;
  /** The bound on a user's unfinished jobs (JOB_MAX_QUEUED_PER_USER). */
  maxQueued: number;
  quotas: UserQuotas;
  /** SEARCH_EXACT_MAX_CHUNKS: up to how many candidate chunks a vector search scans exactly. */
  exactMaxChunks: number;
}

/**
 * The documents' service: vectorizing (queued jobs; the caller wakes the worker), listing and
 * deleting a board's chunks, the board search and the search across boards. Routes and MCP tools
 * call it with the request's values only.
 */
export class DocumentService {
  constructor(private readonly deps: DocumentDeps) {}

  private get search(): SearchDeps {
    return { db: this.deps.db, embedder: this.deps.embedder, exactMaxChunks: this.deps.exactMaxChunks };
  }

  vectorize(principal: Principal, boardId: string, input: VectorizeBody): Promise<Job> {
    return enqueueVectorize(this.deps.db, principal, boardId, input, this.deps.maxQueued, this.deps.quotas);
  }

  vectorizeBatch(principal: Principal, boardId: string, documents: VectorizeBody[]): Promise<Job[]> {
    return enqueueVectorizeBatch(this.deps.db, principal, boardId, documents, this.deps.maxQueued, this.deps.quotas);
  }

  listChunks(principal: Principal, boardId: string, nodeId: string | undefined, page: PageRequest, list: string): Promise<Page<Chunk>> {
    return listChunks(this.deps.db, principal, boardId, nodeId, page, list);
  }

  listNodeIndexes(principal: Principal, boardId: string): Promise<NodeIndex[]> {
    return listNodeIndexes(this.deps.db, principal, boardId);
  }

  deleteNodeChunks(principal: Principal, boardId: string, nodeId: string): Promise<number> {
    return deleteNodeChunks(this.deps, principal, boardId, nodeId);
  }

  /** One page of the board search; the board must be one the caller may read (404 otherwise). */
  searchBoard(principal: Principal, boardId: string, query: string, options: SearchOptions): Promise<Page<Hit>> {
    return searchChunksPage(this.search, boardId, query, options, principal);
  }

  /** One page of the search across the boards the caller may read. */
  searchAcrossBoards(principal: Principal, body: CrossBoardSearchBody): Promise<Page<CrossBoardHit>> {
    return searchAcrossBoards(this.search, principal, body);
  }
}
