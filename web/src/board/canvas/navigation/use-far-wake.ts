// Which far-out cards come back into the page (issue 30). Far out, the cards are drawn on one canvas
// (far-layer.tsx) and are not in the page; a card the person reaches for is: the card under the
// pointer (before a button is pressed, so React Flow's own drag, click and connection handling take
// the press as on any card; a touch wakes the card it lands on, and a touch drag on it moves it:
// use-far-touch-drag.ts). At every zoom, the card holding the keyboard focus and the card the
// keyboard goes to next (use-card-keys.ts) are kept in the page, culled or far. A rectangle drawn on
// the empty canvas selects the far cards it touches too (selected cards are always in the page:
// use-culling.ts), as React Flow selects the cards in the page.
import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Edge, type NodeSelectionChange, useStoreApi } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { isFrame } from '../layout/frames';
import { cardSize } from './use-culling';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const boxOf = (node: BoardFlowNode): Box => ({ ...node.position, ...cardSize(node) });
const inside = (b: Box, x: number, y: number) => x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && a.x + a.width > b.x && a.y < b.y + b.height && a.y + a.height > b.y;

/** The card under a point of the canvas: a card before a frame, the last drawn (topmost) first. */
export function cardAt(nodes: BoardFlowNode[], x: number, y: number, canWake: (node: BoardFlowNode) => boolean): string | undefined {
  let frame: string | undefined;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (!canWake(node) || !inside(boxOf(node), x, y)) continue;
    if (!isFrame(node)) return node.id;
    frame ??= node.id;
  }
  return frame;
}

const same = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((id) => b.has(id));

export interface FarWake {
  /** The ids of the cards to keep in the page: far out the card under the pointer, and at every
   * zoom the focused card and the one asked for. */
  awake: ReadonlySet<string>;
  /** Brings a card into the page (for the keyboard to focus it), until the focus has been on it. */
  bringIn(id: string): void;
}

/**
 * The cards to keep in the page (see FarWake). `nodes` holds every node as of the last render;
 * `canWake` tells the cards drawn far out from the rest.
 */
export function useFarWake(
  wrapper: RefObject<HTMLElement | null>,
  far: boolean,
  nodes: RefObject<BoardFlowNode[]>,
  canWake: (node: BoardFlowNode) => boolean,
): FarWake {
  const store = useStoreApi<BoardFlowNode, Edge>();
  const [awake, setAwake] = useState<ReadonlySet<string>>(new Set());
  const hovered = useRef<string | undefined>(undefined);
  const focused = useRef<string | undefined>(undefined);
  const asked = useRef<string | undefined>(undefined);
  const update = useCallback(() => {
    const next = new Set([hovered.current, focused.current, asked.current].filter((id): id is string => id !== undefined));
    setAwake((now) => (same(now, next) ? now : next));
  }, []);
  const bringIn = useCallback(
    (id: string) => {
      asked.current = id;
      update();
    },
    [update],
  );

  // The keyboard's card, at every zoom.
  useEffect(() => {
    const element = wrapper.current;
    if (!element) return;
    const onFocus = (event: FocusEvent) => {
      const card = event.target instanceof Element ? event.target.closest('.react-flow__node') : null;
      focused.current = card?.getAttribute('data-id') ?? undefined;
      if (focused.current !== undefined && focused.current === asked.current) asked.current = undefined;
      update();
    };
    // Focus leaving for the page (a click on empty canvas) lets the card go; focus going to another
    // card is taken by focusin next.
    const onBlur = () => {
      focused.current = undefined;
      update();
    };
    element.addEventListener('focusin', onFocus);
    element.addEventListener('focusout', onBlur);
    return () => {
      element.removeEventListener('focusin', onFocus);
      element.removeEventListener('focusout', onBlur);
    };
  }, [wrapper, update]);

  useEffect(() => {
    const element = wrapper.current;
    if (!far || !element) {
      if (hovered.current !== undefined) {
        hovered.current = undefined;
        update();
      }
      return;
    }
    const hover = (event: PointerEvent) => {
      const pane = element.querySelector('.react-flow')?.getBoundingClientRect();
      if (!pane) return;
      const [tx, ty, zoom] = store.getState().transform;
      const x = (event.clientX - pane.left - tx) / zoom;
      const y = (event.clientY - pane.top - ty) / zoom;
      hovered.current = cardAt(nodes.current ?? [], x, y, canWake);
      update();
    };
    // A card being pressed or dragged stays as it is until the button is let go.
    const onPointerMove = (event: PointerEvent) => {
      if (event.buttons === 0) hover(event);
    };
    const onPointerDown = (event: PointerEvent) => {
      if (event.pointerType !== 'mouse') hover(event);
    };
    const onPointerLeave = (event: PointerEvent) => {
      if (event.buttons !== 0) return;
      hovered.current = undefined;
      update();
    };
    element.addEventListener('pointermove', onPointerMove, { passive: true });
    element.addEventListener('pointerdown', onPointerDown, { passive: true, capture: true });
    element.addEventListener('pointerleave', onPointerLeave);

    // Selecting by a rectangle: the far cards it touches are selected (and so come into the page,
    // where React Flow's own selection takes them from then on); those it no longer touches are not.
    const picked = new Set<string>();
    let lastRect: unknown;
    const unsubscribe = store.subscribe((state) => {
      const rect = state.userSelectionActive ? state.userSelectionRect : null;
      if (rect === lastRect) return;
      lastRect = rect;
      if (!rect) {
        picked.clear();
        return;
      }
      const [tx, ty, zoom] = state.transform;
      const area = { x: (rect.x - tx) / zoom, y: (rect.y - ty) / zoom, width: rect.width / zoom, height: rect.height / zoom };
      const changes: NodeSelectionChange[] = [];
      for (const node of nodes.current ?? []) {
        const touched = overlaps(boxOf(node), area);
        if (touched && !node.selected && canWake(node) && !picked.has(node.id)) {
          picked.add(node.id);
          changes.push({ type: 'select', id: node.id, selected: true });
        } else if (!touched && picked.has(node.id)) {
          picked.delete(node.id);
          changes.push({ type: 'select', id: node.id, selected: false });
        }
      }
      if (changes.length > 0) state.triggerNodeChanges(changes);
    });
    return () => {
      element.removeEventListener('pointermove', onPointerMove);
      element.removeEventListener('pointerdown', onPointerDown, { capture: true });
      element.removeEventListener('pointerleave', onPointerLeave);
      unsubscribe();
    };
  }, [far, wrapper, nodes, store, canWake, update]);

  return useMemo(() => ({ awake, bringIn }), [awake, bringIn]);
}
