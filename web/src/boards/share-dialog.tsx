// Sharing settings of one board: private, public view-only, or public with editing (the
// contract's is_public + public_access_level), plus the board's link with a copy button, and the
// people it is shared with and its share links (members-panel.tsx).
import { useEffect, useState } from 'react';
import { api } from '../api';
import { copyText } from '../lib/clipboard';
import { boardLink } from '../lib/format';
import { messageOf, unwrap } from '../lib/request';
import { Dialog } from '../ui/dialog';
import { Notice, useToast } from '../ui/toast';
import type { BoardItem } from './boards-page';
import { MembersPanel } from './members-panel';

type Choice = 'private' | 'view' | 'edit';

const CHOICES: { value: Choice; label: string; hint: string }[] = [
  { value: 'private', label: 'Private', hint: 'Only you can open it.' },
  { value: 'view', label: 'Public, view only', hint: 'Anyone signed in who has the link can see it.' },
  { value: 'edit', label: 'Public, can edit', hint: 'Anyone signed in who has the link can change it.' },
];

function choiceOf(board: Pick<BoardItem, 'is_public' | 'public_access_level'>): Choice {
  return board.is_public ? (board.public_access_level === 'edit' ? 'edit' : 'view') : 'private';
}

export function ShareDialog({ board, onSaved, onClose }: { board: BoardItem; onSaved(board: BoardItem): void; onClose(): void }) {
  const toast = useToast();
  const [choice, setChoice] = useState<Choice>(choiceOf(board));
  const [known, setKnown] = useState(board.public_access_level !== undefined || !board.is_public);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  const link = boardLink(board.id);

  // List items say only whether a board is public; the level comes with the board itself.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is Try again's: it loads again.
  useEffect(() => {
    if (known) return;
    let live = true;
    unwrap(api.GET('/v1/boards/{id}', { params: { path: { id: board.id } } }), 'Could not load the sharing settings').then(
      (full) => {
        if (!live) return;
        setChoice(choiceOf(full.data));
        setKnown(true);
      },
      (failure: unknown) => live && setError(messageOf(failure)),
    );
    return () => {
      live = false;
    };
  }, [board.id, known, attempt]);

  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      const body = choice === 'private' ? { is_public: false } : { is_public: true, public_access_level: choice };
      const updated = await unwrap(
        api.PATCH('/v1/boards/{id}', { params: { path: { id: board.id } }, body }),
        'Could not save the sharing settings',
      );
      onSaved(updated.data);
      toast.success(choice === 'private' ? 'The board is private' : 'The board is public');
      onClose();
    } catch (failure) {
      setError(messageOf(failure)); // the choice stays selected; Save again retries
      setSaving(false);
    }
  };

  return (
    <Dialog title={`Share “${board.name}”`} onClose={() => !saving && onClose()}>
      <fieldset className="choices" disabled={!known || saving}>
        <legend className="visually-hidden">Who can open this board</legend>
        {CHOICES.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="radio"
              name="access"
              value={option.value}
              checked={choice === option.value}
              onChange={() => setChoice(option.value)}
            />
            <span>
              <strong>{option.label}</strong>
              <small className="muted">{option.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="share-link">Link</label>
        <div className="inline-form">
          <input id="share-link" readOnly value={link} onFocus={(event) => event.target.select()} />
          <button
            type="button"
            onClick={() =>
              void copyText(link).then((ok) =>
                ok ? toast.success('Link copied') : toast.error('Could not copy; select the link and copy it.'),
              )
            }
          >
            Copy
          </button>
        </div>
      </div>
      <MembersPanel boardId={board.id} />
      {error && (
        <Notice
          tone="error"
          message={error}
          action={
            known
              ? undefined
              : {
                  label: 'Retry',
                  run: () => {
                    setError(undefined);
                    setAttempt((n) => n + 1);
                  },
                }
          }
        />
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} disabled={saving}>
          Cancel
        </button>
        <button type="button" className="button-primary" onClick={() => void save()} disabled={!known || saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </Dialog>
  );
}
