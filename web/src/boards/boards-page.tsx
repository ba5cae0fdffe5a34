// The boards page: the caller's boards (newest first, "Load more" while the API has more pages),
// create, rename in place, duplicate, share (private / public view / public edit), copy link,
// delete after a confirmation, import a JSON Canvas file as a new board (import-board.tsx).
// Failed saves keep what was typed and offer a retry.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api } from '../api';
import { copyText } from '../lib/clipboard';
import { boardLink, formatDateTime } from '../lib/format';
import { messageOf, unwrap } from '../lib/request';
import { ConfirmDialog } from '../ui/dialog';
import { Notice, useToast } from '../ui/toast';
import { ImportBoard } from './import-board';
import { useDocumentTitle } from '../lib/title';
import { ShareDialog } from './share-dialog';
import { SharedWithMe } from './shared-with-me';
import { BOARD_NAME_MAX_CHARS } from '@board-workspace/limits';

type Access = 'view' | 'edit';
export interface BoardItem {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  is_public: boolean;
  /** Known once the board has been fetched or updated; list items do not carry it. */
  public_access_level?: Access | null;
}

const PAGE_SIZE = 20;

export function BoardsPage() {
  useDocumentTitle('Boards');
  const toast = useToast();
  const [boards, setBoards] = useState<BoardItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string>();
  const [sharing, setSharing] = useState<BoardItem>();
  const [deleting, setDeleting] = useState<BoardItem>();

  const load = useCallback(async (after?: string) => {
    setLoading(true);
    setLoadError(undefined);
    try {
      const page = await unwrap(
        api.GET('/v1/boards', {
          params: { query: { access: 'owned', limit: PAGE_SIZE, order: 'desc', ...(after ? { cursor: after } : {}) } },
        }),
        'Could not load your boards',
      );
      setBoards((previous) => {
        const known = new Set(after ? previous.map((board) => board.id) : []);
        return [...(after ? previous : []), ...page.data.filter((board) => !known.has(board.id))];
      });
      setCursor(page.has_more ? page.cursor : null);
    } catch (error) {
      setLoadError(messageOf(error));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => void load(), [load]);

  const replace = (board: BoardItem) => setBoards((all) => all.map((item) => (item.id === board.id ? { ...item, ...board } : item)));
  const added = (board: BoardItem) => setBoards((all) => [board, ...all.filter((item) => item.id !== board.id)]);

  const duplicate = async (board: BoardItem) => {
    try {
      const copy = await unwrap(
        api.POST('/v1/boards/{id}/duplicate', { params: { path: { id: board.id } } }),
        'Could not duplicate the board',
      );
      added(copy.data);
      toast.success(`Duplicated as “${copy.data.name}”`);
    } catch (error) {
      toast.error(messageOf(error), () => void duplicate(board));
    }
  };

  const copyLink = async (board: BoardItem) => {
    if (await copyText(boardLink(board.id))) toast.success('Link copied');
    else toast.error('Could not copy the link; open Share to select it.');
  };

  return (
    <main className="page">
      <div className="page-head">
        <h1>Boards</h1>
        <div className="page-actions">
          <CreateBoard onCreated={added} />
          <ImportBoard />
        </div>
      </div>
      {loadError && <Notice tone="error" message={loadError} action={{ label: 'Retry', run: () => void load(cursor ?? undefined) }} />}
      {!loading && !loadError && boards.length === 0 && <p className="empty">No boards yet. Name one above to create it.</p>}
      <ul className="board-list" aria-label="Your boards">
        {boards.map((board) => (
          <BoardRow
            key={board.id}
            board={board}
            onRenamed={replace}
            onDuplicate={() => duplicate(board)}
            onShare={() => setSharing(board)}
            onCopyLink={() => void copyLink(board)}
            onDelete={() => setDeleting(board)}
          />
        ))}
      </ul>
      {loading && (
        <p className="muted" role="status">
          Loading…
        </p>
      )}
      {cursor && !loading && (
        <button type="button" className="load-more" onClick={() => void load(cursor)}>
          Load more
        </button>
      )}
      <SharedWithMe />
      {sharing && <ShareDialog board={sharing} onSaved={replace} onClose={() => setSharing(undefined)} />}
      {deleting && (
        <ConfirmDialog
          title="Delete this board?"
          body={<p>“{deleting.name}” and all its notes, files, chats and search data will be deleted for good. This cannot be undone.</p>}
          confirmLabel="Delete board"
          busyLabel="Deleting…"
          onConfirm={async () => {
            await unwrap(api.DELETE('/v1/boards/{id}', { params: { path: { id: deleting.id } } }), 'Could not delete the board');
            setBoards((all) => all.filter((item) => item.id !== deleting.id));
            toast.success(`Deleted “${deleting.name}”`);
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </main>
  );
}

function CreateBoard({ onCreated }: { onCreated(board: BoardItem): void }) {
  const toast = useToast();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const create = async (event?: FormEvent) => {
    event?.preventDefault();
    const draft = name.trim();
    if (!draft || busy) return;
    setBusy(true);
    try {
      const created = await unwrap(api.POST('/v1/boards', { body: { name: draft } }), 'Could not create the board');
      onCreated(created.data);
      setName('');
    } catch (error) {
      // The name stays in the field; Retry sends it again.
      toast.error(messageOf(error), () => void create());
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="inline-form" onSubmit={(event) => void create(event)}>
      <label className="visually-hidden" htmlFor="new-board-name">
        New board name
      </label>
      <input
        id="new-board-name"
        placeholder="New board name"
        value={name}
        maxLength={BOARD_NAME_MAX_CHARS}
        onChange={(event) => setName(event.target.value)}
      />
      <button type="submit" className="button-primary" disabled={busy || !name.trim()}>
        {busy ? 'Creating…' : 'Create board'}
      </button>
    </form>
  );
}

function BoardRow({
  board,
  onRenamed,
  onDuplicate,
  onShare,
  onCopyLink,
  onDelete,
}: {
  board: BoardItem;
  onRenamed(board: BoardItem): void;
  onDuplicate(): Promise<void>;
  onShare(): void;
  onCopyLink(): void;
  onDelete(): void;
}) {
  const [draft, setDraft] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [duplicating, setDuplicating] = useState(false);

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    if (draft === undefined) return;
    const name = draft.trim();
    if (name === board.name) return setDraft(undefined);
    if (!name) return setError('A board needs a name.');
    setSaving(true);
    setError(undefined);
    try {
      const updated = await unwrap(
        api.PATCH('/v1/boards/{id}', { params: { path: { id: board.id } }, body: { name } }),
        'Could not rename the board',
      );
      onRenamed(updated.data);
      setDraft(undefined);
    } catch (failure) {
      setError(messageOf(failure)); // stay in edit mode with the draft
    } finally {
      setSaving(false);
    }
  };

  const access = board.is_public
    ? board.public_access_level === 'edit'
      ? 'Public · can edit'
      : board.public_access_level === 'view'
        ? 'Public · view only'
        : 'Public'
    : 'Private';
  return (
    <li className="board-row">
      <div className="board-main">
        {draft === undefined ? (
          <Link href={`/boards/${board.id}`} className="board-name">
            {board.name}
          </Link>
        ) : (
          <form className="rename-form" onSubmit={(event) => void save(event)}>
            <input
              aria-label="Board name"
              value={draft}
              maxLength={BOARD_NAME_MAX_CHARS}
              autoFocus
              onChange={(event) => setDraft(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape') {
                  setDraft(undefined);
                  setError(undefined);
                }
              }}
            />
            <button type="submit" className="button-primary button-small" disabled={saving}>
              {saving ? 'Saving…' : error ? 'Retry' : 'Save'}
            </button>
            <button
              type="button"
              className="button-small"
              disabled={saving}
              onClick={() => {
                setDraft(undefined);
                setError(undefined);
              }}
            >
              Cancel
            </button>
          </form>
        )}
        <div className="board-meta">
          <span className={board.is_public ? 'badge badge-public' : 'badge'}>{access}</span>
          <span className="muted">Updated {formatDateTime(board.updated_at)}</span>
        </div>
        {error && <Notice tone="error" message={error} />}
      </div>
      <div className="row-actions">
        <button type="button" className="button-small" onClick={() => setDraft(board.name)} disabled={draft !== undefined}>
          Rename
        </button>
        <button
          type="button"
          className="button-small"
          disabled={duplicating}
          onClick={() => {
            setDuplicating(true);
            void onDuplicate().finally(() => setDuplicating(false));
          }}
        >
          {duplicating ? 'Duplicating…' : 'Duplicate'}
        </button>
        <button type="button" className="button-small" onClick={onShare}>
          Share
        </button>
        <button type="button" className="button-small" onClick={onCopyLink}>
          Copy link
        </button>
        <button type="button" className="button-small button-danger-quiet" onClick={onDelete}>
          Delete
        </button>
      </div>
    </li>
  );
}
