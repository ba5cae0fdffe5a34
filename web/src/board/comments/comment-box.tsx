// The box a comment is written in (a new thread, a reply, an edit): the text is kept in this
// browser as it is typed (IndexedDB, so a reload or a closed panel does not lose it), an @ opens
// a picker of the people who may be mentioned (the WAI-ARIA combobox pattern: the arrow keys move,
// Enter or Tab picks, Escape closes), and a send that fails keeps the text in the box with "Not
// sent" and Retry; a send that failed for want of a connection is tried again by itself when the
// board's stream is back (`retrySignal`) or the browser is online. Each comment is sent with one
// Idempotency-Key for all its tries, so a retry never makes it twice.
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { COMMENT_MAX_CHARS } from '@board-workspace/limits';
import { readMeta, writeMeta } from '../canvas/sync/store';
import { ApiError } from '../../lib/request';
import type { Mentionable } from './comments-api';

const MENTION_AT = /(^|\s)@([^\s@]{0,60})$/;

interface Draft {
  text: string;
  mentions: string[];
  key?: string;
}

export interface CommentBoxProps {
  /** Where the draft is kept: one per board and place (a thread's reply, a card's new thread…). */
  draftKey: string;
  label: string;
  submitLabel: string;
  candidates: Mentionable[];
  /** Sends the text; rejects with an ApiError when it could not be sent. */
  onSend(content: string, mentions: string[], idempotencyKey: string): Promise<unknown>;
  /** Changes when the service may be reachable again: a failed send is tried again. */
  retrySignal: number;
  initial?: string;
  initialMentions?: string[];
  autoFocus?: boolean;
  onCancel?(): void;
}

export function CommentBox(props: CommentBoxProps) {
  const { draftKey, label, submitLabel, candidates, onSend, retrySignal, initial = '', initialMentions, autoFocus, onCancel } = props;
  const [text, setText] = useState(initial);
  const [mentions, setMentions] = useState<string[]>(initialMentions ?? []);
  const [status, setStatus] = useState<'idle' | 'sending' | 'failed'>('idle');
  const [failure, setFailure] = useState<{ message: string; retryable: boolean }>();
  const [picker, setPicker] = useState<{ start: number; query: string; active: number }>();
  const key = useRef<string>(undefined);
  const box = useRef<HTMLTextAreaElement>(null);
  const restored = useRef(false);
  const listId = useId();
  const storeKey = `comment-draft:${draftKey}`;

  // A draft kept from before (a reload, or the panel closed with text in it) comes back.
  useEffect(() => {
    let live = true;
    void readMeta<Draft & { failed?: string }>(storeKey).then((draft) => {
      if (!live) return;
      restored.current = true;
      if (!draft || draft.text === '') return;
      setText(draft.text);
      setMentions(draft.mentions);
      key.current = draft.key;
      if (draft.failed) {
        setStatus('failed');
        setFailure({ message: draft.failed, retryable: true });
      }
    });
    return () => {
      live = false;
    };
  }, [storeKey]);

  const keep = (next: Draft, failed?: string) => {
    if (!restored.current) return;
    void writeMeta(storeKey, next.text === '' || next.text === initial ? undefined : { ...next, failed });
  };

  const options = useMemo(() => {
    if (!picker) return [];
    const q = picker.query.toLowerCase();
    return candidates.filter((c) => c.label.toLowerCase().includes(q) || c.detail?.toLowerCase().includes(q)).slice(0, 8);
  }, [picker, candidates]);

  const edit = (value: string, caret: number) => {
    setText(value);
    // Another text is another comment: a new key for its sends.
    key.current = undefined;
    if (status === 'failed') setStatus('idle');
    setFailure(undefined);
    keep({ text: value, mentions });
    const match = MENTION_AT.exec(value.slice(0, caret));
    setPicker(match ? { start: caret - match[2]!.length - 1, query: match[2]!, active: 0 } : undefined);
  };

  const choose = (person: Mentionable) => {
    if (!picker) return;
    const caret = box.current?.selectionStart ?? text.length;
    const inserted = `@${person.label} `;
    const value = text.slice(0, picker.start) + inserted + text.slice(caret);
    const nextMentions = mentions.includes(person.id) ? mentions : [...mentions, person.id];
    setText(value);
    setMentions(nextMentions);
    setPicker(undefined);
    key.current = undefined;
    keep({ text: value, mentions: nextMentions });
    const at = picker.start + inserted.length;
    requestAnimationFrame(() => {
      box.current?.focus();
      box.current?.setSelectionRange(at, at);
    });
  };

  const send = async () => {
    const content = text.trim();
    if (content === '' || status === 'sending') return;
    // Only the people still named in the text are mentioned.
    const named = mentions.filter((id) => {
      const person = candidates.find((c) => c.id === id);
      return !person || content.includes(`@${person.label}`);
    });
    key.current ??= crypto.randomUUID();
    const draft = { text, mentions, key: key.current };
    keep(draft, 'Not sent');
    setStatus('sending');
    setFailure(undefined);
    try {
      await onSend(content, named, key.current);
      key.current = undefined;
      setText(initial === '' ? '' : content);
      setMentions([]);
      setStatus('idle');
      void writeMeta(storeKey, undefined);
    } catch (error) {
      const retryable = error instanceof ApiError ? error.retryable : true;
      setStatus('failed');
      setFailure({ message: (error as Error).message, retryable });
      keep(draft, (error as Error).message);
    }
  };

  // Sent again by itself when the service may be back (only what failed for want of it).
  const latestSend = useRef(send);
  latestSend.current = send;
  const retryable = status === 'failed' && failure?.retryable === true;
  useEffect(() => {
    if (!retryable) return;
    const again = () => void latestSend.current();
    window.addEventListener('online', again);
    return () => window.removeEventListener('online', again);
  }, [retryable]);
  const firstSignal = useRef(retrySignal);
  useEffect(() => {
    if (retrySignal !== firstSignal.current && retryable) void latestSend.current();
  }, [retrySignal, retryable]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // The board's own keys (Delete, the shortcuts) are not for the text.
    event.stopPropagation();
    if (picker && options.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setPicker({ ...picker, active: (picker.active + step + options.length) % options.length });
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        choose(options[picker.active] ?? options[0]!);
        return;
      }
    }
    if (picker && event.key === 'Escape') {
      event.preventDefault();
      setPicker(undefined);
      return;
    }
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    } else if (event.key === 'Escape' && onCancel) onCancel();
  };

  const open = picker !== undefined && options.length > 0;
  return (
    <form
      className="bw-comment-box"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <div className="bw-comment-box__field">
        <textarea
          ref={box}
          aria-label={label}
          placeholder={`${label}… (@ to mention)`}
          value={text}
          maxLength={COMMENT_MAX_CHARS}
          rows={2}
          autoFocus={autoFocus}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? `${listId}-${picker.active}` : undefined}
          onChange={(event) => edit(event.target.value, event.target.selectionStart)}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setPicker(undefined), 150)}
        />
        <div id={listId} role="listbox" aria-label="People to mention" className="bw-mention-list" hidden={!open}>
          {open &&
            options.map((person, index) => (
              <div
                key={person.id}
                tabIndex={-1}
                id={`${listId}-${index}`}
                role="option"
                aria-selected={index === picker.active}
                className={index === picker.active ? 'is-active' : undefined}
                onMouseDown={(event) => {
                  event.preventDefault();
                  choose(person);
                }}
              >
                {person.label}
                {person.detail && person.detail !== person.label && <span className="bw-muted"> {person.detail}</span>}
              </div>
            ))}
        </div>
      </div>
      {status === 'failed' && failure && (
        <p className="bw-comment-box__failed" role="alert">
          <strong>Not sent.</strong> {failure.message}
        </p>
      )}
      <div className="bw-comment-box__actions">
        <button
          type="button"
          className="bw-button is-small"
          aria-label="Mention someone"
          title="Mention someone"
          onClick={() => {
            const el = box.current;
            const caret = el?.selectionStart ?? text.length;
            const before = text.slice(0, caret);
            const spacer = before === '' || /\s$/.test(before) ? '' : ' ';
            const value = `${before}${spacer}@${text.slice(caret)}`;
            const at = caret + spacer.length + 1;
            setText(value);
            setPicker({ start: at - 1, query: '', active: 0 });
            requestAnimationFrame(() => {
              el?.focus();
              el?.setSelectionRange(at, at);
            });
          }}
        >
          @
        </button>
        <span className="bw-comment-box__spacer" />
        {onCancel && (
          <button type="button" className="bw-button is-small" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="bw-button is-primary is-small" disabled={text.trim() === '' || status === 'sending'}>
          {status === 'sending' ? 'Sending…' : status === 'failed' ? 'Retry' : submitLabel}
        </button>
      </div>
    </form>
  );
}
