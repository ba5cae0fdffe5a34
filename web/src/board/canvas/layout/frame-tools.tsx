// Making a frame around the selection (canvas/layout/frames.ts): the edit bar's "Frame selection"
// button and Ctrl/Cmd+Alt+G (Figma's key). The frame is made as any node is, through the outbox
// and as one step of undo, titled "Frame" (rename it in place, colour it from its menu), and the
// selected cards join it (their parent_node_id).
import { useCallback, useEffect, useRef } from 'react';
import type { BoardFlowNode } from '../../flow-node';
import type { EditHistory } from '../edits/edit-history';
import { snapshotNode } from '../edits/history-snapshots';
import { createdNode, type OutboxOp } from '../sync/operations';
import type { Outbox } from '../sync/outbox';
import type { CanvasGraph } from '../use-board-graph';
import { FrameIcon } from '../../nodes/frame-node';
import { boxOf, frameAround, membersOf } from './frames';

export interface FrameToolsDeps {
  canEdit: boolean;
  graph: CanvasGraph;
  outbox: Outbox;
  history: EditHistory;
  /** The selected nodes (no upload placeholders). */
  selected: BoardFlowNode[];
}

export function useFrameTools({ canEdit, graph, outbox, history, selected }: FrameToolsDeps) {
  const latest = useRef({ canEdit, selected });
  latest.current = { canEdit, selected };

  const frameSelection = useCallback(() => {
    const { canEdit, selected } = latest.current;
    if (!canEdit || selected.length === 0) return;
    const box = frameAround(selected.map((n) => boxOf(n)));
    const op: Extract<OutboxOp, { op: 'create_node' }> = {
      op: 'create_node',
      id: crypto.randomUUID(),
      type: 'note',
      position: { x: box.x, y: box.y },
      data: { text: '', group: true, label: 'Frame', width: box.width, height: box.height },
    };
    const frame = createdNode(op);
    graph.addNode(frame, { select: true });
    outbox.enqueue(op);
    // The selected cards join it; the cards of a selected frame stay in that frame.
    const inFrames = new Set(membersOf(new Set(selected.map((n) => n.id)), selected).map((n) => n.id));
    for (const n of selected) if (!inFrames.has(n.id)) outbox.enqueue({ op: 'update_node', id: n.id, parent: frame.id });
    const snapshot = snapshotNode(frame);
    if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges: [] });
  }, [graph, outbox, history]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || !event.altKey || event.code !== 'KeyG') return;
      if (
        event.target instanceof Element &&
        event.target.closest('input, textarea, select, [contenteditable="true"], [role="dialog"], [role="menu"]')
      )
        return;
      event.preventDefault();
      frameSelection();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [frameSelection]);

  return { frameSelection };
}

export function FrameButton({ disabled, onClick }: { disabled: boolean; onClick(): void }) {
  return (
    <button
      type="button"
      className="bw-icon-button"
      aria-label="Frame selection"
      title="Frame selection (Ctrl+Alt+G)"
      disabled={disabled}
      onClick={onClick}
    >
      <FrameIcon />
    </button>
  );
}
