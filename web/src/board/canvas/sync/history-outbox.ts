// Undo and redo as local changes: a step planned on the board as it is now (edits/reapply.ts: a
// note's text as a reverse patch on its current text, a field put back only if it still holds what
// this person set) is made on the canvas at once and put in the outbox like any other edit (as
// Excalidraw's history does), so undo works while the service is down and its writes reach the
// service in order with the rest. Re-created nodes and edges get new client ids, mapped in the
// history.
import type { Edge } from '@xyflow/react';
import { edgeMarker } from '../../flow-mapping';
import { str } from '../../../lib/str';
import type { EditHistory } from '../edits/edit-history';
import type { Step } from '../edits/reapply';
import type { CanvasGraph } from '../use-board-graph';
import { createdEdge, createdNode, type OutboxOp, patched } from './operations';
import type { Outbox } from './outbox';
import type { TextSync } from './text-sync';

export interface HistoryOutboxDeps {
  graph: CanvasGraph;
  history: EditHistory;
  outbox: Outbox;
  text: TextSync;
  /** Deletes through the same path as the Delete key. */
  deleteNow(nodeIds: string[], edgeIds: string[]): void;
}

/** Makes a planned undo or redo (edits/reapply.ts, ids current) on the canvas and puts it in the outbox. */
export function applyStep(deps: HistoryOutboxDeps, step: Exclude<Step, { kind: 'refused' }>): void {
  const { graph, history, outbox, text } = deps;
  switch (step.kind) {
    case 'structure': {
      const change = step.change;
      if (change.kind === 'delete') {
        const gone = new Set(change.nodes.map((n) => n.id));
        // Edges of deleted nodes go with them; only the others are deleted by id.
        const edgeIds = change.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)).map((e) => history.resolve(e.id));
        deps.deleteNow(
          change.nodes.map((n) => history.resolve(n.id)),
          edgeIds,
        );
        return;
      }
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
    case 'move':
      for (const m of step.moves) {
        graph.patchNode(m.id, (n) => ({ ...n, position: m.to }));
        outbox.enqueue({ op: 'update_node', id: m.id, position: m.to });
      }
      return;
    case 'text': {
      const base = text.typed(step.id, step.text, str(graph.nodeById(step.id)?.data.text));
      outbox.enqueue({ op: 'text', id: step.id, text: step.text, base });
      return;
    }
    case 'data': {
      const position = step.position?.to;
      graph.patchNode(step.id, (n) => ({ ...n, data: patched(n.data, step.patch), ...(position ? { position } : {}) }));
      outbox.enqueue({ op: 'update_node', id: step.id, data: step.patch, ...(position ? { position } : {}) });
      return;
    }
    case 'edgeData': {
      const edge = graph.edgeById(step.id);
      if (edge) setEdgeKeys(graph, outbox, edge, step.patch);
      return;
    }
  }
}

/**
 * Sets keys of an edge's data (null removes one): on the canvas at once (the edge's data as it is
 * there, others' changes included, with these keys set), and in the outbox as those keys only.
 */
export function setEdgeKeys(graph: CanvasGraph, outbox: Outbox, edge: Edge, keys: Record<string, unknown>): void {
  const data = patched((edge.data ?? {}) as Record<string, unknown>, keys);
  graph.applyEdge({ ...edge, data, label: typeof data.label === 'string' ? data.label : undefined, markerEnd: edgeMarker(data) });
  outbox.enqueue({ op: 'update_edge', id: edge.id, data: keys });
}
