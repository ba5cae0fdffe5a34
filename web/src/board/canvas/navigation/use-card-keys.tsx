// The keyboard among the cards, at every zoom (issue 30). Only the cards near the view are in the
// page, and far out none but those reached for (use-culling.ts), so the browser's own Tab order
// cannot reach them all, and it would follow the order the cards were made in. As tldraw does for
// its shapes, the keyboard goes through every card of the board in reading order
// (reading-order.ts) instead: Tab from a card (after its own buttons and text) goes to the next
// card, Shift+Tab from a card to the one before, the arrow keys from a card that is not selected to
// the nearest card their way (a selected card is moved by them, as React Flow does). The card gone
// to is brought into the page (culled or far out: use-far-wake.ts), the view pans to it when it is
// out of view, and it takes the focus with its ring; a screen reader announces it by its title and
// type (card-names.ts). After the last card Tab goes on to the connections in the page and then to
// the controls after the canvas; one hidden stop before the canvas (CardsEntry) leads into the
// first card. Enter on a card goes into it (its text, else its first control), zooming in to the
// card first where it is drawn too small to be read; Escape from its text gives the focus back to
// the card.
import { type RefObject, useCallback, useEffect, useRef } from 'react';
import { type AriaLabelConfig, type Edge, useReactFlow, useStoreApi } from '@xyflow/react';
import { tabbable } from 'tabbable';
import type { BoardFlowNode } from '../../board-context';
import { FAR_ZOOM } from './use-canvas-navigation';
import { cardSize, FAR_CARD_TYPES } from './use-culling';
import { type CardBox, type Direction, nearestInDirection, readingOrder } from './reading-order';

/** The zoom Enter goes to for a card drawn too small to be read. */
const READING_ZOOM = 1;
/** How long a card brought into the page may take to appear before the focus stops waiting. */
const APPEAR_MS = 3000;

const ARROWS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

const boxesOf = (nodes: readonly BoardFlowNode[]): CardBox[] =>
  nodes.filter((n) => FAR_CARD_TYPES.includes(n.type ?? '')).map((n) => ({ id: n.id, ...n.position, ...cardSize(n) }));

const isShown = (element: Element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';

const CARD_KEYS_TEXT =
  'Tab, Shift+Tab and the arrow keys go to other cards. Enter selects the card and goes into its text, Escape comes back. ' +
  'On a selected card the arrow keys move it and Delete removes it.';

/** What a screen reader is told about a card's keys (React Flow's `ariaLabelConfig`; it reads one
 * or the other of these depending on its keyboard setting). */
export const CARD_DESCRIPTIONS: Partial<AriaLabelConfig> = {
  'node.a11yDescription.default': CARD_KEYS_TEXT,
  'node.a11yDescription.keyboardDisabled': CARD_KEYS_TEXT,
};

export interface CardKeys {
  /** For the stop before the canvas: the focus goes on to the first card. */
  enter(): void;
}

export function useCardKeys(wrapper: RefObject<HTMLElement | null>, nodes: BoardFlowNode[], bringIn: (id: string) => void): CardKeys {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const store = useStoreApi<BoardFlowNode, Edge>();
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const bringInRef = useRef(bringIn);
  bringInRef.current = bringIn;
  // A later move of the focus replaces one still waiting for its card to appear.
  const pending = useRef(0);

  const cardElement = useCallback(
    (id: string) => wrapper.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`) ?? null,
    [wrapper],
  );

  /** Waits (a frame at a time) for `find` to give an element shown, and focuses it. */
  const focusWhenShown = useCallback((find: () => HTMLElement | null | undefined) => {
    const token = ++pending.current;
    const until = performance.now() + APPEAR_MS;
    const attempt = () => {
      if (token !== pending.current) return;
      const element = find();
      if (element && isShown(element)) {
        element.focus({ preventScroll: true });
        return;
      }
      if (performance.now() < until) requestAnimationFrame(attempt);
    };
    attempt();
  }, []);

  /** The view's centre moves to the card when the card is not wholly in view. */
  const panTo = useCallback(
    (box: CardBox, zoom?: number) => {
      const { transform, width, height } = store.getState();
      const [tx, ty, scale] = transform;
      const left = box.x * scale + tx;
      const top = box.y * scale + ty;
      const inView = left >= 0 && top >= 0 && left + box.width * scale <= width && top + box.height * scale <= height;
      if (inView && zoom === undefined) return;
      void flow.setCenter(box.x + box.width / 2, box.y + box.height / 2, { zoom: zoom ?? scale });
    },
    [flow, store],
  );

  const goTo = useCallback(
    (id: string) => {
      const box = boxesOf(nodesRef.current).find((b) => b.id === id);
      if (!box) return;
      bringInRef.current(id);
      panTo(box);
      focusWhenShown(() => cardElement(id));
    },
    [cardElement, focusWhenShown, panTo],
  );

  const enter = useCallback(() => {
    const first = readingOrder(boxesOf(nodesRef.current))[0];
    if (first) goTo(first);
  }, [goTo]);

  // The ring around a focused card far out is as wide on screen as close up.
  useEffect(() => {
    const element = wrapper.current;
    if (!element) return;
    let zoom = 0;
    const set = (z: number) => {
      if (z === zoom) return;
      zoom = z;
      element.style.setProperty('--bw-card-ring', `${(3 / Math.min(1, z)).toFixed(2)}px`);
    };
    set(store.getState().transform[2]);
    return store.subscribe((state) => set(state.transform[2]));
  }, [wrapper, store]);

  useEffect(() => {
    const element = wrapper.current;
    if (!element) return;

    /** The page's stops before the canvas (the last one) or after it (the first one). */
    const outside = (forward: boolean): HTMLElement | undefined => {
      const viewport = element.querySelector('.react-flow__viewport');
      const entry = element.querySelector('.bw-cards-entry');
      if (!viewport) return undefined;
      const all = tabbable(document.body).filter((el) => !viewport.contains(el) && el !== entry);
      if (forward) return all.find((el) => viewport.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) as HTMLElement;
      const before = all.filter((el) => (entry ?? viewport).compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING);
      return before[before.length - 1] as HTMLElement | undefined;
    };
    const edgesInPage = () => {
      const edges = element.querySelector('.react-flow__edges');
      return edges ? tabbable(edges) : [];
    };
    const lastCard = () => {
      const order = readingOrder(boxesOf(nodesRef.current));
      return order[order.length - 1];
    };

    /** Where Tab (or Shift+Tab) from `target` goes, when the canvas decides: a card's id or an element. */
    const tabFrom = (target: Element, forward: boolean): string | Element | undefined => {
      const viewport = element.querySelector('.react-flow__viewport');
      const card = target.closest<HTMLElement>('.react-flow__node');
      if (card) {
        if (forward) {
          const own = tabbable(card, { includeContainer: true });
          if (own.length > 0 && target !== own[own.length - 1]) return undefined;
        } else if (target !== card) return undefined;
        const order = readingOrder(boxesOf(nodesRef.current));
        const at = order.indexOf(card.getAttribute('data-id') ?? '');
        const next = at < 0 ? undefined : order[at + (forward ? 1 : -1)];
        if (next !== undefined) return next;
        return forward ? (edgesInPage()[0] ?? outside(true)) : outside(false);
      }
      const edge = target.closest('.react-flow__edge');
      if (edge) {
        const edges = edgesInPage();
        const next = edges[edges.indexOf(edge as HTMLElement) + (forward ? 1 : -1)];
        if (next) return next;
        return forward ? outside(true) : (lastCard() ?? outside(false));
      }
      // Shift+Tab from after the canvas comes back to its last connection, else its last card.
      if (forward || !viewport) return undefined;
      const entry = element.querySelector('.bw-cards-entry');
      const all = tabbable(document.body);
      const previous = all[all.indexOf(target as HTMLElement) - 1];
      if (!previous || !(viewport.contains(previous) || previous === entry)) return undefined;
      const edges = edgesInPage();
      return edges[edges.length - 1] ?? lastCard() ?? outside(false);
    };
    const onTab = (event: KeyboardEvent, target: Element) => {
      const to = tabFrom(target, !event.shiftKey);
      if (to === undefined) return;
      event.preventDefault();
      if (typeof to === 'string') goTo(to);
      else (to as HTMLElement).focus();
    };

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target instanceof Element ? event.target : null;
      if (!target) return;
      if (event.key === 'Tab') return onTab(event, target);
      const card = target.closest<HTMLElement>('.react-flow__node');
      if (!card || !FAR_CARD_TYPES.some((type) => card.classList.contains(`react-flow__node-${type}`))) return;
      const id = card.getAttribute('data-id') ?? '';
      if (event.key === 'Escape' && target !== card) {
        // The card's text (or title) lets go of the focus on Escape: the card takes it back.
        setTimeout(() => {
          if (document.activeElement === document.body || document.activeElement === null) card.focus({ preventScroll: true });
        });
        return;
      }
      if (target !== card || event.shiftKey) return;
      if (event.key === 'Escape' && card.classList.contains('selected')) {
        // Unselected, the card keeps the focus (React Flow's own Escape lets go of it too).
        event.preventDefault();
        event.stopPropagation();
        store.getState().triggerNodeChanges([{ type: 'select', id, selected: false }]);
        return;
      }
      const direction = ARROWS[event.key];
      if (direction && !card.classList.contains('selected')) {
        const boxes = boxesOf(nodesRef.current);
        const from = boxes.find((b) => b.id === id);
        const next = from && nearestInDirection(boxes, from, direction);
        event.preventDefault();
        if (next) goTo(next);
        return;
      }
      if (event.key === 'Enter') {
        // React Flow selects the card too (its own Enter); the Enter is not typed into the text.
        event.preventDefault();
        const box = boxesOf(nodesRef.current).find((b) => b.id === id);
        if (!box) return;
        if (store.getState().transform[2] < FAR_ZOOM) panTo(box, READING_ZOOM);
        focusWhenShown(() => {
          const inside = cardElement(id);
          if (!inside) return null;
          const own = tabbable(inside);
          return (own.find((el) => el.matches('textarea, input')) ?? own[0]) as HTMLElement | undefined;
        });
      }
    };
    element.addEventListener('keydown', onKeyDown, true);
    const onWindowKeyDown = (event: KeyboardEvent) => {
      // Shift+Tab from the controls after the canvas (outside its element, e.g. the chat panel).
      if (event.key !== 'Tab' || !event.shiftKey || event.defaultPrevented || !(event.target instanceof Element)) return;
      if (element.contains(event.target)) return;
      onTab(event, event.target);
    };
    window.addEventListener('keydown', onWindowKeyDown, true);
    return () => {
      element.removeEventListener('keydown', onKeyDown, true);
      window.removeEventListener('keydown', onWindowKeyDown, true);
    };
  }, [wrapper, store, goTo, panTo, focusWhenShown, cardElement]);

  return { enter };
}

/** The stop before the canvas in the page's Tab order: focused, it hands the focus to the first
 * card in reading order (none of the cards may be in the page far out). */
export function CardsEntry({ keys, count }: { keys: CardKeys; count: number }) {
  if (count === 0) return null;
  return (
    <button type="button" className="bw-cards-entry bw-visually-hidden" onFocus={keys.enter}>
      {`${count} cards`}
    </button>
  );
}
