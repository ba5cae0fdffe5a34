// What a changeTransaction committed, told to this process's listeners right after the commit: per
// board, the changes in order with the sequence number of the first (record.ts numbers them one by
// one from the board's event_seq). The list cache (src/boards/list-cache.ts) brings its kept pages
// up to the new version with them instead of reading them again. Only this instance's own writes are
// told here; a write of another instance reaches a kept page as a newer version, which it is not.
import type { Db } from '../db/schema.js';
import type { BoardEventType } from '../contract/events.js';

/** One change to a board, as recordChanges (record.ts) records it and its event carries it. */
export interface BoardChange {
  type: BoardEventType;
  /** The resource as the API answers it; for a deletion `{ id }`. */
  data: unknown;
  /** Who may see the event: everyone who may read the board (default), or only its owner. */
  audience?: 'all' | 'owner';
}

/** Changes recorded by one recordChanges call: `changes[i]` is the board's event `first + i`. */
export interface CommittedChanges {
  first: number;
  changes: readonly BoardChange[];
}

export type CommittedListener = (boardId: string, committed: readonly CommittedChanges[]) => void;

const listeners = new WeakMap<Db, Set<CommittedListener>>();

/** Calls `listener` after every commit of a changeTransaction on `db`; answers the function that stops it. */
export function onCommitted(db: Db, listener: CommittedListener): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/** Tells the listeners of `db` what one transaction committed (record.ts, after the commit). */
export function tellCommitted(db: Db, boards: ReadonlyMap<string, readonly CommittedChanges[]>): void {
  const set = listeners.get(db);
  if (!set) return;
  for (const [boardId, committed] of boards) for (const listener of set) listener(boardId, committed);
}
