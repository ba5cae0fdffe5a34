// The board header's "More" menu on a phone: what does not fit in the one row (the toolbar, the
// save status, export, sharing, the default view) opens below it and closes on a click outside or
// Escape (which gives the focus back to More; the arrow keys move between its items), and after an
// item's action (a click on one of its buttons or links), except an item that opens a dialog from
// the menu (`aria-haspopup`: the dialog is drawn inside it) or shows its outcome in its own words
// (`data-keeps-menu`, as "Set as default view" → "Default view set"). The items are the same
// components as in the wide header, only placed here.
import { type MouseEvent, type ReactNode, useRef, useState } from 'react';
import { useDismiss } from '../../../lib/use-dismiss';
import { useMenuKeys } from '../../../lib/use-menu-keys';

export function OverflowMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  // The panel opens towards the side with room: leftwards from a button near the right edge.
  const [towardsRight, setTowardsRight] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useDismiss(ref, open, setOpen);
  const keys = useMenuKeys({ open, setOpen, trigger, list: panel });
  // After the item's own handler: the menu closes once its action is done.
  const closeAfterAction = (event: MouseEvent<HTMLDivElement>) => {
    const target = event.target instanceof Element ? event.target : null;
    // A click in a dialog opened from the menu (drawn inside it) is the dialog's, not an item's.
    if (!target || target.closest('dialog, [role="dialog"]')) return;
    if (target.closest('button:not([aria-haspopup]):not([data-keeps-menu]), a[href]')) setOpen(false);
  };
  return (
    <div className="bw-overflow" ref={ref}>
      <button
        ref={trigger}
        type="button"
        className="bw-button"
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => {
          const box = ref.current?.getBoundingClientRect();
          setTowardsRight(box !== undefined && box.right < 260);
          setOpen(!open);
        }}
      >
        More
      </button>
      {/* Kept mounted (hidden) so a dialog opened from it, such as Share, stays open when it closes. */}
      <div
        className={`bw-overflow__panel${towardsRight ? ' is-towards-right' : ''}`}
        hidden={!open}
        role="group"
        aria-label="More board tools"
        ref={panel}
        onKeyDown={keys.onKeyDown}
        onClick={closeAfterAction}
      >
        {children}
      </div>
    </div>
  );
}
