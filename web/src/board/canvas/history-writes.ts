// How a recorded change (canvas/edit-history.ts) is made on the service and shown on the canvas,
// for undo and redo: creations and deletions of several nodes and edges, and moves, go as one
// batch (all or nothing); a note's text as one update. Nodes re-created get new ids, which are
// mapped in the history. Used by use-board-edits.ts, which also supplies how deletions are made
// (the same path as the Delete key, so the canvas and server-sync.ts learn of them the same way).
import type { Edge } from '@xyflow/react';
import { getEdge, type NodeRecord, updateEdge, updateNode } from '../board-api';
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
  /** A note's text was set (so the note's typed text and draft follow). */
  textSet(nodeId: string, text: string): void;
}

/** Shows a node the service answered with, without the stream's older states moving it back. */
function showNode(deps: HistoryWriteDeps, record: NodeRecord): void {
  deps.graph.applyNode(toFlowNode(record));
  deps.sync.saved(record);
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

/** Runs `work`, its failure's message prefixed by `what` (as writeBatch's are). */
async function labelled<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}

/** Makes `change` on the service and the canvas; throws with a readable message on failure. */
export async function applyChange(deps: HistoryWriteDeps, change: HistoryChange, what: string): Promise<void> {
  const { boardId, history } = deps;
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
    case 'move': {
      const results = await writeBatch(
        boardId,
        change.moves.map((m) => ({ op: 'update_node', id: history.resolve(m.id), position: m.to })),
        what,
      );
      for (const r of results) if (r.node) showNode(deps, r.node);
      return;
    }
    case 'text': {
      const id = history.resolve(change.id);
      const record = await labelled(what, () => updateNode(boardId, id, { data: { text: change.to } }));
      deps.textSet(id, change.to);
      showNode(deps, record);
      return;
    }
    case 'data': {
      const id = history.resolve(change.id);
      const position = change.position ? { position: change.position.to } : {};
      showNode(deps, await labelled(what, () => updateNode(boardId, id, { data: change.to, ...position })));
      return;
    }
    case 'edgeData': {
      const id = history.resolve(change.id);
      const record = await labelled(what, async () => {
        // PATCH replaces an edge's data: the service's data (the canvas may not show the last
        // step's answer yet), with these keys as they were.
        const data: Record<string, unknown> = { ...(await getEdge(boardId, id)).edge_data, ...change.to };
        for (const [key, value] of Object.entries(change.to)) if (value === null) delete data[key];
        return updateEdge(boardId, id, data);
      });
      deps.graph.applyEdge(toFlowEdge(record));
      deps.sync.edge(record);
      return;
    }
  }
}
