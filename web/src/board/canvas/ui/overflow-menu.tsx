// The board header's "More" menu on a phone: what does not fit in the one row (the toolbar, the
// save status, export, sharing, the default view) opens below it and closes on a click outside or
// Escape. The items are the same components as in the wide header, only placed here.
import { type ReactNode, useRef, useState } from 'react';
import { useDismiss } from '../../../lib/use-dismiss';

export function OverflowMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  // The panel opens towards the side with room: leftwards from a button near the right edge.
  const [towardsRight, setTowardsRight] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(ref, open, setOpen);
  return (
    <div className="bw-overflow" ref={ref}>
      <button
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
      >
        {children}
      </div>
    </div>
  );
}
