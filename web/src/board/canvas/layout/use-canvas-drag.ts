// A drag on the canvas as in Figma and tldraw: the dragged cards snap to other cards' edges and
// centres (with guide lines drawn while dragging) or else to the grid, Alt turns snapping off, and
// positions are whole pixels (snapping.ts). A dragged frame takes the cards in it along; a card
// dropped in a frame joins it and one dragged out leaves it (frames.ts), which is saved with the
// move as its parent_node_id. React Flow's position changes pass through `onNodesChange` here
// before they reach the graph, so what is shown, saved and told to the others is the same.
import { useCallback, useEffect, useRef, useState } from 'react';
import { type NodeChange, type OnNodesChange, useReactFlow, type XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../flow-node';
import type { Outbox } from '../sync/outbox';
import { boxOf, frameAt, isFrame, membersOf } from './frames';
import { type Box, boundsOf, type Guide, snapBox } from './snapping';

/** The grid: the canvas's dots. */
export const GRID = 22;
/** How near (screen pixels) a card's edge or centre must come to another's to snap to it. */
const SNAP_PX = 6;

interface DragSession {
  /** Where each moving node (the dragged ones and the frames' cards) was when the drag started. */
  start: Map<string, XYPosition>;
  /** The frames' cards that move along (not dragged themselves). */
  members: BoardFlowNode[];
  /** The other cards, to line up with. */
  others: Box[];
  /** Which frame each moving node was in when the drag started. */
  frameBefore: Map<string, string | null>;
  /** The positions last shown. */
  shown: Map<string, XYPosition>;
}

export interface CanvasDragDeps {
  nodes: BoardFlowNode[];
  onNodesChange: OnNodesChange<BoardFlowNode>;
  outbox: Outbox;
  edits: { dragStarted(nodes: BoardFlowNode[]): void; saveMoves(nodes: BoardFlowNode[]): void };
  sync: { dragStarted(ids: string[]): void; dragEnded(ids: string[]): void };
  moveDragging(nodes: { id: string; position: XYPosition }[] | null): void;
}

export function useCanvasDrag({ nodes, onNodesChange, outbox, edits, sync, moveDragging }: CanvasDragDeps) {
  const flow = useReactFlow();
  const [guides, setGuides] = useState<Guide[]>([]);
  const guidesKey = useRef('[]');
  const session = useRef<DragSession>(undefined);
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  // Alt held: no snapping (read from every key and pointer event, as the drag's own events do not reach here).
  const alt = useRef(false);
  useEffect(() => {
    const read = (event: KeyboardEvent | PointerEvent | MouseEvent) => {
      alt.current = event.altKey;
    };
    for (const type of ['keydown', 'keyup', 'pointermove', 'mousemove', 'pointerdown'] as const) window.addEventListener(type, read, true);
    return () => {
      for (const type of ['keydown', 'keyup', 'pointermove', 'mousemove', 'pointerdown'] as const)
        window.removeEventListener(type, read, true);
    };
  }, []);

  const wrapped = useCallback<OnNodesChange<BoardFlowNode>>(
    (changes) => {
      const s = session.current;
      const moving = s
        ? changes.filter(
            (c): c is Extract<NodeChange<BoardFlowNode>, { type: 'position' }> =>
              c.type === 'position' && !!c.position && s.start.has(c.id),
          )
        : [];
      if (!s || moving.length === 0) {
        onNodesChange(changes);
        return;
      }
      const byId = new Map(nodesRef.current.map((n) => [n.id, n]));
      const boxes = moving.flatMap((c) => {
        const node = byId.get(c.id);
        return node ? [boxOf(node, c.position)] : [];
      });
      const bounds = boundsOf(boxes);
      if (!bounds) {
        onNodesChange(changes);
        return;
      }
      const { dx, dy, guides: shownGuides } = snapBox(bounds, s.others, { threshold: SNAP_PX / flow.getZoom(), grid: GRID }, !alt.current);
      const at = (p: XYPosition) => ({ x: Math.round(p.x + dx), y: Math.round(p.y + dy) });
      const first = moving[0]!;
      const firstStart = s.start.get(first.id)!;
      const firstAt = at(first.position!);
      const delta = { x: firstAt.x - firstStart.x, y: firstAt.y - firstStart.y };
      const out: NodeChange<BoardFlowNode>[] = changes.map((c) =>
        c.type === 'position' && c.position && s.start.has(c.id) ? { ...c, position: at(c.position) } : c,
      );
      for (const c of out) if (c.type === 'position' && c.position && s.start.has(c.id)) s.shown.set(c.id, c.position);
      for (const member of s.members) {
        const from = s.start.get(member.id)!;
        const position = { x: Math.round(from.x + delta.x), y: Math.round(from.y + delta.y) };
        s.shown.set(member.id, position);
        out.push({ type: 'position', id: member.id, position, dragging: first.dragging });
      }
      // Set only when they change: a drag's moves re-render the canvas once, not twice.
      const next = first.dragging ? shownGuides : [];
      const key = JSON.stringify(next);
      if (key !== guidesKey.current) {
        guidesKey.current = key;
        setGuides(next);
      }
      onNodesChange(out);
    },
    [onNodesChange, flow],
  );

  /** The dragged nodes and the frames' cards, where they are shown now. */
  const movingNow = useCallback((dragged: BoardFlowNode[]): BoardFlowNode[] => {
    const s = session.current;
    const all = [...dragged, ...(s?.members ?? [])];
    return all.map((n) => ({ ...n, position: s?.shown.get(n.id) ?? { x: Math.round(n.position.x), y: Math.round(n.position.y) } }));
  }, []);

  const onNodeDragStart = useCallback(
    (_event: unknown, _node: BoardFlowNode, dragged: BoardFlowNode[]) => {
      const all = nodesRef.current;
      const ids = new Set(dragged.map((n) => n.id));
      const members = membersOf(ids, all);
      for (const m of members) ids.add(m.id);
      const moving = [...dragged, ...members];
      session.current = {
        start: new Map(moving.map((n) => [n.id, { ...n.position }])),
        members,
        others: all.filter((n) => !ids.has(n.id) && n.type !== 'uploadNode' && !isFrame(n)).map((n) => boxOf(n)),
        frameBefore: new Map(moving.map((n) => [n.id, frameAt(n.id, boxOf(n), all, ids)])),
        shown: new Map(),
      };
      edits.dragStarted(moving);
      sync.dragStarted(moving.map((n) => n.id));
    },
    [edits, sync],
  );

  const onNodeDrag = useCallback(
    (_event: unknown, _node: BoardFlowNode, dragged: BoardFlowNode[]) => {
      // An upload's placeholder is not on the service yet: the others are not shown it.
      moveDragging(movingNow(dragged).filter((n) => n.type !== 'uploadNode'));
    },
    [moveDragging, movingNow],
  );

  const onNodeDragStop = useCallback(
    (_event: unknown, _node: BoardFlowNode, dragged: BoardFlowNode[]) => {
      const s = session.current;
      const moved = movingNow(dragged);
      edits.saveMoves(moved);
      // Which frame each dropped card is in now (the frames' own cards stay in them): saved with the
      // move (the outbox folds it into the position's update) when it is in one or was.
      const ids = new Set(moved.map((n) => n.id));
      const all = nodesRef.current.map((n) => (ids.has(n.id) ? { ...n, position: moved.find((m) => m.id === n.id)!.position } : n));
      const members = new Set(s?.members.map((m) => m.id));
      for (const n of moved) {
        if (n.type === 'uploadNode' || members.has(n.id)) continue;
        const frame = frameAt(n.id, boxOf(n), all);
        const before = s?.frameBefore.get(n.id) ?? null;
        if (frame !== null || before !== null) outbox.enqueue({ op: 'update_node', id: n.id, parent: frame });
      }
      session.current = undefined;
      guidesKey.current = '[]';
      setGuides([]);
      sync.dragEnded(moved.map((n) => n.id));
      moveDragging(null);
    },
    [edits, sync, outbox, moveDragging, movingNow],
  );

  return { onNodesChange: wrapped, onNodeDragStart, onNodeDrag, onNodeDragStop, guides };
}
