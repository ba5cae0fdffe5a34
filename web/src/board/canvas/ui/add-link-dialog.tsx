// The toolbar's "Add link" dialog: asks for a web address, says plainly what is wrong with one it
// cannot use (before asking the service), and adds it at the centre of the view as a url node, or
// a video node for YouTube and Vimeo addresses. The service's refusal is shown in the dialog.
import { type FormEvent, useId, useState } from 'react';
import { messageOf } from '../../../lib/request';
import { Dialog } from '../../../ui/dialog';
import { checkLink, linkNodeType } from '../../nodes/web-links';

/** "example.com/page" is meant as https://example.com/page. */
function withScheme(text: string): string {
  const trimmed = text.trim();
  return /^[\w-]+(\.[\w-]+)+(?::\d+)?(\/|$|\?|#)/i.test(trimmed) ? `https://${trimmed}` : trimmed;
}

export function AddLinkDialog({ onAdd, onClose }: { onAdd(url: string): Promise<void>; onClose(): void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const inputId = useId();
  const errorId = useId();
  const check = checkLink(withScheme(value));
  const kind = check.ok ? linkNodeType(check.url) : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!check.ok) {
      setError(check.error);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onAdd(check.url);
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Add a link" onClose={() => !busy && onClose()}>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor={inputId}>Web address</label>
          <input
            id={inputId}
            type="text"
            inputMode="url"
            autoComplete="url"
            placeholder="https://example.com/page"
            value={value}
            autoFocus
            aria-invalid={error !== undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(event) => {
              setValue(event.target.value);
              setError(undefined);
            }}
          />
          <small className="muted">
            {kind === 'video' ? 'A YouTube or Vimeo video: it will play in its card.' : 'A page: its card opens it in a new tab.'}
          </small>
        </div>
        {error && (
          <p className="bw-form-error" id={errorId} role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add link'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
