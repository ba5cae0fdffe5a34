// A popup (a menu) that closes on a pointer press outside it or on Escape, while it is open.
import { type RefObject, useEffect, useRef } from 'react';

type Refs = RefObject<HTMLElement | null> | readonly RefObject<HTMLElement | null>[];

/**
 * While `open`, a pointer press outside `refs`' elements or Escape calls `setOpen(false)`. A menu
 * drawn in another layer than its button (board/canvas/ui/popover-layer.tsx) passes both.
 */
export function useDismiss(refs: Refs, open: boolean, setOpen: (open: boolean) => void): void {
  // Read when a press comes, so a new array each render (of the same refs) does not matter.
  const inside = useRef(refs);
  inside.current = refs;
  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      const refs = inside.current;
      const all: readonly RefObject<HTMLElement | null>[] = Array.isArray(refs) ? refs : [refs];
      if (!all.some((ref) => ref.current?.contains(event.target as globalThis.Node))) setOpen(false);
    };
    const closeOnEscape = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false);
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open, setOpen]);
}
