// The owner's items in the board's header: Share (the boards page's share dialog, here too) and
// "Set as default view" (the one write of the board's stored viewport: where others, and this
// person on a new device, first open it; each person's own view is kept in their browser).
import { useState } from 'react';
import { ShareDialog } from '../../../boards/share-dialog';
import type { Board } from '../../board-api';

const LABELS = {
  idle: 'Set as default view',
  saving: 'Saving view…',
  saved: 'Default view set',
  failed: 'View not saved · Retry',
} as const;

export function OwnerTools({ board, onSetDefaultView }: { board: Board; onSetDefaultView(): Promise<void> }) {
  const [sharing, setSharing] = useState(false);
  const [view, setView] = useState<keyof typeof LABELS>('idle');
  const label = LABELS[view];
  return (
    <>
      {/* An icon in the wide header (its words in the phone's More menu), so the header keeps to one row. */}
      <button
        type="button"
        className={`bw-button bw-default-view${view === 'failed' ? ' is-failed' : ''}`}
        aria-label={label}
        title={`${label}: others, and you on a new device, first open the board at this view`}
        disabled={view === 'saving'}
        onClick={() => {
          setView('saving');
          onSetDefaultView().then(
            () => setView('saved'),
            () => setView('failed'),
          );
        }}
      >
        <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
          <rect x="3" y="5" width="18" height="14" rx="2" />
          <circle cx="12" cy="12" r="2.5" />
        </svg>
        <span className="bw-default-view__label">{label}</span>
      </button>
      <button type="button" className="bw-button" onClick={() => setSharing(true)}>
        Share
      </button>
      {/* The header follows the new settings through the board's event stream (board.updated). */}
      {sharing && <ShareDialog board={board} onSaved={() => undefined} onClose={() => setSharing(false)} />}
    </>
  );
}
