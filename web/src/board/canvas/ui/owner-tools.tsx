// The owner's items in the board's header: Share (the boards page's share dialog, here too),
// "Set as default view" (the one write of the board's stored viewport: where others, and this
// person on a new device, first open it; each person's own view is kept in their browser), and
// "Read automatically" (the board's `auto_read`: what is added and edited is read by itself).
import { useEffect, useState } from 'react';
import { ShareDialog } from '../../../boards/share-dialog';
import { type Board, setAutoRead } from '../../board-api';

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
        data-keeps-menu
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
      <button type="button" className="bw-button" aria-haspopup="dialog" onClick={() => setSharing(true)}>
        Share
      </button>
      <AutoReadSwitch board={board} />
      {/* The header follows the new settings through the board's event stream (board.updated). */}
      {sharing && <ShareDialog board={board} onSaved={() => undefined} onClose={() => setSharing(false)} />}
    </>
  );
}

/** The board's `auto_read`; the page follows the change through the event stream (board.updated). */
function AutoReadSwitch({ board }: { board: Board }) {
  // What was chosen here, shown until the board (its board.updated event) says the same.
  const [wanted, setWanted] = useState<boolean | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const current = board.auto_read !== false;
  useEffect(() => {
    if (wanted === current) setWanted(undefined);
  }, [wanted, current]);
  return (
    <label
      className="bw-check"
      title="Notes, documents, PDFs, links and videos are read as they are added or edited, so search and chat know them"
    >
      <input
        type="checkbox"
        checked={wanted ?? current}
        disabled={busy}
        onChange={(event) => {
          const next = event.target.checked;
          setWanted(next);
          setBusy(true);
          setFailed(undefined);
          setAutoRead(board.id, next).then(
            () => setBusy(false),
            (error: Error) => {
              setBusy(false);
              setWanted(undefined);
              setFailed(error.message);
            },
          );
        }}
      />
      Read automatically
      {failed && (
        <span className="bw-error" role="alert">
          {failed}
        </span>
      )}
    </label>
  );
}
