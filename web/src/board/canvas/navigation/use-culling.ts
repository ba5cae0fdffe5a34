// Only the cards in and near the view are in the page (issue 30): the others are not passed to React
// Flow (a hidden node as large as their extent stands for them when the view is fitted), so a board of 2,000 cards opens and pans with the few dozen on screen. As in
// tldraw, culling is a question asked of each card's box against the view's, with a margin; unlike
// React Flow's `onlyRenderVisibleElements`, a culled card is never mounted, not even once to be
// measured. The view is asked again only when it leaves the region last culled for (or the cards
// change), so panning within it re-renders nothing. Selected and dragged cards, and the cards at the
// other end of a connection from a shown card, are never culled (an edge needs both ends).
// The card the keyboard is on is kept in the page at every zoom (use-card-keys.tsx).
// Far out (below FARTHEST_ZOOM) no card is in the page but those reached for (use-far-wake.ts): the
// others are drawn on one canvas (far-layer.tsx), so at the zoom that fits 2,000 cards the page holds
// a handful of elements, and panning there re-renders nothing.
import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Edge, type ReactFlowState, useStore, type Viewport } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { FARTHEST_ZOOM } from './use-canvas-navigation';
import { useFarWake } from './use-far-wake';
import { named } from './card-names';
import { useFarTouchDrag } from './use-far-touch-drag';

/** The canvas types drawn plain far out (the board's cards; an upload's placeholder stays whole). */
export const FAR_CARD_TYPES = ['noteNode', 'urlNode', 'videoNode', 'documentNode', 'pdfNode', 'imageNode'];

/** A card's size before it is measured: its stored size, else the CSS default. */
const DEFAULT_SIZE = { width: 260, height: 160 };

/** The cards drawn by the first render; each next frame draws twice as many until all in view are. */
const FIRST_CARDS = 150;

/** The region culled for reaches this share of the view's size beyond each side of it. */
const MARGIN = 0.6;

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

export function cardSize(node: BoardFlowNode): { width: number; height: number } {
  return {
    width: node.measured?.width ?? num(node.width) ?? num(node.data?.width) ?? DEFAULT_SIZE.width,
    height: node.measured?.height ?? num(node.height) ?? num(node.data?.height) ?? DEFAULT_SIZE.height,
  };
}

/** The view's transform: until React Flow has set up its pan and zoom (an effect after its first
 * render), the view the board opens at, so the first render is culled for the view it is seen at. */
export const transformOf = (s: ReactFlowState, opening: Viewport): [number, number, number] =>
  s.panZoom ? s.transform : [opening.x, opening.y, opening.zoom];

/** The view in canvas coordinates; before React Flow has measured the canvas, the window stands in
 * for its size (the first render is then culled too). */
const viewOf = (s: ReactFlowState, opening: Viewport): Region => {
  const [tx, ty, zoom] = transformOf(s, opening);
  const width = s.width || window.innerWidth;
  const height = s.height || window.innerHeight;
  return { x: -tx / zoom, y: -ty / zoom, width: width / zoom, height: height / zoom };
};

const contains = (outer: Region, inner: Region) =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;

const grow = (view: Region): Region => ({
  x: view.x - view.width * MARGIN,
  y: view.y - view.height * MARGIN,
  width: view.width * (1 + 2 * MARGIN),
  height: view.height * (1 + 2 * MARGIN),
});

/**
 * The region the cards are culled for: the view grown by MARGIN, kept while the view stays inside
 * it and is not much smaller (zooming in far renders fewer cards again). A selector that returns the
 * same region for most viewport changes, so the canvas re-renders only when it changes.
 */
function useCullRegion(opening: Viewport): Region {
  const last = useRef<Region | undefined>(undefined);
  return useStore((s) => {
    const view = viewOf(s, opening);
    const region = last.current;
    // Far out every card is drawn by the far layer: panning there changes nothing here.
    if (region && transformOf(s, opening)[2] < FARTHEST_ZOOM) return region;
    if (region && contains(region, view) && view.width * (1 + 2 * MARGIN) * 2 > region.width) return region;
    last.current = grow(view);
    return last.current;
  });
}

/** The id of the hidden node standing for the culled cards' extent in React Flow. */
export const CULLED_EXTENT = 'culled-extent';

export interface Culled {
  /** For React Flow: the nodes in the page, and a hidden node as large as the culled cards' extent. */
  nodes: BoardFlowNode[];
  /** For React Flow: the edges with both ends in the page. */
  edges: Edge[];
  /** The cards drawn on the far layer instead (far out only; empty otherwise). */
  farCards: BoardFlowNode[];
  /** Brings a card into the page, culled or far, for the keyboard to focus it (use-card-keys.ts). */
  bringIn(id: string): void;
}

const NO_CARDS: BoardFlowNode[] = [];

/** Of `nodes`, those in the region around the view, and far out only those reached for; the others
 * are not given to React Flow at all (as hidden nodes they would each still hold two store
 * subscriptions in React Flow, its node's and the minimap's, run on every frame of a pan or drag). */
export function useCulling(nodes: BoardFlowNode[], edges: Edge[], wrapper: RefObject<HTMLElement | null>, opening: Viewport): Culled {
  const region = useCullRegion(opening);
  const far = useStore((s) => transformOf(s, opening)[2] < FARTHEST_ZOOM);
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const canWake = useCallback((node: BoardFlowNode) => FAR_CARD_TYPES.includes(node.type ?? ''), []);
  const { awake, bringIn } = useFarWake(wrapper, far, nodesRef, canWake);
  useFarTouchDrag(wrapper, far, nodesRef, canWake);
  // The board opens with its first cards drawn at once and the rest over the next frames (after
  // each paint), instead of one long render before anything shows.
  const [cap, setCap] = useState(FIRST_CARDS);
  const growing = cap < nodes.length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new cap schedules the next step
  useEffect(() => {
    if (!growing) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setCap((c) => c * 2));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [growing, cap]);
  return useMemo(() => {
    // Far out the view's region does not matter: the far layer draws what is in view.
    const right = far ? Infinity : region.x + region.width;
    const bottom = far ? Infinity : region.y + region.height;
    const regionX = far ? -Infinity : region.x;
    const regionY = far ? -Infinity : region.y;
    const shown = new Set<string>();
    for (const node of nodes) {
      if (far && !node.selected && !node.dragging && !awake.has(node.id) && FAR_CARD_TYPES.includes(node.type ?? '')) continue;
      const { width, height } = cardSize(node);
      const { x, y } = node.position;
      const inView = x < right && x + width > regionX && y < bottom && y + height > regionY;
      if (
        (inView && (far || !growing || shown.size < cap)) ||
        node.selected ||
        node.dragging ||
        awake.has(node.id) ||
        node.type === 'uploadNode'
      )
        shown.add(node.id);
    }
    if (shown.size === nodes.length) return { nodes: nodes.map(named), edges, farCards: NO_CARDS, bringIn };
    // An edge is drawn only with both ends in the page: the far end of a shown card's edge stays.
    const ends = new Set<string>();
    // A selected edge keeps both its cards (so the delete key still reaches it).
    for (const edge of edges) {
      if (shown.has(edge.source) || edge.selected) ends.add(edge.target);
      if (shown.has(edge.target) || edge.selected) ends.add(edge.source);
    }
    for (const id of ends) shown.add(id);
    const farCards = far ? nodes.filter((node) => !shown.has(node.id) && FAR_CARD_TYPES.includes(node.type ?? '')) : NO_CARDS;
    const inPage: BoardFlowNode[] = [];
    let left = Infinity;
    let top = Infinity;
    let rightmost = -Infinity;
    let lowest = -Infinity;
    for (const node of nodes) {
      if (shown.has(node.id)) {
        inPage.push(named(node));
        continue;
      }
      const { width, height } = cardSize(node);
      left = Math.min(left, node.position.x);
      top = Math.min(top, node.position.y);
      rightmost = Math.max(rightmost, node.position.x + width);
      lowest = Math.max(lowest, node.position.y + height);
    }
    // The culled cards' extent, for fitting the view (every fit counts hidden nodes: fit-view.ts).
    inPage.push({
      id: CULLED_EXTENT,
      position: { x: left, y: top },
      data: {},
      width: rightmost - left,
      height: lowest - top,
      hidden: true,
      selectable: false,
      draggable: false,
      connectable: false,
      focusable: false,
    } as BoardFlowNode);
    return { nodes: inPage, edges: edges.filter((e) => shown.has(e.source) && shown.has(e.target)), farCards, bringIn };
  }, [nodes, edges, region, growing, cap, far, awake, bringIn]);
}
