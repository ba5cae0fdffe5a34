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
// The cache is bounded in bytes (BOARD_LIST_CACHE_MB; 0 turns it off) and forgets the least
// recently used pages first. A page that could be served to one caller is served to any caller who
// may see the board: a list's content does not depend on who reads it.

/** No single page takes more than this share of the budget. */
const MAX_SHARE_OF_BUDGET = 1 / 16;
/** What an entry costs beyond its text (the Map's slot, the entry object, the version). */
const ENTRY_OVERHEAD = 96;

interface Entry {
  version: number;
  body: Buffer;
  /** A single resource's ETag, kept with its answer. */
  tag: string | undefined;
  cost: number;
}

export class BoardListCache {
  private readonly entries = new Map<string, Entry>();
  private used = 0;

  /** `maxBytes`: the budget for the kept pages, counted as their bytes plus their keys. */
  constructor(private readonly maxBytes: number) {}

  /** The page kept under `key` for the board at `version`, if any. */
  get(key: string, version: number): Buffer | undefined {
    return this.find(key, version)?.body;
  }

  /** The answer kept under `key` for the board at `version`, with the ETag it was kept with. */
  find(key: string, version: number): { body: Buffer; tag: string | undefined } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.version !== version) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Whether anything is kept under `key`, of any version. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Keeps `body` (UTF-8 JSON, sent as it is), read at `version` or later, as the page under `key` for that version. */
  put(key: string, version: number, body: Buffer, tag?: string): void {
    const cost = body.length + key.length + (tag?.length ?? 0) + ENTRY_OVERHEAD;
    const old = this.entries.get(key);
    if (old !== undefined) {
      // A slower read of an older version does not replace a newer page.
      if (old.version > version) return;
      this.entries.delete(key);
      this.used -= old.cost;
    }
    if (cost > this.maxBytes * MAX_SHARE_OF_BUDGET) return;
    for (const [oldest, entry] of this.entries) {
      if (this.used + cost <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= entry.cost;
    }
    this.entries.set(key, { version, body, tag, cost });
    this.used += cost;
  }

  /** The pages kept and the bytes they are counted as, for tests and diagnostics. */
  get size(): { pages: number; bytes: number } {
    return { pages: this.entries.size, bytes: this.used };
  }
}
