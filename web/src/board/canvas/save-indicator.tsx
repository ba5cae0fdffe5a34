// The header's save status: "Saving…", "All changes saved", or which saves failed with a Retry
// that sends them all again (the e2e tests wait on the status text).
import { type SaveTracker, useSaveStatus } from '../save-tracker';

export function SaveIndicator({ tracker }: { tracker: SaveTracker }) {
  const status = useSaveStatus(tracker);
  if (status.failures.length > 0) {
    const first = status.failures[0]!;
    return (
      <div className="bw-save is-failed" role="alert">
        <span title={status.failures.map((f) => f.message).join('\n')}>
          {status.failures.length === 1 ? `Not saved: ${first.message}` : `${status.failures.length} changes not saved: ${first.message}`}
        </span>
        <button type="button" className="bw-link-button" onClick={() => tracker.retryAll()}>
          Retry
        </button>
      </div>
    );
  }
  return (
    <div className="bw-save" role="status">
      {status.pending > 0 ? 'Saving…' : 'All changes saved'}
    </div>
  );
}
