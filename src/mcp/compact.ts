// The compact form of a board an assistant reasons over: one line per node and per edge, and the
// same fields as structured objects. Long text is cut to a snippet (get_nodes reads it whole).
import type { Edge } from '../contract/edges.js';
import type { Node } from '../contract/nodes.js';
import type { NodeSummary } from '../nodes/node-service.js';

export const SNIPPET_CHARS = 200;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export function snippet(text: string, chars = SNIPPET_CHARS): string {
  const flat = oneLine(text);
  return flat.length > chars ? `${flat.slice(0, chars)}…` : flat;
}

/** What a node says: its text, else its url. */
export function nodeText(node: Pick<Node, 'node_data'>): string {
  const data = node.node_data as Record<string, unknown>;
  return str(data.text) ?? str(data.url) ?? str(data.publicUrl) ?? '';
}

export interface CompactNode {
  id: string;
  type: string;
  label: string | null;
  text: string;
  text_length: number;
  x: number;
  y: number;
  parent_node_id: string | null;
}

export interface CompactEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  label: string | null;
}

export function compactNode(node: Node): CompactNode {
  const text = nodeText(node);
  return {
    id: node.id,
    type: node.node_type,
    label: str((node.node_data as Record<string, unknown>).label) ?? null,
    text: snippet(text),
    text_length: text.length,
    x: node.position_x,
    y: node.position_y,
    parent_node_id: node.parent_node_id,
  };
}

/**
 * The compact form of a node read in brief (NodeService.listSummaries), the same as compactNode's;
 * null when its head cannot tell: a text whose first characters are nearly all white space, or
 * white space JavaScript knows and the database does not (read that node whole).
 */
export function compactSummary(node: NodeSummary): CompactNode | null {
  const flat = oneLine(node.text_head);
  const cut = node.text_head.length < node.text_length;
  if ((cut && flat.length <= SNIPPET_CHARS) || (flat === '' && node.text_length > 0)) return null;
  return {
    id: node.id,
    type: node.node_type,
    label: str(node.label) ?? null,
    text: flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat,
    text_length: node.text_length,
    x: node.position_x,
    y: node.position_y,
    parent_node_id: node.parent_node_id,
  };
}

export function compactEdge(edge: Edge): CompactEdge {
  return {
    id: edge.id,
    source: edge.source_node_id,
    target: edge.target_node_id,
    type: edge.edge_type,
    label: str((edge.edge_data as Record<string, unknown>).label) ?? null,
  };
}

/** `[id] type "label": text @ (x,y)`, and `in [parent]` for a child node. */
export function nodeLine(node: CompactNode): string {
  const label = node.label === null ? '' : ` "${oneLine(node.label)}"`;
  const text = node.text === '' ? '' : `: ${node.text}`;
  const parent = node.parent_node_id ? ` in [${node.parent_node_id}]` : '';
  return `[${node.id}] ${node.type}${label}${text} @ (${node.x},${node.y})${parent}`;
}

/** `id: source -> target (type, "label")`. */
export function edgeLine(edge: CompactEdge): string {
  const label = edge.label === null ? '' : `, "${oneLine(edge.label)}"`;
  return `${edge.id}: ${edge.source} -> ${edge.target} (${edge.type}${label})`;
}
