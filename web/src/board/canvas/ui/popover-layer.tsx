// The layer the canvas's menus open in (a card's menu, the canvas's context menu): the last child
// of the board, above the canvas, its toolbars and its notices. A menu drawn inside its card would
// sit in the card's stacking context, under the notices, and scale with the canvas's zoom; here it
// is always on top and always at its own size, placed at what opened it by Floating UI (flipped
// above it, or shifted, when the screen has no room below).
import { autoUpdate, flip, offset, type Placement, shift, useFloating } from '@floating-ui/react-dom';
import { createContext, type ReactNode, useContext } from 'react';
import { createPortal } from 'react-dom';

const PopoverLayerContext = createContext<HTMLElement | null>(null);

export const PopoverLayerProvider = PopoverLayerContext.Provider;

/** The element menus are drawn into; give its `ref` a state setter and pass the element to the provider. */
export function PopoverLayer({ layerRef }: { layerRef(element: HTMLDivElement | null): void }) {
  return <div className="bw-popover-layer" ref={layerRef} />;
}

/** Draws `children` in the board's popover layer, or in place where there is none. */
export function InPopoverLayer({ children }: { children: ReactNode }) {
  const layer = useContext(PopoverLayerContext);
  return layer ? createPortal(children, layer) : children;
}

const EDGE_GAP = 8;

/** A menu's position at its anchor (the trigger, or a point), kept there as the anchor moves while it is open. */
export function useAnchoredPopover(placement: Placement) {
  return useFloating({
    placement,
    strategy: 'fixed',
    middleware: [offset(4), flip({ padding: EDGE_GAP }), shift({ padding: EDGE_GAP })],
    whileElementsMounted: autoUpdate,
  });
}
