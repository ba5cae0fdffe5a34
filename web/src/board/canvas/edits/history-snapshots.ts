// What the history (edit-history.ts) keeps of a node or edge it may have to re-create: an
// undone deletion or a redone creation is made from these snapshots through the outbox
// (sync/history-outbox.ts).
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import type { EdgeSnapshot, NodeSnapshot } from './edit-history';

export function snapshotNode(node: BoardFlowNode): NodeSnapshot | undefined {
  const type = apiTypeOf(node.type);
  if (!type) return undefined;
  return { id: node.id, type, position: { x: node.position.x, y: node.position.y }, data: node.data };
}

export function snapshotEdge(edge: Edge): EdgeSnapshot {
  return { id: edge.id, source: edge.source, target: edge.target, data: (edge.data ?? {}) as Record<string, unknown> };
}
