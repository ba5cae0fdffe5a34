// "Shared with me": the public boards of others this person has opened, remembered in this browser
// (localStorage, per signed-in person). The API lists only the caller's own boards and keeps no
// record of who opened a public board, so the list lives where the opening happens; it is
// refreshed by each open (the board's current name) and each entry can be removed.
import { useState } from 'react';
import { Link } from 'wouter';
import { sessionState } from '../auth/session';
import { formatDateTime } from '../lib/format';

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

export function SharedWithMe() {
  const [boards, setBoards] = useState(readSharedBoards);
  if (boards.length === 0) return null;
  return (
    <section className="shared-boards" aria-labelledby="shared-with-me">
      <h2 id="shared-with-me">Shared with me</h2>
      <ul className="board-list" aria-label="Boards shared with me">
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
