// The cards far out, drawn on one <canvas> (issue 30): below FARTHEST_ZOOM a card is a block of its
// size and colour, and thousands of them as page elements (each a React Flow node with its store
// subscriptions, handles and box to lay out and paint) made opening and panning a fitted board of
// 2,000 cards slow. As tldraw draws its culled shapes on one canvas, these cards are drawn here, in
// frames first, then connections between them, then cards, and are not in the page at all
// (use-culling.ts passes them to React Flow as hidden). The layer follows the view itself (a store
// subscription, no React render), so panning draws one canvas. A card comes back into the page as
// soon as it is needed there (the pointer over it, focused, selected, dragged: use-far-wake.ts), and
// is then a plain block (far-cards.tsx) that React Flow moves, selects and connects as any card.
import { useLayoutEffect, useRef } from 'react';
import { type Edge, type ReactFlowState, useStoreApi } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { colorHex } from '../../nodes/card-style';
import { isFrame } from '../layout/frames';
import { cardSize } from './use-culling';

/** A far card's fill per type (a card's own colour wins). */
const FILLS: Record<string, string> = {
  noteNode: '#fef9c3',
  urlNode: '#e0f2fe',
  videoNode: '#fee2e2',
  documentNode: '#ede9fe',
  pdfNode: '#ffedd5',
  imageNode: '#d1fae5',
};

/** How a card is filled far out, here and as a plain block in the page (far-cards.tsx). */
export function farFill(node: { type?: string; data?: Record<string, unknown> }): string {
  return colorHex(node.data?.color) ?? FILLS[node.type ?? ''] ?? '#f1f5f9';
}

interface Drawn {
  cards: BoardFlowNode[];
  edges: Edge[];
}

function paint(canvas: HTMLCanvasElement, state: ReactFlowState, { cards, edges }: Drawn): void {
  // Not before React Flow has its view and size (the effects after its first render).
  if (!state.panZoom || state.width === 0) return;
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(state.width * ratio);
  const height = Math.round(state.height * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style.width = `${state.width}px`;
    canvas.style.height = `${state.height}px`;
  }
  const context = canvas.getContext('2d');
  if (!context) return;
  const [tx, ty, zoom] = state.transform;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, width, height);
  context.setTransform(ratio * zoom, 0, 0, ratio * zoom, ratio * tx, ratio * ty);
  // Only what is in view is drawn.
  const left = -tx / zoom;
  const top = -ty / zoom;
  const right = left + state.width / zoom;
  const bottom = top + state.height / zoom;
  const pixel = 1 / zoom;
  const boxes = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const node of cards) boxes.set(node.id, { ...node.position, ...cardSize(node) });
  const inView = (b: { x: number; y: number; width: number; height: number }) =>
    b.x < right && b.x + b.width > left && b.y < bottom && b.y + b.height > top;

  context.lineWidth = pixel;
  context.strokeStyle = '#94a3b8';
  context.fillStyle = 'rgba(148, 163, 184, 0.12)';
  for (const node of cards) {
    if (!isFrame(node)) continue;
    const b = boxes.get(node.id)!;
    if (!inView(b)) continue;
    context.fillRect(b.x, b.y, b.width, b.height);
    context.strokeRect(b.x, b.y, b.width, b.height);
  }
  // Connections between two far cards, centre to centre (the cards cover their ends).
  context.beginPath();
  for (const edge of edges) {
    const a = boxes.get(edge.source);
    const b = boxes.get(edge.target);
    if (!a || !b) continue;
    context.moveTo(a.x + a.width / 2, a.y + a.height / 2);
    context.lineTo(b.x + b.width / 2, b.y + b.height / 2);
  }
  context.lineWidth = 1.5 * pixel;
  context.strokeStyle = '#64748b';
  context.stroke();
  context.lineWidth = pixel;
  context.strokeStyle = '#cbd5e1';
  let drawn = 0;
  for (const node of cards) {
    if (isFrame(node)) continue;
    const b = boxes.get(node.id)!;
    if (!inView(b)) continue;
    context.fillStyle = farFill(node);
    context.fillRect(b.x, b.y, b.width, b.height);
    context.strokeRect(b.x, b.y, b.width, b.height);
    drawn++;
  }
  canvas.dataset.cards = String(cards.length);
  canvas.dataset.drawn = String(drawn);
}

/** The canvas layer under React Flow's nodes and edges (a child of <ReactFlow>). As it draws, its
 * `data-cards` says how many cards it holds and `data-drawn` how many it drew in view (for tests and
 * the benchmark). */
export function FarLayer({ cards, edges }: Drawn) {
  const store = useStoreApi<BoardFlowNode, Edge>();
  const canvas = useRef<HTMLCanvasElement>(null);
  // Drawn before the browser paints the render that changed the cards, and again on every change of
  // the view (in the same task as React Flow moves its nodes, so the two never drift apart).
  useLayoutEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const drawn = { cards, edges };
    let last = store.getState();
    paint(element, last, drawn);
    if (cards.length === 0) return;
    return store.subscribe((state) => {
      if (state.transform === last.transform && state.width === last.width && state.height === last.height) return;
      last = state;
      paint(element, state, drawn);
    });
  }, [store, cards, edges]);
  return <canvas ref={canvas} className="bw-far-layer" />;
}
