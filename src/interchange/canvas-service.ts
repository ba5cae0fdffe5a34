// JSON Canvas export and import (json-canvas.ts maps; this reads and writes). An import creates a
// new board in one transaction, so a refused document leaves nothing; the files of its file nodes
// that are the importer's own assets are copied to the new board first (and removed again when the
// import fails), so the new board does not depend on the board it came from.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { findVisibleBoard } from '../access/board-access.js';
import { assertWithinBounds } from '../access/board-bounds.js';
import { assertBoardQuota, assertStorageQuota } from '../access/user-quota.js';
import type { BoardService } from '../boards/board-service.js';
import type { Board } from '../contract/boards.js';
import { fieldsOf } from '../contract/common.js';
import { Edge } from '../contract/edges.js';
import { type CanvasDocument, EXTENSION_KEY, type ImportWarning } from '../contract/json-canvas.js';
import { Node } from '../contract/nodes.js';
import type { Db } from '../db/schema.js';
import { ApiError, conflict, invalid } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { storedNodeData } from '../nodes/node-data.js';
import { toStoredJson } from '../nodes/json-data.js';
import type { Storage } from '../providers/storage/storage.js';
import { type AssetService, assetUrlPath, type Origin } from '../assets/asset-service.js';
import { CanvasError, canvasEdge, canvasNode, edgeExtension, nodeExtension, parseCanvas, planImport } from './json-canvas.js';
import type { BoardBounds } from '../config.js';

/** Nodes read per statement of an export: small enough that other callers' statements go in between. */
const EXPORT_NODES_PER_READ = 50;
/** Edges read per statement of an export. */
const EXPORT_EDGES_PER_READ = 500;
/** Node keys (no data) read per statement when finding the groups. */
const EXPORT_KEYS_PER_READ = 100;

/**
 * A board's JSON Canvas document, checked for access now and written later in pieces as its rows
 * are read (`body`), a page of rows per statement: the document is never whole in memory, and
 * other callers' statements interleave with its reads (on the embedded database's one connection
 * too). The text is exactly the JSON of `toCanvas` over the same rows: groups first, then the rest,
 * each in the board's order (created_at, id); the extension after the edges, in the same order.
 *
 * The reads are not one snapshot (as the two statements before were not): a node added while the
 * export runs may or may not be in it, an edge is only written when both its nodes are, and the
 * extension describes exactly the nodes and edges written above it.
 */
async function exportCanvas(db: Db, principal: Principal, boardId: string): Promise<{ name: string; body: AsyncIterable<string> }> {
  const board = await findVisibleBoard(db, principal, boardId);
  return { name: board.name, body: canvasText(db, board.name, boardId) };
}

async function* canvasText(db: Db, name: string, boardId: string): AsyncGenerator<string> {
  const groups = await groupIds(db, boardId);
  const nodes = new Set<string>();
  const edges = new Set<string>();
  yield '{"nodes":[';
  for await (const page of exportedNodes(db, boardId, groups)) {
    let text = '';
    for (const node of page) {
      if (nodes.has(node.id)) continue;
      text += `${nodes.size === 0 ? '' : ','}${JSON.stringify(canvasNode(node))}`;
      nodes.add(node.id);
    }
    yield text;
  }
  yield '],"edges":[';
  for await (const page of exportedEdges(db, boardId)) {
    let text = '';
    for (const edge of page) {
      if (!nodes.has(edge.source_node_id) || !nodes.has(edge.target_node_id)) continue;
      text += `${edges.size === 0 ? '' : ','}${JSON.stringify(canvasEdge(edge))}`;
      edges.add(edge.id);
    }
    yield text;
  }
  yield `],${JSON.stringify(EXTENSION_KEY)}:{"version":1,"board":${JSON.stringify({ name })},"nodes":{`;
  let first = true;
  for await (const page of exportedNodes(db, boardId, groups)) {
    let text = '';
    for (const node of page) {
      if (!nodes.delete(node.id)) continue; // not written above, or described already
      text += `${first ? '' : ','}${JSON.stringify(node.id)}:${JSON.stringify(nodeExtension(node))}`;
      first = false;
    }
    yield text;
  }
  yield '},"edges":{';
  first = true;
  for await (const page of exportedEdges(db, boardId)) {
    let text = '';
    for (const edge of page) {
      if (!edges.delete(edge.id)) continue;
      text += `${first ? '' : ','}${JSON.stringify(edge.id)}:${JSON.stringify(edgeExtension(edge))}`;
      first = false;
    }
    yield text;
  }
  yield '}}}';
}

type Key = { created_at: Date; id: string };
/** Rows after `key` in the board's order, as the lists' keyset (an index range of (board_id, created_at, id)). */
const after = (key: Key | undefined) => () =>
  (key === undefined ? sql<boolean>`true` : sql<boolean>`(created_at, id) > (${key.created_at}, ${key.id}::uuid)`) as never;

/** The board's group nodes' ids, in the board's order: keys only (reading a node's group flag reads its data: a page a statement). */
async function groupIds(db: Db, boardId: string): Promise<string[]> {
  const ids: string[] = [];
  let last: Key | undefined;
  for (;;) {
    // The page's keys first, then only their data read (see NodeService.listSummaries: beside the
    // ORDER BY, a plan that sorts would read the data of every node after `last`).
    const chosen = db
      .selectFrom('nodes')
      .select(['id', 'created_at', 'node_data'])
      .where('board_id', '=', boardId)
      .where(after(last))
      .orderBy('created_at')
      .orderBy('id')
      .limit(EXPORT_KEYS_PER_READ)
      .as('page');
    const rows = await db
      .selectFrom(chosen)
      .select(['id', 'created_at', sql<boolean>`node_data->'group' IS NOT DISTINCT FROM 'true'::jsonb`.as('is_group')])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (const row of rows) if (row.is_group) ids.push(row.id);
    if (rows.length < EXPORT_KEYS_PER_READ) return ids;
    last = rows.at(-1)!;
  }
}

/** The board's nodes in the canvas's order, a page a statement: the groups (by id), then the rest. */
async function* exportedNodes(db: Db, boardId: string, groups: string[]): AsyncGenerator<Node[]> {
  for (let i = 0; i < groups.length; i += EXPORT_NODES_PER_READ) {
    const rows = await db
      .selectFrom('nodes')
      .select(fieldsOf(Node))
      .where('board_id', '=', boardId)
      .where('id', 'in', groups.slice(i, i + EXPORT_NODES_PER_READ))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    yield rows;
  }
  const isGroup = new Set(groups);
  let last: Key | undefined;
  for (;;) {
    const rows = await db
      .selectFrom('nodes')
      .select(fieldsOf(Node))
      .where('board_id', '=', boardId)
      .where(after(last))
      .orderBy('created_at')
      .orderBy('id')
      .limit(EXPORT_NODES_PER_READ)
      .execute();
    yield rows.filter((node) => !isGroup.has(node.id));
    if (rows.length < EXPORT_NODES_PER_READ) return;
    last = rows.at(-1)!;
  }
}

/** The board's edges in its order, a page a statement. */
async function* exportedEdges(db: Db, boardId: string): AsyncGenerator<Edge[]> {
  let last: Key | undefined;
  for (;;) {
    const rows = await db
      .selectFrom('edges')
      .select(fieldsOf(Edge))
      .where('board_id', '=', boardId)
      .where(after(last))
      .orderBy('created_at')
      .orderBy('id')
      .limit(EXPORT_EDGES_PER_READ)
      .execute();
    yield rows;
    if (rows.length < EXPORT_EDGES_PER_READ) return;
    last = rows.at(-1)!;
  }
}

/** What JSON Canvas import and export are built with, once per app (src/modules/services.ts). */
export interface CanvasDeps {
  db: Db;
  storage: Storage;
  bounds: BoardBounds;
  /** The new board's row (BoardService.insert). */
  boards: BoardService;
  /** The copied files' urls (AssetService.baseUrl). */
  assets: AssetService;
}

export interface ImportResult {
  board: Board;
  nodes: number;
  edges: number;
  warnings: ImportWarning[];
}

const asInvalid = (error: CanvasError) =>
  invalid(`The canvas is not valid JSON Canvas 1.0 at ${error.path || '/'}: ${error.message.slice(error.path.length + 2)}`);

/** Creates a board from a canvas document; `name` overrides the name it carries. */
async function importCanvas(
  deps: CanvasDeps,
  principal: Principal,
  document: unknown,
  name: string | undefined,
  { origin }: Origin,
): Promise<ImportResult> {
  const baseUrl = deps.assets.baseUrl(origin);
  let plan: ReturnType<typeof planImport>;
  let canvas: CanvasDocument;
  const assets = new Map<string, { content_type: string; size: number; filename: string }>();
  try {
    canvas = parseCanvas(document);
    // The importer's own assets among the file nodes' paths: these are copied.
    const paths = [...new Set((canvas.nodes ?? []).flatMap((node) => (node.type === 'file' ? [node.file] : [])))];
    for (let i = 0; i < paths.length; i += 500) {
      const rows = await deps.db
        .selectFrom('assets')
        .select(['storage_path', 'content_type', 'size', 'filename'])
        .where('storage_path', 'in', paths.slice(i, i + 500))
        .where('user_id', '=', principal.userId)
        .where('size', 'is not', null)
        .execute();
      for (const row of rows) assets.set(row.storage_path, { content_type: row.content_type, size: row.size!, filename: row.filename });
    }
    plan = planImport(canvas, (path) => {
      const asset = assets.get(path);
      return asset === undefined ? undefined : asset.content_type === 'application/pdf' ? 'pdf' : 'image';
    });
  } catch (error) {
    if (error instanceof CanvasError) throw asInvalid(error);
    throw error;
  }
  const { bounds } = deps;
  if (plan.nodes.length > bounds.maxNodes)
    throw conflict(`The canvas has ${plan.nodes.length} nodes; a board holds at most ${bounds.maxNodes}`);
  if (plan.edges.length > bounds.maxEdges)
    throw conflict(`The canvas has ${plan.edges.length} edges; a board holds at most ${bounds.maxEdges}`);

  const boardId = newId();
  const at = now();
  const copied: {
    path: string;
    row: { storage_path: string; filename: string; content_type: string; size: number; access_token: string };
  }[] = [];
  const byKey = new Map(plan.nodes.map((node) => [node.key, newId()]));
  try {
    // Files first, outside the transaction (a copy can take a while): each under the new board.
    let bytes = 0;
    for (const node of plan.nodes) {
      if (!node.fileFrom) continue;
      const source = assets.get(node.fileFrom)!;
      bytes += source.size;
      if (bytes > bounds.maxAssetBytes)
        throw conflict(`The canvas's files take more than the ${bounds.maxAssetBytes} bytes a board may hold`);
      const filename = `${at.getTime()}-${copied.length}-${source.filename.replace(/^\d+-/, '')}`;
      const path = `${principal.userId}/${boardId}/${filename}`;
      const file = await deps.storage.get(node.fileFrom);
      if (!file) throw invalid(`The file ${node.fileFrom} is missing from storage`);
      const { size } = await deps.storage.put(path, file.body, source.content_type);
      const row = {
        storage_path: path,
        filename,
        content_type: source.content_type,
        size,
        access_token: randomBytes(24).toString('base64url'),
      };
      copied.push({ path, row });
      node.data = { ...node.data, storagePath: path, publicUrl: `${baseUrl}${assetUrlPath(row)}`, fileSize: size };
    }

    const rows = plan.nodes.map((node, i) => {
      let data: string;
      try {
        data = storedNodeData(node.type, node.data);
      } catch (error) {
        if (error instanceof ApiError) throw invalid(`The canvas's node at /nodes/${i} cannot be imported: ${error.message}`);
        throw error;
      }
      return {
        id: byKey.get(node.key)!,
        board_id: boardId,
        node_type: node.type,
        position_x: node.x,
        position_y: node.y,
        node_data: data,
        parent_node_id: null,
        created_at: at,
        updated_at: at,
      };
    });
    const edgeRows = plan.edges.map((edge, i) => {
      let data: string;
      try {
        data = toStoredJson(edge.data, 'data');
      } catch (error) {
        if (error instanceof ApiError) throw invalid(`The canvas's edge at /edges/${i} cannot be imported: ${error.message}`);
        throw error;
      }
      return {
        id: newId(),
        board_id: boardId,
        source_node_id: byKey.get(edge.fromKey)!,
        target_node_id: byKey.get(edge.toKey)!,
        edge_type: edge.type.slice(0, 100) || 'default',
        edge_data: data,
        created_at: at,
        updated_at: at,
      };
    });

    const board = await deps.db.transaction().execute(async (trx) => {
      const made = await deps.boards.insert(
        trx,
        principal,
        { name: (name ?? plan.name ?? 'Imported canvas').slice(0, 200) || 'Imported canvas' },
        boardId,
      );
      if (copied.length > 0) {
        await trx
          .insertInto('assets')
          .values(copied.map(({ row }) => ({ ...row, board_id: boardId, user_id: principal.userId, created_at: at })))
          .execute();
      }
      for (let i = 0; i < rows.length; i += 1000)
        await trx
          .insertInto('nodes')
          .values(rows.slice(i, i + 1000))
          .execute();
      const parents = plan.nodes.flatMap((node) => (node.parentKey ? [[byKey.get(node.key)!, byKey.get(node.parentKey)!]] : []));
      for (let i = 0; i < parents.length; i += 1000) {
        const slice = parents.slice(i, i + 1000);
        await sql`
          UPDATE nodes SET parent_node_id = p.parent
          FROM unnest(${slice.map((p) => p[0])}::uuid[], ${slice.map((p) => p[1])}::uuid[]) AS p(id, parent)
          WHERE nodes.id = p.id`.execute(trx);
      }
      for (let i = 0; i < edgeRows.length; i += 1000)
        await trx
          .insertInto('edges')
          .values(edgeRows.slice(i, i + 1000))
          .execute();
      await assertWithinBounds(trx, boardId, bounds);
      await assertBoardQuota(trx, principal.userId, bounds.owner);
      await assertStorageQuota(trx, { userId: principal.userId }, bounds.owner);
      return made;
    });
    return { board, nodes: rows.length, edges: edgeRows.length, warnings: plan.warnings };
  } catch (error) {
    for (const { path } of copied) await deps.storage.delete(path).catch(() => {});
    throw error;
  }
}

/** The app's JSON Canvas export and import. */
export class CanvasService {
  constructor(private readonly deps: CanvasDeps) {}

  /** See exportCanvas: the board's name, and the document written in pieces as its rows are read. */
  export(principal: Principal, boardId: string): Promise<{ name: string; body: AsyncIterable<string> }> {
    return exportCanvas(this.deps.db, principal, boardId);
  }

  /** Creates a board from a canvas document; `name` overrides the name it carries. */
  import(principal: Principal, document: unknown, name: string | undefined, origin: Origin): Promise<ImportResult> {
    return importCanvas(this.deps, principal, document, name, origin);
  }
}
