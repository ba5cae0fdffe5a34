// The header's save status, saying truthfully what waits in the outbox (canvas/sync/outbox.ts):
// "All changes saved", "3 changes waiting to be saved", "Offline: your changes are kept on this
// device" (the service cannot be reached: they are sent when it is back, with no click), or why
// the last attempt failed, with a Retry that sends at once (it is retried on its own anyway).
// The e2e tests wait on the status text.
import { type Outbox, useOutboxStatus } from '../sync/outbox';

const changes = (n: number) => `${n} ${n === 1 ? 'change' : 'changes'}`;

export function SaveIndicator({ tracker }: { tracker: Outbox }) {
  const status = useOutboxStatus(tracker);
  if (status.waiting === 0) {
    return (
      <div className="bw-save" role="status">
        All changes saved
      </div>
    );
  }
  const waiting = `${changes(status.waiting)} waiting to be saved`;
  if (status.offline) {
    return (
      <div className="bw-save is-offline" role="status" title={`${waiting}: they are sent when the service can be reached`}>
        Offline: your changes are kept on this device ({status.waiting} waiting)
      </div>
    );
  }
  const failure = status.failures[0];
  if (failure) {
    return (
      <div className="bw-save is-failed" role="alert">
        <span title={failure.message}>
          {waiting}: {failure.message}. Trying again…
        </span>
        <button type="button" className="bw-link-button" onClick={failure.retry}>
          Retry
        </button>
      </div>
    );
  }
  return (
    <div className="bw-save" role="status">
      {waiting}
    </div>
  );
}
