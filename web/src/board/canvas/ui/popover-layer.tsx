// The layer the canvas's menus and a connection's toolbar open in: the last child of the board,
// above the canvas, its panels and its notices. Drawn inside its card (or in React Flow's edge
// label layer) a menu sat in the canvas's stacking context, under the notices, and scaled with the
// canvas's zoom; here it is always on top and always at its own size, placed at what opened it by
// Floating UI and kept there as that moves.
import { autoUpdate, flip, offset, type Placement, shift, useFloating } from '@floating-ui/react-dom';
import { createContext, type KeyboardEvent, type ReactNode, useContext } from 'react';
import { createPortal } from 'react-dom';

const PopoverLayerContext = createContext<HTMLElement | null>(null);

export const PopoverLayerProvider = PopoverLayerContext.Provider;

/** The element the popovers are drawn into; `layerRef` is given it once it is on the page. */
export function PopoverLayer({ layerRef }: { layerRef(element: HTMLDivElement | null): void }) {
  return <div className="bw-popover-layer" ref={layerRef} />;
}

/** Draws `children` in the board's popover layer, or in place where there is none. */
export function InPopoverLayer({ children }: { children: ReactNode }) {
  const layer = useContext(PopoverLayerContext);
  return layer ? createPortal(children, layer) : children;
}

const EDGE_GAP = 8;

/**
 * A popover's position at its anchor (the trigger, a point, or `reference`): on `placement`'s
 * side, flipped to the other side when the screen has no room there (unless `flip` is false),
 * shifted along the screen's edge, and followed every frame while open (the canvas pans and zooms
 * by transforms, which no resize or scroll event reports).
 */
export function useAnchoredPopover(placement: Placement, options: { gap?: number; flip?: boolean; reference?: Element | null } = {}) {
  const { gap = 4, flip: flips = true, reference } = options;
  return useFloating({
    placement,
    strategy: 'fixed',
    middleware: [offset(gap), ...(flips ? [flip({ padding: EDGE_GAP })] : []), shift({ padding: EDGE_GAP })],
    whileElementsMounted: (ref, floating, update) => autoUpdate(ref, floating, update, { animationFrame: true }),
    ...(reference !== undefined ? { elements: { reference } } : {}),
  });
}

/** A menu (`role="menu"`) drawn in the popover layer where `popover` (useAnchoredPopover) places it. */
export function PopoverMenu(props: {
  label: string;
  popover: ReturnType<typeof useAnchoredPopover>;
  onKeyDown(event: KeyboardEvent<HTMLDivElement>): void;
  children: ReactNode;
}) {
  const { label, popover, onKeyDown, children } = props;
  return (
    <InPopoverLayer>
      <div
        className="bw-menu__list"
        role="menu"
        aria-label={label}
        ref={popover.refs.setFloating}
        style={popover.floatingStyles}
        onKeyDown={onKeyDown}
      >
        {children}
      </div>
    </InPopoverLayer>
  );
}
