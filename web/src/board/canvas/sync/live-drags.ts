// Other people's drags as they happen: the nodes another tab is dragging (its presence's
// `dragging`, use-presence.ts) are shown where that drag has them, over the position the canvas
// holds for them, which stays the service's (nothing here is saved, and the graph is not changed).
// A node this person is dragging themselves is never moved by someone else's drag. When the other
// person drops, the node stays where they dropped it until their saved position arrives (or a few
// seconds pass), so it does not jump back first; when they leave or go quiet, it shows where the
// service has it at once.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import type { SessionPresence } from './use-presence';

/** How long a dropped node waits for its saved position before showing the canvas's own. */
const SETTLE_MS = 3_000;

interface Settling {
  at: XYPosition;
  /** The canvas's position of the node when the drag ended: a change of it is the saved move. */
  basis: XYPosition;
  until: number;
}

const same = (a: XYPosition, b: XYPosition) => Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5;

/** `nodes` as the canvas shows them, with the other people's drags in progress on them. */
export function useLiveDrags(others: SessionPresence[], nodes: BoardFlowNode[]): BoardFlowNode[] {
  const previous = useRef(new Map<string, { at: XYPosition; session: string }>());
  const settling = useRef(new Map<string, Settling>());
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const [tick, setTick] = useState(0);

  // Where each node dragged by someone else is now; a drag that ended while its session is still
  // here and heard from (a drop) leaves the node settling where it was dropped.
  const live = useMemo(() => {
    const now = new Map<string, { at: XYPosition; session: string }>();
    for (const p of others) for (const d of p.dragging ?? []) now.set(d.node_id, { at: { x: d.x, y: d.y }, session: p.session_id });
    const present = new Set(others.filter((p) => !p.dragQuiet).map((p) => p.session_id));
    for (const [id, was] of previous.current) {
      if (now.has(id)) continue;
      const node = nodesRef.current.find((n) => n.id === id);
      if (node && present.has(was.session)) settling.current.set(id, { at: was.at, basis: node.position, until: Date.now() + SETTLE_MS });
    }
    for (const id of now.keys()) settling.current.delete(id);
    previous.current = now;
    return now;
  }, [others]);

  // A settling node shows the canvas's own position once its time is up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the settling nodes live in a ref that `live` (a drop) and `tick` (a time up) change: each must set the next timer.
  useEffect(() => {
    if (settling.current.size === 0) return;
    const next = Math.min(...[...settling.current.values()].map((s) => s.until));
    const timer = setTimeout(() => setTick((t) => t + 1), Math.max(0, next - Date.now()) + 10);
    return () => clearTimeout(timer);
  }, [live, tick]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `tick` re-runs it when a settling time (kept in a ref) is up.
  return useMemo(() => {
    if (live.size === 0 && settling.current.size === 0) return nodes;
    const now = Date.now();
    return nodes.map((n) => {
      // This person's own drag wins.
      if (n.dragging) return n;
      const dragged = live.get(n.id);
      if (dragged) return same(dragged.at, n.position) ? n : { ...n, position: dragged.at };
      const s = settling.current.get(n.id);
      if (!s) return n;
      if (now >= s.until || !same(n.position, s.basis)) {
        settling.current.delete(n.id);
        return n;
      }
      return { ...n, position: s.at };
    });
  }, [nodes, live, tick]);
}
