// A note: its text is edited in place. What is typed shows at once and waits in the outbox
// (canvas/sync/outbox.ts, kept in IndexedDB) until the service has it, so a failed save (retried on
// its own, with a Retry to send at once), a reload or the service being down loses nothing.
// Someone else's text is merged into what is typed here (canvas/sync/text-sync.ts); the caret
// stays by the words it was by when the text under it changes.
import { useContext, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { NodeProps } from '@xyflow/react';
import { useBoardActions, type BoardFlowNode } from '../board-context';
import { mapCaret } from '../canvas/sync/caret';
import { useOutboxStatus } from '../canvas/sync/outbox';
import { findPassage, FocusPassageContext } from '../citations';
import { NoteIcon } from '../icons';
import { labelOf, NodeFrame, str } from './node-frame';
import { NoteMarkdown } from './note-markdown';
import { FrameNode } from './frame-node';
import { isFrameData } from '../canvas/layout/frames';
import './note-markdown.css';
import { NODE_TEXT_MAX_CHARS as NOTE_MAX_CHARS } from '@board-workspace/limits';

/** A note without a title of its own is titled by its first line (without its Markdown marks). */
export function noteTitle(text: string): string {
  const line = text.trimStart().split('\n', 1)[0]?.trim() ?? '';
  const first = line
    .replace(/^(#{1,6}\s+|>\s*|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+(\[[ xX]\]\s+)?)/, '')
    .replace(/(\*\*|__|~~|`)(.+?)\1/g, '$2')
    .trim();
  return first ? (first.length > 60 ? `${first.slice(0, 60)}…` : first) : 'Note';
}

/** From here on the note shows how close it is to the limit. */
const NOTE_WARN_CHARS = 90_000;

const count = (n: number) => n.toLocaleString('en-US');

/** A note, or a frame (a note whose data says `"group": true`: canvas/layout/frames.ts). */
export function NoteNode(props: NodeProps<BoardFlowNode>) {
  return isFrameData(props.data) ? <FrameNode {...props} /> : <NoteCard {...props} />;
}

function NoteCard({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const actions = useBoardActions();
  const { canEdit, tracker, text, saveNoteText, autoFocusId, autoFocusDone } = actions;
  const saved = str(data.text);
  // The text typed here while it waits to be saved (merged with others' typing), else the service's.
  const typed = useSyncExternalStore(text.subscribe, () => text.local(id));
  // Over the limit the service would refuse it: kept here only, nothing sent until it is short enough.
  const [tooLong, setTooLong] = useState<string>();
  const draft = tooLong ?? typed ?? saved;
  const status = useOutboxStatus(tracker);
  const failure = status.failures.find((f) => f.key === `note:${id}`);
  const ref = useRef<HTMLTextAreaElement>(null);

  // Where the caret was in which text: when the text changes under it (not by this person's
  // keystroke), the caret is put back by the same words.
  const caret = useRef<{ text: string; start: number; end: number }>(undefined);
  const rememberCaret = () => {
    const el = ref.current;
    if (el) caret.current = { text: el.value, start: el.selectionStart, end: el.selectionEnd };
  };
  useLayoutEffect(() => {
    const el = ref.current;
    const was = caret.current;
    if (!el || !was || was.text === draft || document.activeElement !== el) return;
    el.setSelectionRange(mapCaret(was.text, draft, was.start), mapCaret(was.text, draft, was.end));
    caret.current = { text: draft, start: el.selectionStart, end: el.selectionEnd };
  }, [draft]);

  const saveText = useRef(saveNoteText);
  saveText.current = saveNoteText;
  const focusDone = useRef(autoFocusDone);
  focusDone.current = autoFocusDone;
  useEffect(() => {
    if (autoFocusId !== id) return;
    // React Flow keeps a new node hidden until it has been measured, and a hidden element cannot
    // take focus: try on the next frames until it can. What the person types meanwhile (the note
    // is made at once, so they start typing at once) is kept and put into the note the moment it
    // has the focus (whoever gave it), before any key typed into it, so the first keystrokes are
    // neither lost (nor taken as the canvas's Delete key) nor put after the words typed next.
    let frame = 0;
    let tries = 0;
    let early = '';
    const keep = (event: KeyboardEvent) => {
      const el = ref.current;
      if (el && document.activeElement === el) return;
      if (event.target instanceof Element && event.target.closest('input, textarea, select, [contenteditable="true"]')) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key.length === 1) early += event.key;
      else if (event.key === 'Enter') early += '\n';
      else if (event.key === 'Backspace') early = early.slice(0, -1);
      else return;
      event.preventDefault();
      event.stopPropagation();
    };
    const putEarly = (el: HTMLTextAreaElement) => {
      stop();
      if (!early) return;
      const value = el.value + early;
      early = '';
      // Into the field at once, the caret after it: the next key may come before React draws it.
      el.value = value;
      el.setSelectionRange(value.length, value.length);
      caret.current = { text: value, start: value.length, end: value.length };
      saveText.current(id, value);
    };
    const focused = (event: FocusEvent) => {
      if (ref.current && event.target === ref.current) putEarly(ref.current);
    };
    const stop = () => {
      document.removeEventListener('keydown', keep, true);
      document.removeEventListener('focusin', focused, true);
    };
    document.addEventListener('keydown', keep, true);
    document.addEventListener('focusin', focused, true);
    const attempt = () => {
      const el = ref.current;
      el?.focus({ preventScroll: true });
      if (el && document.activeElement === el) {
        putEarly(el);
        focusDone.current(id);
        return;
      }
      if (++tries < 60) frame = requestAnimationFrame(attempt);
      else {
        stop();
        focusDone.current(id);
      }
    };
    attempt();
    return () => {
      cancelAnimationFrame(frame);
      stop();
    };
    // Only a new note to focus restarts this (saveText is read when the focus is taken).
  }, [autoFocusId, id]);

  // A chat citation of this note selects the cited passage in its text (found again if the text changed).
  const passage = useContext(FocusPassageContext);
  useEffect(() => {
    const el = ref.current;
    if (!el || passage?.nodeId !== id) return;
    const range = findPassage(el.value, passage);
    if (!range) return;
    el.focus({ preventScroll: true });
    el.setSelectionRange(range.start, range.end);
    // Scrolls the text to the passage: the share of lines before it, of the text's height.
    const lines = el.value.split('\n').length;
    const before = el.value.slice(0, range.start).split('\n').length - 1;
    el.scrollTop = Math.max(0, (before / lines) * el.scrollHeight - el.clientHeight / 3);
  }, [passage, id]);

  // A press anywhere outside the note ends its editing (the canvas's own presses keep the focus
  // where it was), so its Markdown is drawn again.
  // Listened to only while this note has the focus.
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) return;
    const leave = (event: PointerEvent) => {
      const el = ref.current;
      if (el && document.activeElement === el && event.target instanceof Node && !el.contains(event.target)) el.blur();
    };
    document.addEventListener('pointerdown', leave, true);
    return () => document.removeEventListener('pointerdown', leave, true);
  }, [editing]);

  const unsaved = draft !== saved;
  // Not being edited, the text is part of the card: dragging it moves the card and the wheel pans
  // the canvas. Being edited, it selects text, and the wheel scrolls it when it is longer than its box.
  const scrolls = editing && !!ref.current && ref.current.scrollHeight > ref.current.clientHeight;
  return (
    <NodeFrame id={id} kind="note" icon={<NoteIcon />} title={labelOf(data, noteTitle(draft))} selected={selected}>
      <div className={`bw-note__edit${draft.trim() ? ' has-markdown' : ''}`}>
        <textarea
          ref={ref}
          className={`bw-note__text${editing ? ' nodrag' : ''}${scrolls ? ' nowheel' : ''}`}
          aria-label="Note text"
          placeholder={canEdit ? 'Write something…' : ''}
          value={draft}
          readOnly={!canEdit}
          onSelect={rememberCaret}
          onFocus={() => setEditing(true)}
          onBlur={() => setEditing(false)}
          onKeyDown={(event) => {
            // Escape ends the editing, as in other whiteboards.
            if (event.key === 'Escape') event.currentTarget.blur();
          }}
          onChange={(event) => {
            const value = event.target.value;
            caret.current = { text: value, start: event.target.selectionStart, end: event.target.selectionEnd };
            if (value.length > NOTE_MAX_CHARS) {
              setTooLong(value);
              return;
            }
            setTooLong(undefined);
            saveNoteText(id, value);
          }}
        />
        {draft.trim() && <NoteMarkdown text={draft} />}
      </div>
      {draft.length > NOTE_MAX_CHARS ? (
        <div className="bw-note__status is-error" role="alert">
          Too long to save: {count(draft.length)} characters, a note holds at most {count(NOTE_MAX_CHARS)}. Remove{' '}
          {count(draft.length - NOTE_MAX_CHARS)} to save it.
        </div>
      ) : (
        draft.length >= NOTE_WARN_CHARS && (
          <div className="bw-note__status is-warning" role="status">
            {count(draft.length)} / {count(NOTE_MAX_CHARS)} characters
          </div>
        )
      )}
      {draft.length > NOTE_MAX_CHARS ? null : failure ? (
        <div className="bw-note__status is-error" role="alert">
          <span>Not saved: {failure.message}. Trying again…</span>
          <button type="button" className="bw-link-button nodrag" onClick={failure.retry}>
            Retry
          </button>
        </div>
      ) : (
        unsaved && <div className="bw-note__status">{status.offline ? 'Kept on this device until the service is back' : 'Saving…'}</div>
      )}
    </NodeFrame>
  );
}
