// Whether a CSS media query matches now, following changes (a phone turned, a window resized).
import { useCallback, useSyncExternalStore } from 'react';

/** The board page's and shell's phone layout (matches the stylesheets' 640 px breakpoint). */
export const PHONE_QUERY = '(max-width: 640px)';

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', listener);
      return () => list.removeEventListener('change', listener);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}
