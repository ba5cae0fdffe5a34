// Navigating the canvas as in tldraw and Figma (issue 30): the wheel and a two-finger swipe pan (also
// sideways; Shift+wheel pans sideways off a Mac), Ctrl/Cmd+wheel and a pinch zoom around the pointer
// (React Flow's pan-on-scroll, given here as props for <ReactFlow>), and the zoom keys: Ctrl/Cmd+=
// and Ctrl/Cmd+- zoom around the view's centre, Ctrl/Cmd+0 goes to 100%, Shift+1 fits every card and
// Shift+2 the selection. The browser's own page zoom is not used for these keys. Far out, cards are
// drawn plain (class `is-far` on the canvas: navigation.css), which keeps a board of thousands of cards
// panning smoothly at the zoom that fits it.
import { type RefObject, useEffect } from 'react';
import { type Edge, type FitViewOptions, type ReactFlowProps, useReactFlow, useStore } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import './navigation.css';

/** Below this zoom a card's body is not drawn (its title still is). */
export const FAR_ZOOM = 0.5;
/** Below this zoom a card is a plain block in its colour. */
export const FARTHEST_ZOOM = 0.25;

const ZOOM_DURATION = 120;

/** Props of <ReactFlow> for the wheel and the pinch. */
export const NAVIGATION_PROPS: Pick<
  ReactFlowProps<BoardFlowNode, Edge>,
  'panOnScroll' | 'zoomOnScroll' | 'zoomOnPinch' | 'zoomActivationKeyCode' | 'panOnScrollSpeed'
> = {
  panOnScroll: true,
  zoomOnScroll: false,
  zoomOnPinch: true,
  zoomActivationKeyCode: ['Control', 'Meta'],
  panOnScrollSpeed: 1,
};

const isEditable = (target: EventTarget | null) =>
  target instanceof Element && !!target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]');

/** d3-zoom's step for a wheel event (a pinch's and Ctrl+wheel's are 10 times a plain wheel's). */
const wheelStep = (event: WheelEvent) => -event.deltaY * (event.deltaMode === 1 ? 0.05 : event.deltaMode ? 1 : 0.002) * 10;

/**
 * The wheel over a card. React Flow leaves a wheel over a node alone when the wheel pans (its nodes
 * carry its no-pan class, for dragging); here it pans or zooms as over empty canvas, unless what is
 * under the pointer scrolls by itself (`nowheel`: a note's text being edited and longer than its box,
 * a video's player).
 */
function useWheelOverCards(wrapper: RefObject<HTMLElement | null>, minZoom: number, maxZoom: number) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  useEffect(() => {
    const element = wrapper.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!target?.closest('.react-flow__node') || target.closest('.nowheel')) return;
      event.preventDefault();
      event.stopPropagation();
      const { x, y, zoom } = flow.getViewport();
      if (event.ctrlKey || event.metaKey) {
        const pane = element.querySelector('.react-flow')?.getBoundingClientRect();
        if (!pane) return;
        const next = Math.min(maxZoom, Math.max(minZoom, zoom * 2 ** wheelStep(event)));
        const px = event.clientX - pane.left;
        const py = event.clientY - pane.top;
        void flow.setViewport({ x: px - ((px - x) * next) / zoom, y: py - ((py - y) * next) / zoom, zoom: next });
        return;
      }
      const scale = event.deltaMode === 1 ? 20 : 1;
      // Shift+wheel pans sideways off a Mac, as over empty canvas.
      const sideways = event.shiftKey && !/Mac/.test(navigator.platform);
      const dx = (sideways ? event.deltaY : event.deltaX) * scale;
      const dy = sideways ? 0 : event.deltaY * scale;
      void flow.setViewport({ x: x - dx, y: y - dy, zoom });
    };
    element.addEventListener('wheel', onWheel, { passive: false, capture: true });
    return () => element.removeEventListener('wheel', onWheel, { capture: true });
  }, [flow, wrapper, minZoom, maxZoom]);
}

/** The zoom keys, the wheel over cards, and the canvas's class for its zoom (`is-far`, `is-farthest`). */
export function useCanvasNavigation(
  fitViewOptions: FitViewOptions<BoardFlowNode>,
  wrapper: RefObject<HTMLElement | null>,
  zoomRange: { minZoom: number; maxZoom: number },
): { className: string } {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  useWheelOverCards(wrapper, zoomRange.minZoom, zoomRange.maxZoom);
  const detail = useStore((s) => (s.transform[2] < FARTHEST_ZOOM ? 'is-far is-farthest' : s.transform[2] < FAR_ZOOM ? 'is-far' : ''));

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey) return;
      if (event.target instanceof Element && event.target.closest('[role="dialog"]')) return;
      const mod = event.ctrlKey || event.metaKey;
      if (mod && !event.shiftKey) {
        const zoom =
          event.key === '=' || event.key === '+'
            ? () => flow.zoomIn({ duration: ZOOM_DURATION })
            : event.key === '-' || event.key === '_'
              ? () => flow.zoomOut({ duration: ZOOM_DURATION })
              : event.key === '0'
                ? () => flow.zoomTo(1, { duration: ZOOM_DURATION })
                : undefined;
        if (!zoom) return;
        event.preventDefault();
        void zoom();
        return;
      }
      // Shift+1 / Shift+2 type "!" and "@" in a text field: there they stay text.
      if (!event.shiftKey || mod || isEditable(event.target)) return;
      if (event.code === 'Digit1') {
        event.preventDefault();
        void flow.fitView({ ...fitViewOptions, includeHiddenNodes: true, duration: ZOOM_DURATION });
      } else if (event.code === 'Digit2') {
        const selected = flow.getNodes().filter((n) => n.selected);
        if (selected.length === 0) return;
        event.preventDefault();
        void flow.fitView({ ...fitViewOptions, nodes: selected.map((n) => ({ id: n.id })), maxZoom: 2, duration: ZOOM_DURATION });
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [flow, fitViewOptions]);

  return { className: detail };
}
