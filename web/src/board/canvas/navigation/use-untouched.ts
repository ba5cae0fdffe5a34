// Whether the person has done anything on the page since the board opened (a press, the wheel, a
// key). Until then the view is the page's to choose: a board that opens fitted is fitted again as the
// rest of its cards arrive (sync/use-arrivals.ts, board-canvas.tsx), and those fits are not kept as
// the person's view (ui/use-viewport.ts). From their first action on, the view is theirs.
import { useCallback, useEffect, useRef } from 'react';

const ACTIONS = ['pointerdown', 'wheel', 'keydown'] as const;

export function useUntouched(): () => boolean {
  const untouched = useRef(true);
  useEffect(() => {
    if (!untouched.current) return;
    const acted = () => {
      untouched.current = false;
      remove();
    };
    const remove = () => {
      for (const type of ACTIONS) window.removeEventListener(type, acted, { capture: true });
    };
    for (const type of ACTIONS) window.addEventListener(type, acted, { capture: true, passive: true });
    return remove;
  }, []);
  return useCallback(() => untouched.current, []);
}
