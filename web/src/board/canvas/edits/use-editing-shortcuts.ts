// The canvas's keyboard shortcuts and clipboard, as a whiteboard user expects them (the list is
// in shortcuts-help.tsx): undo/redo, select all, duplicate, arrow-key moves, copy/cut/paste of
// nodes, `?` for the help; plus a double-click on the empty canvas making a note there, and a
// connection dropped anywhere on a card. Keys typed into a text field are left to it (its own
// undo, select all, copy and paste). The paste handler takes only this app's own format
// (node-clipboard.ts) and leaves anything else (a pasted URL, say) to other handlers.
import { type MouseEvent as ReactMouseEvent, type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { type Edge, type FinalConnectionState, useReactFlow, type XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { snapshotEdge, snapshotNode } from './history-snapshots';
import { makeClipboard, type NodeClipboard, offsetOrigin, parseClipboard, storeClipboard, storedClipboard } from './node-clipboard';
import type { useBoardEdits } from './use-board-edits';

/** Canvas units an arrow key moves the selection; with Shift, BIG_STEP. */
const STEP = 10;
const BIG_STEP = 50;
/** How far a duplicate (or a paste with no pointer on the canvas) lands from the original. */
const PASTE_OFFSET = 40;

const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** Focus or the event is in something that takes typing, whose own keys must keep working. */
export function isTextTarget(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  if (target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) return true;
  return false;
}

/** Text selected on the page (a chat reply, say): copying it is the browser's job. */
const pageHasTextSelection = () => (window.getSelection()?.toString() ?? '') !== '';

export interface EditingShortcutsOptions {
  boardId: string;
  canEdit: boolean;
  wrapper: RefObject<HTMLDivElement | null>;
  nodes: BoardFlowNode[];
  edges: Edge[];
  edits: ReturnType<typeof useBoardEdits>;
  selectAll(): void;
  notify(message: string): void;
}

export function useEditingShortcuts({ boardId, canEdit, wrapper, nodes, edges, edits, selectAll, notify }: EditingShortcutsOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [helpOpen, setHelpOpen] = useState(false);
  // The latest values for the document listeners, which are added once.
  const latest = useRef({ nodes, edges, canEdit, edits, selectAll, boardId, notify });
  latest.current = { nodes, edges, canEdit, edits, selectAll, boardId, notify };
  // The pointer, when it is over the canvas (where Ctrl+V pastes).
  const pointer = useRef<XYPosition | undefined>(undefined);
  const pastes = useRef(0);

  /** The selected nodes and the edges among them, as a copy. */
  const copyOfSelection = useCallback((): NodeClipboard | undefined => {
    const { nodes, edges, boardId, edits } = latest.current;
    const chosen = nodes.filter((n) => n.selected).flatMap((n) => snapshotNode(edits.withTypedText(n)) ?? []);
    if (chosen.length === 0) return undefined;
    pastes.current = 0;
    return makeClipboard(boardId, chosen, edges.map(snapshotEdge));
  }, []);

  const duplicate = useCallback(() => {
    const copy = copyOfSelection();
    if (copy) void latest.current.edits.paste(copy, offsetOrigin(copy, PASTE_OFFSET));
  }, [copyOfSelection]);

  const pasteCopy = useCallback(
    (copy: NodeClipboard) => {
      const at = pointer.current
        ? flow.screenToFlowPosition(pointer.current)
        : offsetOrigin(copy, PASTE_OFFSET * (copy.board_id === latest.current.boardId ? ++pastes.current : 0));
      void latest.current.edits.paste(copy, at);
    },
    [flow],
  );

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || isTextTarget(event.target)) return;
      const { nodes, canEdit, edits, selectAll } = latest.current;
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (!mod && !event.altKey && event.key === '?') {
        event.preventDefault();
        setHelpOpen((open) => !open);
        return;
      }
      // A dialog or menu (the shortcuts list, sharing) has the keys while it is open.
      if (event.target instanceof Element && event.target.closest('[role="dialog"], [role="menu"]')) return;
      if (mod && !event.altKey && (key === 'z' || key === 'y')) {
        event.preventDefault();
        if (key === 'y' || event.shiftKey) void edits.redo();
        else void edits.undo();
        return;
      }
      if (mod && !event.altKey && key === 'a') {
        event.preventDefault();
        selectAll();
        return;
      }
      if (mod && !event.altKey && key === 'd') {
        // The browser's bookmark shortcut is not what a person on the canvas means.
        event.preventDefault();
        if (canEdit) duplicate();
        return;
      }
      const arrow = ARROWS[event.key];
      // From a focused card that is not selected, the arrows go to another card (navigation/use-card-keys.tsx).
      if (arrow && event.target instanceof Element && event.target.matches('.react-flow__node:not(.selected)')) return;
      if (arrow && !mod && !event.altKey && canEdit) {
        const ids = nodes.filter((n) => n.selected && n.type !== 'uploadNode').map((n) => n.id);
        if (ids.length === 0) return;
        // Taken here, before React Flow's own keyboard move (which nothing would save).
        event.preventDefault();
        event.stopPropagation();
        const step = event.shiftKey ? BIG_STEP : STEP;
        edits.nudge(ids, arrow[0] * step, arrow[1] * step);
      }
    };

    const onCopy = (event: ClipboardEvent, cut: boolean) => {
      if (isTextTarget(event.target) || pageHasTextSelection()) return;
      const copy = copyOfSelection();
      if (!copy) return;
      event.preventDefault();
      event.clipboardData?.setData('text/plain', JSON.stringify(copy));
      storeClipboard(copy);
      const { canEdit, edits, nodes, edges } = latest.current;
      if (cut && canEdit) {
        edits.remove({ nodes: nodes.filter((n) => n.selected).map((n) => n.id), edges: edges.filter((e) => e.selected).map((e) => e.id) });
      }
    };
    const copyHandler = (event: ClipboardEvent) => onCopy(event, false);
    const cutHandler = (event: ClipboardEvent) => onCopy(event, true);

    const onPaste = (event: ClipboardEvent) => {
      if (event.defaultPrevented || isTextTarget(event.target)) return;
      const text = event.clipboardData?.getData('text/plain') ?? '';
      // The clipboard's own copy first; this app's last copy when the clipboard holds nothing.
      const copy =
        parseClipboard(text) ?? (text.trim() === '' && (event.clipboardData?.files.length ?? 0) === 0 ? storedClipboard() : undefined);
      if (!copy) return;
      event.preventDefault();
      if (!latest.current.canEdit) {
        latest.current.notify('This board is read-only here: nothing was pasted.');
        return;
      }
      pasteCopy(copy);
    };

    const onPointerMove = (event: PointerEvent) => {
      const inside = wrapper.current?.contains(event.target as Node) ?? false;
      pointer.current = inside ? { x: event.clientX, y: event.clientY } : undefined;
    };

    window.addEventListener('keydown', onKeyDown, true);
    document.addEventListener('copy', copyHandler);
    document.addEventListener('cut', cutHandler);
    document.addEventListener('paste', onPaste);
    window.addEventListener('pointermove', onPointerMove, { passive: true });
    return () => {
      window.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('copy', copyHandler);
      document.removeEventListener('cut', cutHandler);
      document.removeEventListener('paste', onPaste);
      window.removeEventListener('pointermove', onPointerMove);
    };
  }, [copyOfSelection, duplicate, pasteCopy, wrapper]);

  /** A double-click on the empty canvas makes a note there (React Flow's double-click zoom is off). */
  const onDoubleClick = useCallback(
    (event: ReactMouseEvent) => {
      if (!latest.current.canEdit) return;
      if (!(event.target instanceof Element) || !event.target.classList.contains('react-flow__pane')) return;
      void latest.current.edits.addNoteAt(flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [flow],
  );

  /**
   * A connection dragged from a handle and dropped anywhere on another card connects to it (React
   * Flow only connects on a handle, or within connectionRadius of one). Dropped on empty canvas it
   * is cancelled, as in other whiteboards.
   */
  const onConnectEnd = useCallback((event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
    const { canEdit, edits } = latest.current;
    if (!canEdit || state.isValid === true || !state.fromNode) return;
    const point = 'changedTouches' in event ? event.changedTouches[0] : event;
    if (!point) return;
    const card = document.elementFromPoint(point.clientX, point.clientY)?.closest('.react-flow__node');
    const id = card?.getAttribute('data-id');
    if (!id || id === state.fromNode.id) return;
    const fromSource = state.fromHandle?.type !== 'target';
    const [source, target] = fromSource ? [state.fromNode.id, id] : [id, state.fromNode.id];
    void edits.connect({ source, target, sourceHandle: null, targetHandle: null });
  }, []);

  const openHelp = useCallback(() => setHelpOpen(true), []);
  const closeHelp = useCallback(() => setHelpOpen(false), []);

  return { helpOpen, openHelp, closeHelp, duplicate, onDoubleClick, onConnectEnd };
}
