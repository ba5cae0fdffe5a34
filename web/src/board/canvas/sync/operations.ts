// The operations of the outbox (outbox.ts): every change a person makes to a board's nodes and
// edges, as the API's batch writes it (docs/api.md "Replaying a queue of edits safely"). Creates
// carry ids chosen here (crypto.randomUUID), so a create sent twice is answered as the first and
// later operations name the node before the service has answered. A note's text is an operation
// of its own: it is sent with If-Match and merged with others' changes (text-sync.ts).
import type { Edge } from '@xyflow/react';
import type { ApiNodeType } from '../../board-api';
import type { BoardFlowNode } from '../../flow-node';
import { edgeMarker, toFlowNode } from '../../flow-mapping';
import type { BatchOperation } from './batch-api';

type Point = { x: number; y: number };
type Data = Record<string, unknown>;

export type OutboxOp =
  | { op: 'create_node'; id: string; type: ApiNodeType; position: Point; data: Data }
  | { op: 'create_edge'; id: string; source: string; target: string; data: Data }
  /** A position and/or data keys (null removes a key); never a note's text (see `text`). `parent`:
   * the frame it now belongs to (parent_node_id; null: none), set when it is dropped. */
  | { op: 'update_node'; id: string; position?: Point; data?: Data; parent?: string | null }
  /** A note's whole text as the person has it, and the service's text it was typed on. */
  | { op: 'text'; id: string; text: string; base: string }
  /** Keys of an edge's data (null removes one). PATCH replaces the whole edge_data, so it is sent on
   * its own, on the edge as the service has it then (send.ts's patchEdgeData), not in a batch. */
  | { op: 'update_edge'; id: string; data: Data }
  | { op: 'delete_node'; id: string }
  | { op: 'delete_edge'; id: string };

/** The busy key of an operation (server-sync.ts holds the service's states of a busy node). */
export function keyOf(op: OutboxOp): string {
  switch (op.op) {
    case 'text':
      return `note:${op.id}`;
    case 'update_node':
      return op.position && !op.data ? `position:${op.id}` : `data:${op.id}`;
    case 'update_edge':
      return `edge:${op.id}`;
    case 'create_node':
    case 'create_edge':
      return `create:${op.id}`;
    case 'delete_node':
    case 'delete_edge':
      return `delete:${op.id}`;
  }
}

/** An operation sent on its own rather than in a batch: a note's text and an edge's data, each
 * written with If-Match on the state the service has (outbox.ts). */
export type SentAlone = Extract<OutboxOp, { op: 'text' | 'update_edge' }>;

export const sentAlone = (op: OutboxOp): op is SentAlone => op.op === 'text' || op.op === 'update_edge';

/** The batch operation sending `op`. */
export function batchOperation(op: Exclude<OutboxOp, SentAlone>): BatchOperation {
  switch (op.op) {
    case 'create_node':
      return { op: 'create_node', id: op.id, type: op.type, position: op.position, data: op.data };
    case 'create_edge':
      return { op: 'create_edge', id: op.id, source_node_id: op.source, target_node_id: op.target, data: op.data };
    case 'update_node':
      return {
        op: 'update_node',
        id: op.id,
        ...(op.position ? { position: op.position } : {}),
        ...(op.data ? { data: op.data } : {}),
        ...(op.parent !== undefined ? { parent_node_id: op.parent } : {}),
      };
    case 'delete_node':
      return { op: 'delete_node', id: op.id };
    case 'delete_edge':
      return { op: 'delete_edge', id: op.id };
  }
}

/** `data` with `patch` applied as the API's PATCH does (a key set to null is removed). */
export function patched(data: Data, patch: Data): Data {
  const out = { ...data, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === null) delete out[key];
  return out;
}

/** `later` folded into `earlier`, both waiting and of one target; undefined when they cannot be one. */
export function coalesce(earlier: OutboxOp, later: OutboxOp): OutboxOp | undefined {
  if (earlier.id !== later.id) return undefined;
  if (earlier.op === 'update_node' && later.op === 'update_node') {
    return {
      op: 'update_node',
      id: earlier.id,
      position: later.position ?? earlier.position,
      ...(earlier.data || later.data ? { data: { ...earlier.data, ...later.data } } : {}),
      ...(later.parent !== undefined ? { parent: later.parent } : earlier.parent !== undefined ? { parent: earlier.parent } : {}),
    };
  }
  // The text typed on top keeps the base of the first (what the service had when typing began).
  if (earlier.op === 'text' && later.op === 'text') return { ...later, base: earlier.base };
  if (earlier.op === 'update_edge' && later.op === 'update_edge') return { ...later, data: { ...earlier.data, ...later.data } };
  return undefined;
}

/** A node as the person's create makes it on the canvas. */
export function createdNode(op: Extract<OutboxOp, { op: 'create_node' }>): BoardFlowNode {
  const now = new Date().toISOString();
  return toFlowNode({
    id: op.id,
    node_type: op.type,
    position_x: op.position.x,
    position_y: op.position.y,
    node_data: op.data,
    created_at: now,
    updated_at: now,
  } as unknown as Parameters<typeof toFlowNode>[0]);
}

export function createdEdge(op: Extract<OutboxOp, { op: 'create_edge' }>): Edge {
  return {
    id: op.id,
    source: op.source,
    target: op.target,
    data: op.data,
    markerEnd: edgeMarker(op.data),
    ...(typeof op.data.label === 'string' ? { label: op.data.label } : {}),
  };
}

/**
 * The loaded board with the pending operations on it (a reload shows what the person did, sent or
 * not). Texts are left to text-sync.ts, which shows them as the person's own.
 */
export function withPending(nodes: BoardFlowNode[], edges: Edge[], ops: OutboxOp[]): { nodes: BoardFlowNode[]; edges: Edge[] } {
  const nodeMap = new Map(nodes.map((n) => [n.id, n]));
  const edgeMap = new Map(edges.map((e) => [e.id, e]));
  for (const op of ops) {
    switch (op.op) {
      case 'create_node':
        if (!nodeMap.has(op.id)) nodeMap.set(op.id, createdNode(op));
        break;
      case 'create_edge':
        if (!edgeMap.has(op.id)) edgeMap.set(op.id, createdEdge(op));
        break;
      case 'update_node': {
        const node = nodeMap.get(op.id);
        if (node)
          nodeMap.set(op.id, { ...node, position: op.position ?? node.position, data: op.data ? patched(node.data, op.data) : node.data });
        break;
      }
      case 'update_edge': {
        const edge = edgeMap.get(op.id);
        if (edge) {
          const data = patched((edge.data ?? {}) as Data, op.data);
          const label = typeof data.label === 'string' ? data.label : undefined;
          edgeMap.set(op.id, { ...edge, data, label, markerEnd: edgeMarker(data) });
        }
        break;
      }
      case 'delete_node':
        nodeMap.delete(op.id);
        for (const [id, e] of edgeMap) if (e.source === op.id || e.target === op.id) edgeMap.delete(id);
        break;
      case 'delete_edge':
        edgeMap.delete(op.id);
        break;
      case 'text':
        break;
    }
  }
  return { nodes: [...nodeMap.values()], edges: [...edgeMap.values()] };
}
