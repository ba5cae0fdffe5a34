// The owner's items in the board's header: Share (the boards page's share dialog, here too) and
// "Set as default view" (the one write of the board's stored viewport: where others, and this
// person on a new device, first open it; each person's own view is kept in their browser).
import { useState } from 'react';
import { ShareDialog } from '../../boards/share-dialog';
import type { Board } from '../board-api';

export function OwnerTools({ board, onSetDefaultView }: { board: Board; onSetDefaultView(): Promise<void> }) {
  const [sharing, setSharing] = useState(false);
  const [view, setView] = useState<'idle' | 'saving' | 'saved' | 'failed'>('idle');
  return (
    <>
      <button
        type="button"
        className="bw-button"
        title="Open the board at this view for others, and on a new device"
        disabled={view === 'saving'}
        onClick={() => {
          setView('saving');
          onSetDefaultView().then(
            () => setView('saved'),
            () => setView('failed'),
          );
        }}
      >
        {view === 'saving'
          ? 'Saving view…'
          : view === 'saved'
            ? 'Default view set'
            : view === 'failed'
              ? 'View not saved · Retry'
              : 'Set as default view'}
      </button>
      <button type="button" className="bw-button" onClick={() => setSharing(true)}>
        Share
      </button>
      {/* The header follows the new settings through the board's event stream (board.updated). */}
      {sharing && <ShareDialog board={board} onSaved={() => undefined} onClose={() => setSharing(false)} />}
    </>
  );
}
