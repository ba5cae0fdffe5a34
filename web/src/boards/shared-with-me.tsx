// "Shared with me": the boards others shared with this person as a member, with their role, from
// the API (GET /v1/boards?access=shared), which they may leave; and the public boards of others
// this person has opened without being a member, remembered in this browser (localStorage, per
// signed-in person), since the service keeps no record of who opened a public board; each of those
// can be removed from the list.
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api } from '../api';
import { sessionState } from '../auth/session';
import { formatDateTime } from '../lib/format';
import { messageOf, unwrap } from '../lib/request';
import { Notice, useToast } from '../ui/toast';

export interface SharedBoard {
  id: string;
  name: string;
  access: 'view' | 'edit';
  opened_at: string;
}

/** At most this many are kept, most recently opened first. */
const MAX_SHARED = 100;

function storageKey(): string {
  const session = sessionState();
  return `bw-shared-with-me:${session.status === 'signed-in' ? session.user.id : 'anonymous'}`;
}

export function readSharedBoards(): SharedBoard[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(storageKey()) ?? '[]');
    if (!Array.isArray(value)) return [];
    return value.filter(
      (item): item is SharedBoard => typeof item?.id === 'string' && typeof item.name === 'string' && typeof item.opened_at === 'string',
    );
  } catch {
    return [];
  }
}

function writeSharedBoards(list: SharedBoard[]): void {
  try {
    localStorage.setItem(storageKey(), JSON.stringify(list.slice(0, MAX_SHARED)));
  } catch {
    // Storage full or disabled: the list is simply not kept.
  }
}

/** Remembers a public board of someone else that was just opened (first in the list). */
export function rememberSharedBoard(board: { id: string; name: string; public_access_level?: string | null }): void {
  const entry: SharedBoard = {
    id: board.id,
    name: board.name,
    access: board.public_access_level === 'edit' ? 'edit' : 'view',
    opened_at: new Date().toISOString(),
  };
  writeSharedBoards([entry, ...readSharedBoards().filter((item) => item.id !== board.id)]);
}

/** Forgets a board (removed from the list, or no longer readable). */
export function forgetSharedBoard(id: string): void {
  writeSharedBoards(readSharedBoards().filter((item) => item.id !== id));
}

interface MemberBoard {
  id: string;
  name: string;
  role: string;
  updated_at: string;
}

const ROLE_LABELS: Record<string, string> = { viewer: 'Can view', commenter: 'Can comment', editor: 'Can edit' };

export function SharedWithMe() {
  const toast = useToast();
  const [members, setMembers] = useState<MemberBoard[]>([]);
  const [error, setError] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  const [local, setBoards] = useState(readSharedBoards);
  const session = sessionState();
  const me = session.status === 'signed-in' ? session.user.id : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is Retry's: it loads again.
  useEffect(() => {
    let live = true;
    unwrap(
      api.GET('/v1/boards', { params: { query: { access: 'shared', limit: 100 } } }),
      'Could not load the boards shared with you',
    ).then(
      (page) => live && setMembers(page.data),
      (failure: unknown) => live && setError(messageOf(failure)),
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  const leave = async (board: MemberBoard) => {
    if (!me) return;
    try {
      await unwrap(
        api.DELETE('/v1/boards/{boardId}/members/{userId}', { params: { path: { boardId: board.id, userId: me } } }),
        'Could not leave the board',
      );
      setMembers((all) => all.filter((item) => item.id !== board.id));
      toast.success(`You left “${board.name}”`);
    } catch (failure) {
      toast.error(messageOf(failure), () => void leave(board));
    }
  };

  const memberIds = new Set(members.map((board) => board.id));
  const boards = local.filter((board) => !memberIds.has(board.id));
  if (boards.length === 0 && members.length === 0 && !error) return null;
  return (
    <section className="shared-boards" aria-labelledby="shared-with-me">
      <h2 id="shared-with-me">Shared with me</h2>
      {error && (
        <Notice
          tone="error"
          message={error}
          action={{
            label: 'Retry',
            run: () => {
              setError(undefined);
              setAttempt((n) => n + 1);
            },
          }}
        />
      )}
      <ul className="board-list" aria-label="Boards shared with me">
        {members.map((board) => (
          <li key={board.id} className="board-row">
            <div className="board-main">
              <Link href={`/boards/${board.id}`} className="board-name">
                {board.name}
              </Link>
              <div className="board-meta">
                <span className="badge">{ROLE_LABELS[board.role] ?? board.role}</span>
                <span className="muted">Updated {formatDateTime(board.updated_at)}</span>
              </div>
            </div>
            <div className="row-actions">
              <button type="button" className="button-small" aria-label={`Leave ${board.name}`} onClick={() => void leave(board)}>
                Leave
              </button>
            </div>
          </li>
        ))}
        {boards.map((board) => (
          <li key={board.id} className="board-row">
            <div className="board-main">
              <Link href={`/boards/${board.id}`} className="board-name">
                {board.name}
              </Link>
              <div className="board-meta">
                <span className="badge badge-public">{board.access === 'edit' ? 'Public · can edit' : 'Public · view only'}</span>
                <span className="muted">Opened {formatDateTime(board.opened_at)}</span>
              </div>
            </div>
            <div className="row-actions">
              <button
                type="button"
                className="button-small"
                aria-label={`Remove ${board.name} from this list`}
                onClick={() => {
                  forgetSharedBoard(board.id);
                  setBoards(readSharedBoards());
                }}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
