// A modal dialog on the native <dialog> element (focus kept inside, Escape closes, backdrop), and
// the confirmation dialog built on it for irreversible actions (delete a board, revoke a key).
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { messageOf } from '../lib/request';
import { Notice } from './toast';

export function Dialog({ title, onClose, children }: { title: string; onClose(): void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault(); // the parent decides (it may be busy)
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before an irreversible action; shows the action's error in place and lets it be retried. */
export function ConfirmDialog({
  title,
  body,
  confirmLabel,
  busyLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  onConfirm(): Promise<void>;
  onClose(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={() => !busy && onClose()}>
      <div className="dialog-body">{body}</div>
      {error && <Notice tone="error" message={error} />}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="button-danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
