// The mapping between a board and a JSON Canvas 1.0 document (docs/json-canvas.md). Pure: no
// database, no storage. Export writes what the format can say and, under `x-board-workspace`, what
// it cannot (node types, labels, the rest of node and edge data, parents), so importing an export
// restores the board; a canvas from another tool is read by the format alone.
import { Value } from '@sinclair/typebox/value';
import type { Board } from '../contract/boards.js';
import type { Edge } from '../contract/edges.js';
import {
  type CanvasDocument,
  CanvasEdge,
  CanvasExtension,
  CanvasNode,
  EXTENSION_KEY,
  type ImportWarning,
} from '../contract/json-canvas.js';
import type { Node, NodeType } from '../contract/nodes.js';

/** Sizes a node without its own are drawn at, by type. */
const DEFAULT_SIZE: Record<NodeType | 'group', { width: number; height: number }> = {
  note: { width: 260, height: 160 },
  document: { width: 300, height: 200 },
  url: { width: 300, height: 120 },
  video: { width: 400, height: 260 },
  pdf: { width: 300, height: 400 },
  image: { width: 300, height: 220 },
  group: { width: 500, height: 400 },
};

const COLOR = /^([1-6]|#[0-9a-fA-F]{6})$/;
const SIDES = new Set(['top', 'right', 'bottom', 'left']);
const ENDS = new Set(['none', 'arrow']);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const dimension = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : fallback;

/** The canvas document of a board, nodes and edges in the board's order (groups first: the format draws later nodes on top). */
export function toCanvas(board: Pick<Board, 'name'>, nodes: Node[], edges: Edge[]): CanvasDocument {
  const extension: CanvasExtension = { version: 1, board: { name: board.name }, nodes: {}, edges: {} };
  const ordered = [...nodes].sort((a, b) => Number(isGroupNode(b)) - Number(isGroupNode(a)));
  const canvasNodes = ordered.map((node): CanvasNode => {
    extension.nodes[node.id] = nodeExtension(node);
    return canvasNode(node);
  });
  const canvasEdges = edges.map((edge): CanvasEdge => {
    extension.edges[edge.id] = edgeExtension(edge);
    return canvasEdge(edge);
  });
  return { nodes: canvasNodes, edges: canvasEdges, [EXTENSION_KEY]: extension };
}

type ExportedNode = Pick<Node, 'id' | 'node_type' | 'position_x' | 'position_y' | 'node_data' | 'parent_node_id'>;
type ExportedEdge = Pick<Edge, 'id' | 'source_node_id' | 'target_node_id' | 'edge_type' | 'edge_data'>;

const dataOf = (node: ExportedNode) => node.node_data as Record<string, unknown>;

/** A group is a note whose data says `"group": true`; the canvas has groups first. */
const isGroupNode = (node: ExportedNode): boolean => dataOf(node).group === true;

/** What the service keeps of a node under `x-board-workspace`. */
export const nodeExtension = (node: ExportedNode): CanvasExtension['nodes'][string] => ({
  type: node.node_type,
  data: dataOf(node),
  parent: node.parent_node_id,
});

/** What the service keeps of an edge under `x-board-workspace`. */
export const edgeExtension = (edge: ExportedEdge): CanvasExtension['edges'][string] => ({
  type: edge.edge_type,
  data: edge.edge_data as Record<string, unknown>,
});

/** A node as the format has it. */
export function canvasNode(node: ExportedNode): CanvasNode {
  const data = dataOf(node);
  const isGroup = data.group === true;
  const size = DEFAULT_SIZE[isGroup ? 'group' : (node.node_type as NodeType)] ?? DEFAULT_SIZE.note;
  const common = {
    id: node.id,
    x: Math.round(node.position_x),
    y: Math.round(node.position_y),
    width: dimension(data.width, size.width),
    height: dimension(data.height, size.height),
    ...(typeof data.color === 'string' && COLOR.test(data.color) ? { color: data.color } : {}),
  };
  if (isGroup) {
    const label = str(data.label);
    const background = str(data.background);
    const style = str(data.backgroundStyle);
    return {
      ...common,
      type: 'group',
      ...(label !== undefined ? { label } : {}),
      ...(background !== undefined ? { background } : {}),
      ...(style === 'cover' || style === 'ratio' || style === 'repeat' ? { backgroundStyle: style } : {}),
    };
  }
  switch (node.node_type) {
    case 'url':
    case 'video':
      return { ...common, type: 'link', url: str(data.url) ?? '' };
    case 'pdf':
    case 'image':
      return { ...common, type: 'file', file: str(data.storagePath) ?? '' };
    default:
      return { ...common, type: 'text', text: str(data.text) ?? '' };
  }
}

/** An edge as the format has it. */
export function canvasEdge(edge: ExportedEdge): CanvasEdge {
  const data = edge.edge_data as Record<string, unknown>;
  const pick = (key: string, allowed: Set<string>) => (typeof data[key] === 'string' && allowed.has(data[key]) ? { [key]: data[key] } : {});
  return {
    id: edge.id,
    fromNode: edge.source_node_id,
    toNode: edge.target_node_id,
    ...pick('fromSide', SIDES),
    ...pick('toSide', SIDES),
    // The published schema has no fromEnd: written only when it is not the default (none).
    ...(data.fromEnd === 'arrow' ? { fromEnd: 'arrow' as const } : {}),
    ...pick('toEnd', ENDS),
    ...(typeof data.color === 'string' && COLOR.test(data.color) ? { color: data.color } : {}),
    ...(typeof data.label === 'string' ? { label: data.label } : {}),
  };
}

/** A node to create: `key` is its id in the canvas; a file node names the asset to copy. */
export interface PlannedNode {
  key: string;
  type: NodeType;
  data: Record<string, unknown>;
  x: number;
  y: number;
  parentKey: string | null;
  /** A pdf or image node: the storage path of the asset its file is copied from. */
  fileFrom?: string;
}

export interface PlannedEdge {
  fromKey: string;
  toKey: string;
  type: string;
  data: Record<string, unknown>;
}

export interface ImportPlan {
  name: string | undefined;
  nodes: PlannedNode[];
  edges: PlannedEdge[];
  warnings: ImportWarning[];
}

/** Refuses a document whose ids repeat or whose edges name missing nodes: the JSON path of the first. */
export class CanvasError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const NODE_SCHEMAS = Object.fromEntries(CanvasNode.anyOf.map((schema) => [schema.properties.type.const, schema]));
const MAX_ITEMS = 100_000;

function firstError(schema: Parameters<typeof Value.Errors>[0], value: unknown, at: string): void {
  const error = Value.Errors(schema, value).First();
  if (error) throw new CanvasError(`${at}${error.path}`, error.message);
}

/**
 * Checks a document against JSON Canvas 1.0, naming the JSON pointer of the first problem: each
 * node against the schema of its own type, so the message is about that type's fields.
 */
export function parseCanvas(value: unknown): CanvasDocument {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CanvasError('', 'a JSON Canvas document is a JSON object');
  const doc = value as Record<string, unknown>;
  for (const key of ['nodes', 'edges'] as const) {
    const list = doc[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new CanvasError(`/${key}`, `${key} must be an array`);
    if (list.length > MAX_ITEMS) throw new CanvasError(`/${key}`, `at most ${MAX_ITEMS} ${key}`);
    list.forEach((item, i) => {
      if (key === 'edges') return firstError(CanvasEdge, item, `/edges/${i}`);
      const type = (item as { type?: unknown } | null)?.type;
      const schema = typeof type === 'string' ? NODE_SCHEMAS[type] : undefined;
      if (!schema) throw new CanvasError(`/nodes/${i}/type`, 'type must be text, file, link or group');
      firstError(schema, item, `/nodes/${i}`);
    });
  }
  if (doc[EXTENSION_KEY] !== undefined) firstError(CanvasExtension, doc[EXTENSION_KEY], `/${EXTENSION_KEY}`);
  return doc as CanvasDocument;
}

const VIDEO_HOSTS = /(^|\.)(youtube\.com|youtube-nocookie\.com|youtu\.be|vimeo\.com)$/i;

function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && value.length <= 8192 ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What to create for a canvas document. `isAsset(path)` tells whether a file node's path is an
 * asset the importer may copy (with its type); a file that is not becomes a note saying so.
 */
export function planImport(doc: CanvasDocument, isAsset: (path: string) => 'pdf' | 'image' | undefined): ImportPlan {
  const warnings: ImportWarning[] = [];
  const canvasNodes = doc.nodes ?? [];
  const extension = doc[EXTENSION_KEY];
  const seen = new Set<string>();
  canvasNodes.forEach((node, i) => {
    if (seen.has(node.id)) throw new CanvasError(`/nodes/${i}/id`, `the node id ${JSON.stringify(node.id)} is used twice`);
    seen.add(node.id);
  });

  const nodes = canvasNodes.map((node, i): PlannedNode => {
    const path = `/nodes/${i}`;
    const own = extension?.nodes[node.id];
    const base = { key: node.id, x: node.x, y: node.y, parentKey: null };
    const shape = { width: node.width, height: node.height, ...(node.color !== undefined ? { color: node.color } : {}) };
    if (own && isNodeType(own.type) && !(own.type === 'pdf' || own.type === 'image')) {
      const parentKey = own.parent !== null && seen.has(own.parent) ? own.parent : null;
      return { ...base, type: own.type, data: { ...own.data, ...changedShape(node, own) }, parentKey };
    }
    switch (node.type) {
      case 'text':
        return { ...base, type: 'note', data: { text: node.text, ...shape } };
      case 'link': {
        const url = httpUrl(node.url);
        if (!url) {
          warnings.push({ path: `${path}/url`, message: 'not an http or https URL: imported as a note with the text of the link' });
          return { ...base, type: 'note', data: { text: node.url, ...shape } };
        }
        return { ...base, type: VIDEO_HOSTS.test(url.hostname) ? 'video' : 'url', data: { url: node.url, ...shape } };
      }
      case 'file': {
        const kind = isAsset(node.file);
        if (!kind) {
          warnings.push({ path: `${path}/file`, message: 'not a file you have uploaded here: imported as a note naming it' });
          return { ...base, type: 'note', data: { text: `File not imported: ${node.file}`, ...shape } };
        }
        // The file's own keys are those of the copy, set when it is made.
        const { storagePath: _s, publicUrl: _p, fileSize: _f, ...kept } = (own?.data ?? {}) as Record<string, unknown>;
        const data = own ? { ...kept, ...changedShape(node, own) } : shape;
        return { ...base, type: kind, data, fileFrom: node.file, parentKey: own?.parent && seen.has(own.parent) ? own.parent : null };
      }
      case 'group':
        if (node.background !== undefined) warnings.push({ path: `${path}/background`, message: 'group backgrounds are not kept' });
        return {
          ...base,
          type: 'note',
          data: { text: '', group: true, ...(node.label !== undefined ? { label: node.label } : {}), ...shape },
        };
    }
  });
  // Without the service's own record of parents, a node inside a group belongs to it (the smallest
  // group that contains it whole).
  if (!extension) {
    const groups = canvasNodes.filter((node) => node.type === 'group');
    nodes.forEach((planned, i) => {
      const node = canvasNodes[i]!;
      const inside = groups.filter((g) => g.id !== node.id && contains(g, node));
      inside.sort((a, b) => a.width * a.height - b.width * b.height);
      planned.parentKey = inside[0]?.id ?? null;
    });
  }

  // A parent chain must end: a document that makes a node its own ancestor is refused.
  const parentOf = new Map(nodes.map((node) => [node.key, node.parentKey]));
  const ends = new Set<string>(); // nodes whose chain of parents is known to end
  nodes.forEach((node, i) => {
    const chain = new Set<string>();
    for (let at: string | null | undefined = node.key; at && !ends.has(at); at = parentOf.get(at)) {
      if (chain.has(at)) throw new CanvasError(`/nodes/${i}`, 'its parents form a loop');
      chain.add(at);
    }
    for (const key of chain) ends.add(key);
  });

  const edges = (doc.edges ?? []).map((edge, i): PlannedEdge => {
    for (const end of ['fromNode', 'toNode'] as const) {
      if (!seen.has(edge[end])) throw new CanvasError(`/edges/${i}/${end}`, `no node has the id ${JSON.stringify(edge[end])}`);
    }
    const own = extension?.edges[edge.id];
    const { id: _id, fromNode, toNode, ...presentation } = edge;
    return { fromKey: fromNode, toKey: toNode, type: own?.type ?? 'default', data: { ...own?.data, ...presentation } };
  });
  return { name: extension?.board.name, nodes, edges, warnings };
}

/** What another tool changed of a node this service exported: size and colour as the canvas has them, unless they are the export's defaults. */
function changedShape(node: CanvasNode, own: CanvasExtension['nodes'][string]): Record<string, unknown> {
  const data = own.data as Record<string, unknown>;
  const size = DEFAULT_SIZE[data.group === true ? 'group' : (own.type as NodeType)] ?? DEFAULT_SIZE.note;
  const changed: Record<string, unknown> = {};
  if (data.width !== undefined || node.width !== size.width) changed.width = node.width;
  if (data.height !== undefined || node.height !== size.height) changed.height = node.height;
  if (node.color !== undefined) changed.color = node.color;
  return changed;
}

const isNodeType = (type: string): type is NodeType => type in DEFAULT_SIZE && type !== 'group';

const contains = (outer: CanvasNode, inner: CanvasNode): boolean =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;
