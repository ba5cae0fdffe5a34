// A note: its text is edited in place. Typing is saved after a pause (debounced); until the
// service has it, the text is also kept in localStorage, so a failed save (shown with a Retry)
// or a reload loses nothing. Someone else's edit replaces the text shown when nothing typed here waits.
import { useEffect, useRef, useState } from 'react';
import type { NodeProps } from '@xyflow/react';
import { draftKey, readDraft, useBoardActions, type BoardFlowNode } from '../board-context';
import { useSaveStatus } from '../save-tracker';
import { NoteIcon } from '../icons';
import { labelOf, NodeFrame, str } from './node-frame';
import { NODE_TEXT_MAX_CHARS as NOTE_MAX_CHARS } from '@board-workspace/limits';

/** A note without a title of its own is titled by its first line. */
export function noteTitle(text: string): string {
  const first = text.trimStart().split('\n', 1)[0]?.trim() ?? '';
  return first ? (first.length > 60 ? `${first.slice(0, 60)}…` : first) : 'Note';
}

/** From here on the note shows how close it is to the limit. */
const NOTE_WARN_CHARS = 90_000;

const count = (n: number) => n.toLocaleString('en-US');

export function NoteNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const actions = useBoardActions();
  const { boardId, canEdit, tracker, saveNoteText, autoFocusId } = actions;
  const saved = str(data.text);
  const [draft, setDraft] = useState(() => readDraft(draftKey(boardId, id)) ?? saved);
  const status = useSaveStatus(tracker);
  const failure = status.failures.find((f) => f.key === `note:${id}`);
  const ref = useRef<HTMLTextAreaElement>(null);

  // The saved text changed (someone else's edit, or this person's save answered): shown, unless
  // something typed here is still waiting to be saved or its save failed (the canvas holds back
  // the service's states of a note while its save waits: canvas/server-sync.ts).
  const lastSaved = useRef(saved);
  const failed = failure !== undefined;
  useEffect(() => {
    if (saved === lastSaved.current) return;
    lastSaved.current = saved;
    if (!tracker.isPending(`note:${id}`) && !failed) setDraft(saved);
  }, [saved, tracker, id, failed]);

  // A draft left over from an earlier visit (a save that never reached the service) is sent again.
  useEffect(() => {
    if (canEdit && draft !== saved) saveNoteText(id, draft);
    // Only on mount: later edits schedule their own saves.
  }, []);

  useEffect(() => {
    if (autoFocusId !== id) return;
    // React Flow keeps a new node hidden until it has been measured, and a hidden element cannot
    // take focus: try on the next frames until it can.
    let frame = 0;
    let tries = 0;
    const attempt = () => {
      ref.current?.focus({ preventScroll: true });
      if (document.activeElement !== ref.current && ++tries < 30) frame = requestAnimationFrame(attempt);
    };
    attempt();
    return () => cancelAnimationFrame(frame);
  }, [autoFocusId, id]);

  const unsaved = draft !== saved;
  return (
    <NodeFrame id={id} kind="note" icon={<NoteIcon />} title={labelOf(data, noteTitle(draft))} selected={selected}>
      <textarea
        ref={ref}
        className="bw-note__text nodrag nowheel"
        aria-label="Note text"
        placeholder={canEdit ? 'Write something…' : ''}
        value={draft}
        readOnly={!canEdit}
        onChange={(event) => {
          setDraft(event.target.value);
          // Over the limit the service would refuse it: nothing is sent until it is short enough.
          if (event.target.value.length <= NOTE_MAX_CHARS) saveNoteText(id, event.target.value);
        }}
      />
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
          <span>Not saved: {failure.message}</span>
          <button type="button" className="bw-link-button nodrag" onClick={failure.retry}>
            Retry
          </button>
        </div>
      ) : (
        unsaved && <div className="bw-note__status">Saving…</div>
      )}
    </NodeFrame>
  );
}
