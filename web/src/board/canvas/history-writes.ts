// How a recorded creation or deletion (canvas/edit-history.ts) is made on the service and shown on
// the canvas, for undo and redo: several nodes and edges go as one batch (all or nothing). Nodes
// re-created get new ids, which are mapped in the history. (Text, moves and data are undone as
// local changes against the current state: edits/reapply.ts.) Used by use-board-edits.ts, which
// also supplies how deletions are made (the same path as the Delete key, so the canvas and
// server-sync.ts learn of them the same way).
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';
import { apiTypeOf, toFlowEdge, toFlowNode } from '../flow-mapping';
import { type BatchOperation, writeBatch } from './batch-api';
import type { EdgeSnapshot, EditHistory, HistoryChange, NodeSnapshot } from './edit-history';
import type { ServerSync } from './server-sync';
import type { CanvasGraph } from './use-board-graph';

export function snapshotNode(node: BoardFlowNode): NodeSnapshot | undefined {
  const type = apiTypeOf(node.type);
  if (!type) return undefined;
  return { id: node.id, type, position: { x: node.position.x, y: node.position.y }, data: node.data };
}

export function snapshotEdge(edge: Edge): EdgeSnapshot {
  return { id: edge.id, source: edge.source, target: edge.target, data: (edge.data ?? {}) as Record<string, unknown> };
}

export interface HistoryWriteDeps {
  boardId: string;
  graph: CanvasGraph;
  sync: ServerSync;
  history: EditHistory;
  /** Deletes on the service and from the canvas; throws if nothing could be deleted. */
  deleteNow(nodeIds: string[], edgeIds: string[]): Promise<void>;
}

/**
 * Creates nodes and edges (ids as logical ids in the history) in one batch; edges to nodes outside
 * the batch refer to those nodes' current ids. Returns the new ids of the nodes.
 */
export async function createInBatch(deps: HistoryWriteDeps, nodes: NodeSnapshot[], edges: EdgeSnapshot[], what: string) {
  const { boardId, graph, history } = deps;
  const made = new Set(nodes.map((n) => n.id));
  const operations: BatchOperation[] = nodes.map((n) => ({
    op: 'create_node',
    ref: n.id,
    type: n.type,
    position: n.position,
    data: n.data,
  }));
  for (const e of edges) {
    operations.push({
      op: 'create_edge',
      ...(made.has(e.source) ? { source_ref: e.source } : { source_node_id: history.resolve(e.source) }),
      ...(made.has(e.target) ? { target_ref: e.target } : { target_node_id: history.resolve(e.target) }),
      data: e.data,
    });
  }
  const results = await writeBatch(boardId, operations, what);
  const newIds: string[] = [];
  results.forEach((result, i) => {
    if (result.node) {
      history.remap(nodes[i]!.id, result.node.id);
      graph.applyNode(toFlowNode(result.node));
      newIds.push(result.node.id);
    } else if (result.edge) {
      history.remap(edges[i - nodes.length]!.id, result.edge.id);
      graph.applyEdge(toFlowEdge(result.edge));
    }
  });
  return newIds;
}

/** Makes a creation or deletion on the service and the canvas; throws with a readable message on failure. */
export async function applyChange(deps: HistoryWriteDeps, change: HistoryChange, what: string): Promise<void> {
  const { history } = deps;
  switch (change.kind) {
    case 'create':
      await createInBatch(deps, change.nodes, change.edges, what);
      return;
    case 'delete': {
      const nodeIds = change.nodes.map((n) => history.resolve(n.id));
      const gone = new Set(change.nodes.map((n) => n.id));
      // Edges of deleted nodes go with them; only the others are deleted by id.
      const edgeIds = change.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)).map((e) => history.resolve(e.id));
      await deps.deleteNow(nodeIds, edgeIds);
      return;
    }
    default:
      // Text, moves and data are made by use-board-edits.ts as local changes (edits/reapply.ts).
      throw new Error(`${what}: not a creation or deletion`);
  }
}
