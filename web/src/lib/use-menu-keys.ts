// The keyboard of a popup menu, after the WAI-ARIA menu button pattern: opening it puts the focus on
// its first item, the arrow keys (and Home, End) move between its items, Escape closes it and gives
// the focus back to the button that opened it, Tab closes it and moves on from that button. A click
// outside closes it too (use-dismiss.ts).
import { type KeyboardEvent, type RefObject, useEffect } from 'react';

const ITEMS = 'button:not([disabled]), a[href], input:not([disabled]), select:not([disabled])';

/** The items of the menu in `list`, in order, that can take the focus. */
function items(list: HTMLElement): HTMLElement[] {
  return [...list.querySelectorAll<HTMLElement>(ITEMS)].filter((el) => !el.closest('[hidden]') && el.getClientRects().length > 0);
}

export function useMenuKeys(options: {
  open: boolean;
  setOpen(open: boolean): void;
  trigger: RefObject<HTMLElement | null>;
  list: RefObject<HTMLElement | null>;
}): { onKeyDown(event: KeyboardEvent<HTMLElement>): void } {
  const { open, setOpen, trigger, list } = options;
  useEffect(() => {
    if (!open || !list.current) return;
    items(list.current)[0]?.focus();
  }, [open, list]);

  return {
    onKeyDown: (event) => {
      const panel = list.current;
      if (!open || !panel) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        setOpen(false);
        trigger.current?.focus();
        return;
      }
      if (event.key === 'Tab') {
        // From its button, so Tab moves on from there (the menu may be drawn in another layer).
        trigger.current?.focus();
        setOpen(false);
        return;
      }
      const all = items(panel);
      if (all.length === 0) return;
      const at = all.indexOf(document.activeElement as HTMLElement);
      const next =
        event.key === 'ArrowDown' || event.key === 'ArrowRight'
          ? (at + 1) % all.length
          : event.key === 'ArrowUp' || event.key === 'ArrowLeft'
            ? (at - 1 + all.length) % all.length
            : event.key === 'Home'
              ? 0
              : event.key === 'End'
                ? all.length - 1
                : undefined;
      if (next === undefined) return;
      // Arrow keys would otherwise also move the selected cards (use-editing-shortcuts.ts).
      event.preventDefault();
      event.stopPropagation();
      all[next]!.focus();
    },
  };
}
