// One touch drags a card far out (issue 30). Far out the cards are drawn on one canvas
// (far-layer.tsx) and a touch on one lands on the empty pane, where React Flow takes it as a pan;
// the card it wakes into the page (use-far-wake.ts) could be dragged only by a second touch. Here a
// single finger landing on a far card that may be moved drags it as React Flow drags a card: the
// card is selected alone, and its moves go through React Flow's node changes and drag callbacks
// (so the board's drag handling snaps, saves and shows them to others: canvas/layout/
// use-canvas-drag.ts). A second finger ends the drag where it is (and the pinch is the browser's
// next gesture). The touch is kept from the pane (no pan) only once it is known to be on a card.
import { type RefObject, useEffect } from 'react';
import type { Edge, NodeChange, XYPosition } from '@xyflow/react';
import { useStoreApi } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { cardAt } from './use-far-wake';

/** How far (screen pixels) a finger moves before the press is a drag (React Flow's click distance). */
const DRAG_PX = 3;

interface TouchDrag {
  touch: number;
  id: string;
  from: { x: number; y: number };
  start: XYPosition;
  at: XYPosition;
  moving: boolean;
}

export function useFarTouchDrag(
  wrapper: RefObject<HTMLElement | null>,
  far: boolean,
  nodes: RefObject<BoardFlowNode[]>,
  canWake: (node: BoardFlowNode) => boolean,
): void {
  const store = useStoreApi<BoardFlowNode, Edge>();
  useEffect(() => {
    const element = wrapper.current;
    if (!far || !element) return;
    let drag: TouchDrag | undefined;
    const nodeNow = (id: string, position?: XYPosition): BoardFlowNode | undefined => {
      const node = (nodes.current ?? []).find((n) => n.id === id);
      return node && position ? { ...node, position } : node;
    };
    const own = (event: TouchEvent) => (drag ? [...event.changedTouches].find((t) => t.identifier === drag!.touch) : undefined);
    const move = (changes: NodeChange<BoardFlowNode>[]) => store.getState().triggerNodeChanges(changes);

    const finish = (event: TouchEvent) => {
      const ended = drag;
      drag = undefined;
      if (!ended?.moving) return;
      move([{ type: 'position', id: ended.id, position: ended.at, dragging: false }]);
      const node = nodeNow(ended.id, ended.at);
      if (node) store.getState().onNodeDragStop?.(event, node, [node]);
    };

    const onTouchStart = (event: TouchEvent) => {
      if (drag) {
        finish(event);
        return;
      }
      const target = event.target instanceof Element ? event.target : null;
      if (event.touches.length !== 1 || !target?.classList.contains('react-flow__pane')) return;
      const state = store.getState();
      const pane = element.querySelector('.react-flow')?.getBoundingClientRect();
      const touch = event.changedTouches[0];
      if (!state.nodesDraggable || !pane || !touch) return;
      const [tx, ty, zoom] = state.transform;
      const id = cardAt(nodes.current ?? [], (touch.clientX - pane.left - tx) / zoom, (touch.clientY - pane.top - ty) / zoom, canWake);
      const node = id === undefined ? undefined : nodeNow(id);
      if (!node || node.draggable === false) return;
      // On a card: not a pan of the canvas.
      event.stopPropagation();
      drag = {
        touch: touch.identifier,
        id: node.id,
        from: { x: touch.clientX, y: touch.clientY },
        start: { ...node.position },
        at: { ...node.position },
        moving: false,
      };
    };

    const onTouchMove = (event: TouchEvent) => {
      const touch = own(event);
      if (!drag || !touch) return;
      event.stopPropagation();
      if (event.cancelable) event.preventDefault();
      const dx = touch.clientX - drag.from.x;
      const dy = touch.clientY - drag.from.y;
      const state = store.getState();
      if (!drag.moving) {
        if (Math.hypot(dx, dy) < DRAG_PX) return;
        const node = nodeNow(drag.id);
        if (!node) {
          drag = undefined;
          return;
        }
        drag.moving = true;
        // As React Flow does for a drag of a card that is not selected: it alone is selected.
        state.addSelectedNodes([drag.id]);
        state.onNodeDragStart?.(event, node, [node]);
      }
      const zoom = state.transform[2];
      drag.at = { x: drag.start.x + dx / zoom, y: drag.start.y + dy / zoom };
      move([{ type: 'position', id: drag.id, position: drag.at, dragging: true }]);
      const node = nodeNow(drag.id, drag.at);
      if (node) state.onNodeDrag?.(event, node, [node]);
    };

    const onTouchEnd = (event: TouchEvent) => {
      if (!own(event)) return;
      event.stopPropagation();
      finish(event);
    };

    element.addEventListener('touchstart', onTouchStart, { capture: true, passive: true });
    element.addEventListener('touchmove', onTouchMove, { capture: true, passive: false });
    element.addEventListener('touchend', onTouchEnd, { capture: true });
    element.addEventListener('touchcancel', onTouchEnd, { capture: true });
    return () => {
      element.removeEventListener('touchstart', onTouchStart, { capture: true });
      element.removeEventListener('touchmove', onTouchMove, { capture: true });
      element.removeEventListener('touchend', onTouchEnd, { capture: true });
      element.removeEventListener('touchcancel', onTouchEnd, { capture: true });
      drag = undefined;
    };
  }, [far, wrapper, nodes, store, canWake]);
}
