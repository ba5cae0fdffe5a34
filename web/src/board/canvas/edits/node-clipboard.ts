// Copying nodes (with the edges between them) from one board and pasting them into the same or
// another board. What is copied goes to the system clipboard as text/plain JSON marked
// `"type": "board-workspace/nodes"` (so another tab, or another board, can paste it) and is kept
// in localStorage too, for when the clipboard cannot be read. Pasting is one batch write:
// `create_node` with a client `ref` per node and `create_edge` naming both ends by ref.
// PDF and image nodes point at a file of their own board (docs/assets.md): pasted into another
// board they become link cards to the original file (its url works without signing in), with a
// notice saying so; within the same board they stay file nodes. A document made from a file keeps
// its text and links to the file instead.
import type { XYPosition } from '@xyflow/react';
import type { ApiNodeType } from '../../board-api';
import type { BatchOperation } from '../sync/batch-api';
import type { EdgeSnapshot, NodeSnapshot } from './edit-history';

export const CLIPBOARD_MARKER = 'board-workspace/nodes';
const STORAGE_KEY = 'bw-node-clipboard';

export interface NodeClipboard {
  type: typeof CLIPBOARD_MARKER;
  version: 1;
  /** The board the nodes were copied from (file nodes only paste as files there). */
  board_id: string;
  nodes: NodeSnapshot[];
  edges: EdgeSnapshot[];
}

const NODE_TYPES = new Set<ApiNodeType>(['note', 'url', 'video', 'document', 'pdf', 'image']);
const FILE_TYPES = new Set<ApiNodeType>(['pdf', 'image']);

/** The copy of `nodes` and of the edges among them. */
export function makeClipboard(boardId: string, nodes: NodeSnapshot[], edges: EdgeSnapshot[]): NodeClipboard {
  const ids = new Set(nodes.map((n) => n.id));
  return {
    type: CLIPBOARD_MARKER,
    version: 1,
    board_id: boardId,
    nodes,
    edges: edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPoint = (value: unknown): value is XYPosition => isObject(value) && Number.isFinite(value.x) && Number.isFinite(value.y);

/** The copy in `text`, or undefined when `text` is anything else (left to other paste handlers). */
export function parseClipboard(text: string | undefined | null): NodeClipboard | undefined {
  if (!text?.includes(CLIPBOARD_MARKER)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.type !== CLIPBOARD_MARKER || typeof value.board_id !== 'string') return undefined;
  if (!Array.isArray(value.nodes) || !Array.isArray(value.edges)) return undefined;
  const nodes = value.nodes.filter(
    (n): n is NodeSnapshot =>
      isObject(n) && typeof n.id === 'string' && NODE_TYPES.has(n.type as ApiNodeType) && isPoint(n.position) && isObject(n.data),
  );
  const ids = new Set(nodes.map((n) => n.id));
  const edges = value.edges.filter(
    (e): e is EdgeSnapshot =>
      isObject(e) && typeof e.id === 'string' && ids.has(e.source as string) && ids.has(e.target as string) && isObject(e.data),
  );
  if (nodes.length === 0) return undefined;
  return { type: CLIPBOARD_MARKER, version: 1, board_id: value.board_id, nodes, edges };
}

export function storeClipboard(copy: NodeClipboard): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(copy));
  } catch {
    // Storage full or disabled: the system clipboard still has it.
  }
}

export function storedClipboard(): NodeClipboard | undefined {
  try {
    return parseClipboard(localStorage.getItem(STORAGE_KEY));
  } catch {
    return undefined;
  }
}

/** The top-left corner of the copied nodes' positions. */
function originOf(nodes: NodeSnapshot[]): XYPosition {
  return { x: Math.min(...nodes.map((n) => n.position.x)), y: Math.min(...nodes.map((n) => n.position.y)) };
}

/**
 * The batch that pastes `copy` into `boardId` with its top-left corner at `at`, and how many file
 * nodes became link cards. Refs are the copied ids; the caller maps results back by `ref`.
 */
export function pasteOperations(copy: NodeClipboard, boardId: string, at: XYPosition): { operations: BatchOperation[]; linked: number } {
  const origin = originOf(copy.nodes);
  const sameBoard = copy.board_id === boardId;
  let linked = 0;
  const operations: BatchOperation[] = copy.nodes.map((n) => {
    const position = { x: Math.round(at.x + n.position.x - origin.x), y: Math.round(at.y + n.position.y - origin.y) };
    if (FILE_TYPES.has(n.type) && !sameBoard && typeof n.data.publicUrl === 'string') {
      linked++;
      const { storagePath: _path, publicUrl, fileSize: _size, ...rest } = n.data;
      const name = typeof n.data.label === 'string' && n.data.label ? n.data.label : 'File';
      return { op: 'create_node', ref: n.id, type: 'url', position, data: { ...rest, url: publicUrl, label: name } };
    }
    // A document made from an uploaded file keeps its text (once read) and links to the file.
    if (n.type === 'document' && !sameBoard && typeof n.data.storagePath === 'string') {
      const { storagePath: _path, publicUrl, fileSize: _size, read_at: _read, ...rest } = n.data;
      return { op: 'create_node', ref: n.id, type: 'document', position, data: { ...rest, url: publicUrl } };
    }
    return { op: 'create_node', ref: n.id, type: n.type, position, data: n.data };
  });
  for (const e of copy.edges) {
    operations.push({ op: 'create_edge', source_ref: e.source, target_ref: e.target, data: e.data });
  }
  return { operations, linked };
}

/** Where `copy` goes when pasted with no pointer on the canvas: a step right and down of the original. */
export function offsetOrigin(copy: NodeClipboard, step: number): XYPosition {
  const origin = originOf(copy.nodes);
  return { x: origin.x + step, y: origin.y + step };
}
