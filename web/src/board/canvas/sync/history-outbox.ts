// Undo and redo as local changes: a recorded change (edit-history.ts), or its inverse, is made on
// the canvas at once and put in the outbox like any other edit (as Excalidraw's history does), so
// undo works while the service is down and its writes reach the service in order with the rest.
// Re-created nodes and edges get new client ids, mapped in the history. A note's text is undone
// as a reverse patch on the text as it is now (edits/text-merge.ts's revertText), so another
// person's later words stay; an undo whose words someone has changed since is refused.
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { edgeMarker } from '../../flow-mapping';
import { str } from '../../nodes/node-frame';
import type { EditHistory, HistoryChange } from '../edit-history';
import { revertText } from '../edits/text-merge';
import type { CanvasGraph } from '../use-board-graph';
import { createdEdge, createdNode, type OutboxOp, patched } from './operations';
import type { Outbox } from './outbox';
import type { TextSync } from './text-sync';

export interface HistoryOutboxDeps {
  graph: CanvasGraph;
  history: EditHistory;
  outbox: Outbox;
  text: TextSync;
  edgeById(id: string): Edge | undefined;
  /** Deletes through the same path as the Delete key. */
  deleteNow(nodeIds: string[], edgeIds: string[]): void;
}

/** Makes `change` on the canvas and puts it in the outbox; throws with a readable message when it cannot be made. */
export function applyThroughOutbox(deps: HistoryOutboxDeps, change: HistoryChange, what: string): void {
  const { graph, history, outbox, text } = deps;
  const nodeThere = (logicalId: string): BoardFlowNode => {
    const node = graph.nodeById(history.resolve(logicalId));
    if (!node) throw new Error(`${what}: it is no longer on the board`);
    return node;
  };
  switch (change.kind) {
    case 'create': {
      for (const n of change.nodes) {
        const op: Extract<OutboxOp, { op: 'create_node' }> = {
          op: 'create_node',
          id: crypto.randomUUID(),
          type: n.type,
          position: n.position,
          data: n.data,
        };
        history.remap(n.id, op.id);
        graph.applyNode(createdNode(op));
        outbox.enqueue(op);
      }
      for (const e of change.edges) {
        const op: Extract<OutboxOp, { op: 'create_edge' }> = {
          op: 'create_edge',
          id: crypto.randomUUID(),
          source: history.resolve(e.source),
          target: history.resolve(e.target),
          data: e.data,
        };
        history.remap(e.id, op.id);
        graph.applyEdge(createdEdge(op));
        outbox.enqueue(op);
      }
      return;
    }
    case 'delete': {
      const gone = new Set(change.nodes.map((n) => n.id));
      // Edges of deleted nodes go with them; only the others are deleted by id.
      const edgeIds = change.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)).map((e) => history.resolve(e.id));
      deps.deleteNow(
        change.nodes.map((n) => history.resolve(n.id)),
        edgeIds,
      );
      return;
    }
    case 'move': {
      for (const m of change.moves) nodeThere(m.id);
      for (const m of change.moves) {
        const id = history.resolve(m.id);
        graph.patchNode(id, (n) => ({ ...n, position: m.to }));
        outbox.enqueue({ op: 'update_node', id, position: m.to });
      }
      return;
    }
    case 'text': {
      const node = nodeThere(change.id);
      const id = node.id;
      const serverText = str(node.data.text);
      const current = text.local(id) ?? serverText;
      // Undoing the edit change.to -> change.from (for a redo: the other way round) on the text now.
      const next = revertText(change.to, change.from, current);
      if (next === null) throw new Error(`${what}: someone has changed those words since`);
      const base = text.typed(id, next, serverText);
      outbox.enqueue({ op: 'text', id, text: next, base });
      return;
    }
    case 'data': {
      const id = nodeThere(change.id).id;
      const position = change.position?.to;
      graph.patchNode(id, (n) => ({ ...n, data: patched(n.data, change.to), ...(position ? { position } : {}) }));
      outbox.enqueue({ op: 'update_node', id, data: change.to, ...(position ? { position } : {}) });
      return;
    }
    case 'edgeData': {
      const edge = deps.edgeById(history.resolve(change.id));
      if (!edge) throw new Error(`${what}: the connection is no longer on the board`);
      // The edge's data as the canvas has it now (others' changes included), with these keys as they were.
      const data = patched((edge.data ?? {}) as Record<string, unknown>, change.to);
      graph.applyEdge({ ...edge, data, label: typeof data.label === 'string' ? data.label : undefined, markerEnd: edgeMarker(data) });
      outbox.enqueue({ op: 'update_edge', id: edge.id, data });
      return;
    }
  }
}
