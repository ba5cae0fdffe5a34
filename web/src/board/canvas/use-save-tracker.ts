// The canvas's save tracker (see save-tracker.ts) for as long as the canvas is shown. Leaving the
// page with a save still waiting asks the browser to confirm; leaving the board within the app
// (unmount) sends the waiting saves at once, so nothing typed or moved is dropped.
import { useEffect, useMemo } from 'react';
import { SaveTracker } from '../save-tracker';

export function useSaveTracker(): SaveTracker {
  const tracker = useMemo(() => new SaveTracker(), []);
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (tracker.hasPending()) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      window.removeEventListener('beforeunload', warn);
      tracker.flushAll();
    };
  }, [tracker]);
  return tracker;
}
