// Pages of a board's node and edge lists, kept as the JSON that was sent, per board version.
//
// A board's event_seq (0011-board-events.ts) grows in the transaction of every change to its nodes,
// edges or settings (record.ts: every such write runs as a changeTransaction and records its
// changes; only the transaction that creates a board writes its first rows unrecorded, and nobody
// can read the board before that commits). So the page read at version v is the page of every later
// read that still finds version v. A list request then makes one small statement, the version, with
// the same access rule and API-key check as the list's own statement, and sends the page kept for
// it. A write on any instance changes the version, so the pages are exact on several instances
// sharing one database, as on one.
//
// A page or node read together with its version (in the same statement) is also kept as its value,
// with the function that follows the board's changes (follow-changes.ts). When this instance commits
// a change to the board (committed.ts), each such page kept at the version just before is brought to
// the new version at once: the changes applied to it when they can be (a note edited, created or
// deleted in its range), the same bytes when it is unaffected (another list's change, a setting),
// nothing when they cannot (deletions past the rows kept after the page: it stays at its old
// version, and the next read reads it). Its bytes are made again on its next read. So a read after
// a change made here costs what a read of an unchanged board costs; a change made by another
// instance still shows as a newer version, and that read reads.
//
// Under load the version reads are batched (board-versions.ts), so a read's version may be that of
// just before a commit this instance has handled since, or of a commit whose answer it has not
// handled yet. The first is answered from the answers kept at the versions before the last commits
// (two); the second waits for the commit to be handled. Either way the read gets the page of the
// version it read, as it would have from the database.
//
// The cache is bounded in bytes (BOARD_LIST_CACHE_MB; 0 turns it off) and forgets the least
// recently used pages first. A page that could be served to one caller is served to any caller who
// may see the board: a list's content does not depend on who reads it.

import type { CommittedChanges } from '../events/committed.js';
import type { BoardChange } from '../events/record.js';

/** No single page takes more than this share of the budget. */
const MAX_SHARE_OF_BUDGET = 1 / 16;
/** What an entry costs beyond its text (the Map's slot, the entry object, the version). */
const ENTRY_OVERHEAD = 96;
/**
 * How many answers of the versions before a followed entry's last commits are kept: a version read
 * batched under load may be on its way while one or two commits are handled.
 */
const PREVIOUS_KEPT = 2;

/**
 * Brings a kept value to the board's next version: the changes of one commit, in order, applied to
 * it. Answers the value itself when they leave it as it was, a new value when they change it, and
 * undefined when the value cannot be known from them (it is then read again).
 */
export type Follow<T> = (value: T, changes: readonly BoardChange[]) => T | undefined;

/** A kept value that follows its board's changes: see Follow. */
export interface Followed<T> {
  board: string;
  value: T;
  follow: Follow<T>;
}

/** An answer at one version: its bytes (undefined until a read makes them from the value) and ETag. */
interface Answer {
  version: number;
  body: Buffer | undefined;
  tag: string | undefined;
  value: unknown;
}

interface Entry {
  version: number;
  /** The answer's bytes; undefined after changes were applied to the value, until the next read makes them. */
  body: Buffer | undefined;
  /** A single resource's ETag, kept with its answer. */
  tag: string | undefined;
  followed: Followed<unknown> | undefined;
  /**
   * A followed entry's answers at the versions before the last commits it followed, newest first: a
   * read whose version was read just before those commits (a batch on its way meanwhile) is answered
   * the page of its version instead of reading it again.
   */
  previous: Answer[];
  cost: number;
}

/** What find answers: the bytes (undefined: make them from the value, then fill) and the value. */
export interface Kept<T> {
  body: Buffer | undefined;
  tag: string | undefined;
  value: T | undefined;
}

export class BoardListCache {
  private readonly entries = new Map<string, Entry>();
  /** The keys of the followed entries of each board. */
  private readonly followedKeys = new Map<string, Set<string>>();
  private used = 0;

  /**
   * `maxBytes`: the budget for the kept pages, counted as their bytes plus their keys. `pending`: the
   * end of this instance's transactions with changes to a board not yet told (committed.ts), if any.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly pending: (board: string) => Promise<void> | undefined = () => undefined,
  ) {}

  /** The page kept under `key` for the board at `version`, if any (and its bytes made). */
  get(key: string, version: number): Buffer | undefined {
    return this.find(key, version)?.body;
  }

  /** The answer kept under `key` for the board at `version`, with the ETag it was kept with. */
  find<T = unknown>(key: string, version: number): Kept<T> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version !== version) {
      const previous = entry.previous.find((answer) => answer.version === version);
      return previous && { body: previous.body, tag: previous.tag, value: previous.value as T };
    }
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { body: entry.body, tag: entry.tag, value: entry.followed?.value as T | undefined };
  }

  /**
   * When the entry under `key` follows its board, is behind `version`, and a commit of this instance
   * on the board is pending: the commit's end, after which the entry may be at `version` (the version
   * was read after the commit, whose answer this process has not handled yet).
   */
  behind(key: string, version: number): Promise<void> | undefined {
    const entry = this.entries.get(key);
    if (entry?.followed === undefined || entry.version >= version) return undefined;
    return this.pending(entry.followed.board);
  }

  /** Whether anything is kept under `key`, of any version. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Keeps `body` (UTF-8 JSON, sent as it is), read at `version` or later, as the page under `key`
   * for that version. `followed`: the value read exactly at `version`, to follow the board's changes.
   */
  put<T>(key: string, version: number, body: Buffer, tag?: string, followed?: Followed<T>): void {
    // A followed value is kept beside its bytes: counted twice.
    const cost = body.length * (followed ? 2 : 1) + key.length + (tag?.length ?? 0) + ENTRY_OVERHEAD;
    const old = this.entries.get(key);
    if (old !== undefined) {
      // A slower read of an older version does not replace a newer page.
      if (old.version > version) return;
      this.remove(key, old);
    }
    if (cost > this.maxBytes * MAX_SHARE_OF_BUDGET) return;
    for (const [oldest, entry] of this.entries) {
      if (this.used + cost <= this.maxBytes) break;
      this.remove(oldest, entry);
    }
    this.entries.set(key, { version, body, tag, followed: followed as Followed<unknown> | undefined, previous: [], cost });
    this.used += cost;
    if (followed) {
      let keys = this.followedKeys.get(followed.board);
      if (!keys) {
        keys = new Set();
        this.followedKeys.set(followed.board, keys);
      }
      keys.add(key);
    }
  }

  /** Gives the entry under `key`, still at `version`, the bytes (and ETag) made from its value. */
  fill(key: string, version: number, body: Buffer, tag?: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    const answer = entry.version === version ? entry : entry.previous.find((previous) => previous.version === version);
    if (answer === undefined || answer.body !== undefined) return;
    answer.body = body;
    answer.tag = tag;
    this.recount(key, entry);
  }

  /** An entry's cost: its bytes and value (counted as its bytes again), its previous answers', its key. */
  private recount(key: string, entry: Entry): void {
    const bodies = new Set([entry.body, ...entry.previous.map((answer) => answer.body)]);
    let size = 0;
    for (const body of bodies) size += (body?.length ?? 0) * 2;
    const cost = size + key.length + (entry.tag?.length ?? 0) + ENTRY_OVERHEAD;
    this.used += cost - entry.cost;
    entry.cost = cost;
  }

  /**
   * What this instance committed on `board`: each followed entry kept at the version just before
   * is brought through the changes, as far as it can follow them.
   */
  apply(board: string, committed: readonly CommittedChanges[]): void {
    const keys = this.followedKeys.get(board);
    if (!keys) return;
    for (const key of keys) {
      const entry = this.entries.get(key)!;
      const followed = entry.followed!;
      const before: Answer = { version: entry.version, body: entry.body, tag: entry.tag, value: followed.value };
      for (const { first, changes } of committed) {
        if (entry.version !== first - 1) break;
        const value = followed.follow(followed.value, changes);
        if (value === undefined) break;
        if (value !== followed.value) {
          followed.value = value;
          entry.body = undefined;
          entry.tag = undefined;
        }
        entry.version = first + changes.length - 1;
      }
      // The commit's changes are seen all at once: no read finds a version between the two.
      if (entry.version !== before.version) {
        entry.previous = [before, ...entry.previous.slice(0, PREVIOUS_KEPT - 1)];
        this.recount(key, entry);
      }
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.used -= entry.cost;
    if (entry.followed) {
      const keys = this.followedKeys.get(entry.followed.board);
      keys?.delete(key);
      if (keys?.size === 0) this.followedKeys.delete(entry.followed.board);
    }
  }

  /** The pages kept and the bytes they are counted as, for tests and diagnostics. */
  get size(): { pages: number; bytes: number } {
    return { pages: this.entries.size, bytes: this.used };
  }
}
