// Starts the outbox (outbox.ts) for the canvas and gives it what it tells: the service's answers
// (to server-sync.ts, so its echoes do not move a node back), a burst of typing sent (its history
// entry ends), a note's text merged with someone else's, and a change the service refused for good,
// which the person is told about, naming what was not saved (the text they typed can be copied
// from the notice). A node the service says no longer exists (404) leaves the canvas. A person
// removed from the board's members is told that what they had waiting was not saved, and why.
import { useEffect, useRef } from 'react';
import type { BoardFlowNode } from '../../board-context';
import { labelOf } from '../../nodes/node-frame';
import type { EditHistory } from '../edits/edit-history';
import { noteKey, type ServerSync } from './server-sync';
import type { CanvasGraph } from '../use-board-graph';
import type { OutboxOp } from './operations';
import type { Outbox } from './outbox';
import type { TextSync } from './text-sync';

export interface OutboxSyncOptions {
  boardId: string;
  outbox: Outbox;
  text: TextSync;
  graph: CanvasGraph;
  sync: ServerSync;
  history: EditHistory;
  notify(message: string, options?: { copy?: string }): void;
  onNodesDeleted(ids: Set<string>): void;
  /** Puts back a node or edge whose deletion the service refused; the node, if one. */
  restoreDeleted(id: string): BoardFlowNode | undefined;
  /** A node made here is on the service now. */
  onCreated?(nodeId: string): void;
  /** This person may no longer read the board (removed from its members): a refusal says so. */
  accessLost?: boolean;
}

/** What a refused operation was, in words. */
function describe(op: OutboxOp, node: BoardFlowNode | undefined): string {
  const name = `“${labelOf(node?.data ?? {}, 'a node')}”`;
  switch (op.op) {
    case 'create_node':
      return `the new ${op.type} ${name}`;
    case 'create_edge':
      return 'a new connection';
    case 'update_node':
      return op.data ? `a change to ${name}` : `the move of ${name}`;
    case 'text':
      return `your text in ${name}`;
    case 'update_edge':
      return 'a change to a connection';
    case 'delete_node':
      return `the deletion of ${name}`;
    case 'delete_edge':
      return 'the deletion of a connection';
  }
}

export function useOutboxSync(options: OutboxSyncOptions): void {
  const latest = useRef(options);
  latest.current = options;
  const { outbox, text, boardId } = options;

  useEffect(() => {
    const call = () => latest.current;
    text.deps = {
      boardId,
      retext: (id, merged, base) => outbox.retext(id, merged, base),
      settled: (id, saved) => call().graph.patchNode(id, (n) => ({ ...n, data: { ...n.data, text: saved } })),
      keptAside: (id, mine) => {
        const name = labelOf(call().graph.nodeById(id)?.data ?? {}, 'a note');
        call().notify(
          `Someone changed the same words of “${name}” at the same time: their text is shown, and yours is kept here (copy it to put it back).`,
          { copy: mine },
        );
      },
    };
    return outbox.start({
      text,
      savedNode: (record) => call().sync.saved(record),
      savedEdge: (record) => call().sync.savedEdge(record),
      created: (nodeId) => call().onCreated?.(nodeId),
      sending: (op) => {
        if (op.op === 'text') call().history.seal(noteKey(op.id));
      },
      refused: (op, message, status) => {
        const { graph, sync, notify, onNodesDeleted, restoreDeleted, accessLost } = call();
        // The board itself is not found: this person lost access to it (or it was deleted).
        const noAccess = status === 404 && (accessLost === true || /Board not found/.test(message));
        const why = noAccess ? 'you no longer have access to this board' : message;
        if (op.op === 'delete_node' || op.op === 'delete_edge') {
          // Refused: it is back on the canvas, as the service still has it.
          const node = restoreDeleted(op.id);
          notify(`Not deleted: ${op.op === 'delete_node' ? labelOf(node?.data ?? {}, 'A node') : 'A connection'}: ${why}`);
          return;
        }
        const nodeId = op.op === 'create_edge' || op.op === 'update_edge' ? undefined : op.id;
        const node = nodeId ? graph.nodeById(nodeId) : undefined;
        const what = describe(op, node);
        const copy = op.op === 'text' ? { copy: op.text } : undefined;
        if (op.op === 'text') text.refused(op.id);
        if (nodeId && status === 404 && !noAccess) {
          // Someone else deleted it meanwhile (the stream may not have said so yet).
          sync.nodesDeleted([nodeId]);
          onNodesDeleted(new Set([nodeId]));
          notify(`“${labelOf(node?.data ?? {}, 'A node')}” was deleted by someone else, so ${what} could not be saved.`, copy);
          return;
        }
        if (op.op === 'update_edge' && status === 404 && !noAccess) {
          sync.edgeDeleted(op.id);
          notify(`A connection was deleted by someone else, so ${what} could not be saved.`);
          return;
        }
        if (op.op === 'create_node') {
          sync.nodesDeleted([op.id]);
          onNodesDeleted(new Set([op.id]));
        }
        if (op.op === 'create_edge') sync.edgeDeleted(op.id);
        const sentence = what.charAt(0).toUpperCase() + what.slice(1);
        notify(`Not saved: ${sentence}: ${why}`, copy);
      },
    });
  }, [outbox, text, boardId]);
}
