// The canvas's notices: short messages about something that did not happen (a failed delete, a
// file that cannot be placed, an edge the service refused), stacked in a corner until dismissed.
// Only the last four are kept, so a burst of failures does not bury the board.
import { useCallback, useRef, useState } from 'react';
import { copyText } from '../../../lib/clipboard';

export interface Notice {
  id: number;
  message: string;
  /** Text the person may copy from the notice (their text kept aside when it could not be saved or merged). */
  copy?: string;
}

export interface Notices {
  list: Notice[];
  notify(message: string, options?: { copy?: string }): void;
  dismiss(id: number): void;
}

export function useNotices(): Notices {
  const [list, setList] = useState<Notice[]>([]);
  const counter = useRef(0);
  const notify = useCallback((message: string, options?: { copy?: string }) => {
    const id = ++counter.current;
    setList((all) => [...all.slice(-3), { id, message, ...(options?.copy !== undefined ? { copy: options.copy } : {}) }]);
  }, []);
  const dismiss = useCallback((id: number) => setList((all) => all.filter((n) => n.id !== id)), []);
  return { list, notify, dismiss };
}

export function NoticeList({ notices, onDismiss }: { notices: Notice[]; onDismiss(id: number): void }) {
  if (notices.length === 0) return null;
  return (
    <div className="bw-notices">
      {notices.map((notice) => (
        <div key={notice.id} className="bw-notice" role="alert">
          <span>{notice.message}</span>
          {notice.copy !== undefined && <CopyButton text={notice.copy} />}
          <button type="button" className="bw-icon-button" aria-label="Dismiss" onClick={() => onDismiss(notice.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" className="bw-link-button" onClick={() => void copyText(text).then(setCopied)}>
      {copied ? 'Copied' : 'Copy my text'}
    </button>
  );
}
