// What a changeTransaction committed, told to this process's listeners right after the commit: per
// board, the changes in order with the sequence number of the first (record.ts numbers them one by
// one from the board's event_seq). The list cache (src/boards/list-cache.ts) brings its kept pages
// up to the new version with them instead of reading them again. Only this instance's own writes are
// told here; a write of another instance reaches a kept page as a newer version, which it is not.
//
// A transaction that has recorded changes to a board is pending until it has ended (and its
// listeners have been told): a read that finds the board's new version in the database before this
// process has handled the commit's answer (both answers arrive together) waits for it instead of
// reading the page again (commitsPending).
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

/** The ends of the transactions that have recorded changes to each board and not yet ended. */
const pending = new WeakMap<Db, Map<string, Set<Promise<void>>>>();

/**
 * Notes that a transaction on `db` has recorded changes to `boardId`: pending until `ended`
 * resolves, which the transaction does after it committed and told its listeners, or rolled back.
 */
export function notePending(db: Db, boardId: string, ended: Promise<void>): void {
  let boards = pending.get(db);
  if (!boards) {
    boards = new Map();
    pending.set(db, boards);
  }
  let ends = boards.get(boardId);
  if (!ends) {
    ends = new Set();
    boards.set(boardId, ends);
  }
  const set = ends;
  set.add(ended);
  void ended.then(() => {
    set.delete(ended);
    if (set.size === 0 && boards.get(boardId) === set) boards.delete(boardId);
  });
}

/** When transactions on `db` with changes to `boardId` are pending: a promise of their end. */
export function commitsPending(db: Db, boardId: string): Promise<void> | undefined {
  const ends = pending.get(db)?.get(boardId);
  return ends && ends.size > 0 ? Promise.all(ends).then(() => {}) : undefined;
}
