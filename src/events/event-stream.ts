// One open event stream (GET /v1/boards/{id}/events as text/event-stream): sends the board's events
// after its cursor, in order, each once, whenever the hub wakes it. It ends when the board is
// deleted, when the board is made private and the caller is neither its owner nor a member, when the caller's role on
// it changes or they are removed (member.updated, member.removed), when the caller's key is
// revoked (the hub), when a periodic check finds the caller may no longer read the board, and when a
// client reads so slowly that too much is buffered for it (it resumes with Last-Event-ID).
import type { Principal } from '../auth/principal.js';
import { boardSeenBy, isOwner, type BoardRow, type SeenBoard } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import type { SseWriter } from '../lib/sse.js';
import type { BoardEventHub, HubEvent, Subscriber } from './event-hub.js';

/** Whether a reader of this board receives the event: only the owner gets owner-only ones. */
export const receives = (event: HubEvent, board: BoardRow, principal: Principal): boolean =>
  event.audience === 'all' || isOwner(board, principal);

/** Events read per query while catching up. */
const BATCH = 200;
/** Bytes written and not yet read by the client after which the stream is cut off. */
const MAX_BACKLOG = 8 * 1024 * 1024;

export interface StreamOptions {
  /** How often the caller's right to read the board is checked again. */
  recheckMs: number;
}

export class BoardEventStream implements Subscriber {
  readonly boardId: string;
  readonly userId: string;
  readonly keyId: string | undefined;
  private pumping = false;
  private again = false;
  private ended = false;
  private readonly recheck: NodeJS.Timeout;
  private unsubscribe: () => void = () => {};

  constructor(
    private readonly hub: BoardEventHub,
    private readonly db: Db,
    private readonly principal: Principal,
    private readonly board: SeenBoard,
    private cursor: number,
    private readonly sse: SseWriter,
    options: StreamOptions,
  ) {
    this.boardId = board.id;
    this.userId = principal.userId;
    this.keyId = principal.keyId;
    this.recheck = setInterval(() => void this.checkAccess(), options.recheckMs);
    this.recheck.unref();
  }

  /** Starts following the board: sends who is there and what came after the cursor, then each change as it commits. */
  start(): void {
    this.unsubscribe = this.hub.subscribe(this);
    for (const json of this.hub.presenceOn(this.boardId)) this.presence(json);
    this.wake(Number.POSITIVE_INFINITY);
  }

  presence(json: string): void {
    // Presence has no id: it is not part of the change log and does not move Last-Event-ID.
    if (!this.ended) this.sse.event('presence', json);
  }

  wake(seq: number): void {
    if (this.ended || seq <= this.cursor) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch(() => this.end())
      .finally(() => {
        this.pumping = false;
      });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.recheck);
    this.unsubscribe();
    this.sse.end();
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        const events = await this.hub.read(this.boardId, this.cursor, BATCH);
        for (const event of events) {
          if (this.ended) return;
          this.cursor = event.seq;
          if (
            event.type === 'board.updated' &&
            event.data.is_public === false &&
            !isOwner(this.board, this.principal) &&
            this.board.member_role === null
          ) {
            return this.end();
          }
          // The reader's own role changed or they were removed: end at once; a reader who still may
          // reconnects under the new role (and is refused when they may not).
          if ((event.type === 'member.updated' || event.type === 'member.removed') && event.data.user_id === this.userId) {
            if (receives(event, this.board, this.principal)) this.sse.event(event.type, event.json, event.seq);
            return this.end();
          }
          if (receives(event, this.board, this.principal)) this.sse.event(event.type, event.json, event.seq);
          if (event.type === 'board.deleted' || this.sse.backlog > MAX_BACKLOG) return this.end();
        }
        if (events.length < BATCH) break;
      }
    } while (this.again && !this.ended);
  }

  /** The backstop for what no event announces: an expired key, a deleted account, a lost notification. */
  private async checkAccess(): Promise<void> {
    try {
      const board = await this.db
        .selectFrom('boards')
        .select('event_seq')
        .where('id', '=', this.boardId)
        .where(boardSeenBy(this.principal))
        .executeTakeFirst();
      const key =
        this.keyId === undefined ||
        (await this.db
          .selectFrom('api_keys')
          .select('id')
          .where('id', '=', this.keyId)
          .where('revoked_at', 'is', null)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date())]))
          .executeTakeFirst()) !== undefined;
      if (!board || !key) this.end();
      else this.wake(board.event_seq);
    } catch {
      // The database is unreachable for now: check again next time.
    }
  }
}
