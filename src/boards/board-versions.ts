// Reading boards' versions (event_seq) for callers, as a kept list page needs before it is sent
// (list-cache.ts), with the access rule and the API-key check of visible_board_version
// (0016-board-version.ts).
//
// Under load many requests want a version at once, and each would be a round trip of its own. So the
// reads are batched: while one batch is on its way to the database, the requests that arrive wait
// and then go together, as one statement, in the next. A request's read is always sent after the
// request arrived, so it sees every write and every revocation committed before then: batching
// changes how many statements are sent, never what a request is answered. An idle service sends
// each read at once.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/schema.js';
import { findVisibleBoard } from '../access/board-access.js';

/** At most this many reads go in one statement; more wait for the next. */
const MAX_BATCH = 256;

interface Read {
  boardId: string;
  viewer: string;
  /** The API key to check with the board, when the request has not read it (Principal.unconfirmed). */
  key: string | null;
  resolve(version: number | null): void;
  reject(error: unknown): void;
}

export class BoardVersions {
  private waiting: Read[] = [];
  private sending = false;

  constructor(private readonly db: Db) {}

  /**
   * The board's version when the caller may see it; the caller's 401 or 404 (as findVisibleBoard
   * answers them) otherwise.
   */
  async visibleTo(principal: Principal, boardId: string): Promise<number> {
    const key = principal.unconfirmed ? (principal.keyId ?? null) : null;
    const version = await new Promise<number | null>((resolve, reject) => {
      this.waiting.push({ boardId, viewer: principal.userId, key, resolve, reject });
      if (!this.sending) void this.send();
    });
    return version ?? (await findVisibleBoard(this.db, principal, boardId)).event_seq;
  }

  private async send(): Promise<void> {
    this.sending = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      try {
        // One text for every batch size, so PostgreSQL and a prepared-statement pool see one statement.
        const { rows } = await sql<{ version: number | null }>`
          SELECT visible_board_version(r.board, r.viewer, r.key) AS version
          FROM unnest(${batch.map((r) => r.boardId)}::uuid[], ${batch.map((r) => r.viewer)}::uuid[], ${batch.map((r) => r.key)}::uuid[])
            WITH ORDINALITY AS r(board, viewer, key, n)
          ORDER BY r.n`.execute(this.db);
        batch.forEach((read, i) => read.resolve(rows[i]?.version ?? null));
      } catch (error) {
        for (const read of batch) read.reject(error);
      }
    }
    this.sending = false;
  }
}
