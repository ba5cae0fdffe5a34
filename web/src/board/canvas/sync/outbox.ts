// The outbox: every change this person makes to a board's nodes and edges, kept in IndexedDB
// (store.ts) until the service has it, so nothing is lost to a failed request, a reload, a closed
// tab or the service being down. Operations (operations.ts) are sent in the order they were made:
// a run of them as one `POST …/batch`; a note's text on its own with If-Match (text-sync.ts), and
// so is a change of an edge's data (send.ts's patchEdgeData: the service replaces edge_data). An
// operation not yet sent takes in a later one of the same target (a drag, a burst of typing). A
// failure that sending again can cure (not reached, 5xx, 429, 401) is retried on its own, after a
// pause that grows (Retry-After where given), and at once when the connection returns (the
// browser's `online`, the event stream reconnecting: `retryNow`). A refusal (400, 403, 404, 409)
// drops that operation with a notice naming what was not saved. The queue is safe to send again
// after a crash: creates carry client ids, deletes of what is gone answer 200, and a text's
// If-Match already applied answers 200 (docs/api.md "Replaying a queue of edits safely").
import { useSyncExternalStore } from 'react';
import type { EdgeRecord, NodeRecord } from '../../board-api';
import { BATCH_LIMIT } from './batch-api';
import { batchOperation, coalesce, keyOf, type OutboxOp, type SentAlone, sentAlone } from './operations';
import { ApiError } from '../../../lib/api-error';
import { patchEdgeData, sendBatch } from './send';
import { type StoredEntry, writeEntries } from './store';
import type { TextSync } from './text-sync';

/** Pause before a retry, by failures in a row (the last repeats): short, so a return is seen soon. */
const RETRY_MS = [500, 1_000, 2_000, 3_000, 5_000];
/** Changes are sent this long after the last one (a drag's or a burst of typing's end) ... */
const SETTLE_MS = 250;
/** ... but never later than this after the first waiting one. */
const MAX_WAIT_MS = 1_000;

interface Entry extends StoredEntry {
  /** Sent at least once: its body is fixed (a resend must be the same request). */
  attempted?: boolean;
}

/** A waiting change whose last attempt failed (it is retried); the shape the note cards read. */
export interface SaveFailure {
  key: string;
  message: string;
  /** Sends every waiting change now. */
  retry(): void;
}

export interface OutboxStatus {
  /** Changes not yet confirmed by the service. */
  waiting: number;
  /** The service could not be reached on the last attempt (or the browser is offline). */
  offline: boolean;
  /** The waiting change whose last attempt failed, if any (with why). */
  failures: SaveFailure[];
}

export interface OutboxDeps {
  text: TextSync;
  /** The service's answer to an update of a node or an edge (server-sync.ts). */
  savedNode(record: NodeRecord): void;
  savedEdge(record: EdgeRecord): void;
  /** A text operation is being sent (its burst of typing ends in the history). */
  sending?(op: OutboxOp): void;
  /** The service refused `op` for good: the person is told what was not saved. */
  refused(op: OutboxOp, message: string, status: number | undefined): void;
  /** A node made here is on the service now (automatic reading starts from it). */
  created?(nodeId: string): void;
}

export class Outbox {
  private entries: Entry[] = [];
  private nextSeq: number;
  private readonly listeners = new Set<() => void>();
  private snapshot: OutboxStatus = { waiting: 0, offline: false, failures: [] };
  /** Entries to write to IndexedDB (null: to delete), in one transaction at the end of this task. */
  private dirty = new Map<number, StoredEntry | null>();
  private writeQueued = false;
  private running = false;
  private again = false;
  private failuresInRow = 0;
  private lastError?: ApiError;
  private timer?: ReturnType<typeof setTimeout>;
  private firstWaitingAt?: number;
  private stopped = false;
  /** The canvas is gone: stop once nothing waits. */
  private detached = false;
  private deps?: OutboxDeps;
  private readonly waiters: { key: string; resolve(): void }[] = [];

  constructor(
    readonly boardId: string,
    stored: StoredEntry[],
  ) {
    this.entries = stored.map((e) => ({ ...e, attempted: true }));
    this.nextSeq = Math.max(Date.now() * 1000, ...stored.map((e) => e.seq + 1));
    this.update();
  }

  /** The operations restored from IndexedDB (for showing them on the loaded board). */
  pendingOps(): OutboxOp[] {
    return this.entries.map((e) => e.op);
  }

  /** Starts sending (once the canvas can take the answers); returns the function that stops it. */
  start(deps: OutboxDeps): () => void {
    this.deps = deps;
    this.stopped = false;
    this.detached = false;
    const online = () => this.retryNow();
    const leaving = () => this.writeNow();
    window.addEventListener('pagehide', leaving);
    const offline = () => this.update();
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    this.schedule(0);
    return () => {
      // The canvas is left: what waits is still sent (nothing is lost by leaving the board), then
      // the outbox rests until the board is opened again.
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      window.removeEventListener('pagehide', leaving);
      this.detached = true;
      if (this.entries.length === 0) this.stop();
    };
  }

  /** Adds a change (shown on the canvas already); it is kept in IndexedDB and sent soon. */
  enqueue(op: OutboxOp): void {
    // A waiting (never sent) change of the same target takes this one in.
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.attempted || entry.op.id !== op.id) continue;
      const joined = coalesce(entry.op, op);
      if (!joined) break;
      entry.op = joined;
      this.save(entry);
      this.changed();
      return;
    }
    const entry: Entry = { seq: this.nextSeq++, boardId: this.boardId, op };
    this.entries.push(entry);
    this.save(entry);
    this.changed();
  }

  /** The note's waiting text operations carry `text`, typed on `base` (a merge with others' text). */
  retext(id: string, text: string, base: string): void {
    const waiting = this.entries.filter((e) => !e.attempted && e.op.op === 'text' && e.op.id === id);
    if (waiting.length === 0) {
      // Nothing new to send when the merge is the service's text itself.
      if (text !== base) this.enqueue({ op: 'text', id, text, base });
      return;
    }
    for (const entry of waiting) {
      entry.op = { op: 'text', id, text, base };
      this.save(entry);
    }
  }

  /** A change under `key` is waiting or on its way. */
  isPending(key: string): boolean {
    return this.entries.some((e) => keyOf(e.op) === key);
  }

  /** A node or edge made here that the service does not have yet. */
  isPendingCreate(id: string): boolean {
    return this.entries.some((e) => (e.op.op === 'create_node' || e.op.op === 'create_edge') && e.op.id === id);
  }

  hasPending(): boolean {
    return this.entries.length > 0;
  }

  /** Drops the waiting changes under `key` (their node was deleted). */
  cancel(key: string): void {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => {
      if (keyOf(e.op) !== key) return true;
      this.persist(e.seq, null);
      return false;
    });
    if (this.entries.length !== before) {
      this.resolveWaiters();
      this.changed();
    }
  }

  /** Resolves once nothing under `key` waits (sending it now). */
  whenSent(key: string): Promise<void> {
    if (!this.isPending(key)) return Promise.resolve();
    this.schedule(0);
    return new Promise((resolve) => this.waiters.push({ key, resolve }));
  }

  private stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Sends what waits now (the connection is back, or the person asked). */
  retryNow(): void {
    this.failuresInRow = 0;
    this.schedule(0);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): OutboxStatus => this.snapshot;

  private save(entry: Entry): void {
    const stored: StoredEntry = { seq: entry.seq, boardId: entry.boardId, op: entry.op };
    this.persist(entry.seq, stored);
  }

  /** Written at the end of the task, all changes in one transaction (store.ts keeps their order). */
  private persist(seq: number, entry: StoredEntry | null): void {
    this.dirty.set(seq, entry);
    if (this.writeQueued) return;
    this.writeQueued = true;
    queueMicrotask(() => this.writeNow());
  }

  /** Writes what changed since the last write (also when the page is being left: `pagehide`). */
  writeNow(): void {
    this.writeQueued = false;
    if (this.dirty.size === 0) return;
    const changes = [...this.dirty];
    this.dirty = new Map();
    void writeEntries(
      changes.flatMap(([, entry]) => (entry ? [entry] : [])),
      changes.flatMap(([seq, entry]) => (entry ? [] : [seq])),
    );
  }

  private changed(): void {
    this.firstWaitingAt ??= Date.now();
    const waited = Date.now() - this.firstWaitingAt;
    if (this.lastError === undefined) this.schedule(Math.max(0, Math.min(SETTLE_MS, MAX_WAIT_MS - waited)));
    this.update();
  }

  private schedule(delayMs: number): void {
    if (this.stopped || !this.deps) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pump(), delayMs);
  }

  private async pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      while (this.entries.length > 0 && !this.stopped && this.deps) {
        this.again = false;
        const head = this.entries[0]!;
        const run = sentAlone(head.op) ? [head] : this.runFrom();
        for (const entry of run) entry.attempted = true;
        try {
          await this.send(run);
          this.failuresInRow = 0;
          this.lastError = undefined;
          this.done(run);
        } catch (error) {
          const failure = error instanceof ApiError ? error : new ApiError((error as Error).message);
          if (!failure.retryable) {
            // The refused operation leaves the queue (with a notice); the others are sent again.
            const refused = run[Math.min(failure.operationIndex ?? 0, run.length - 1)]!;
            // What was to be made of a node the service refused to create cannot be made either.
            const made = refused.op.op === 'create_node' ? refused.op.id : undefined;
            const dependent = made
              ? this.entries.filter(
                  (e) => e.op.id === made || (e.op.op === 'create_edge' && (e.op.source === made || e.op.target === made)),
                )
              : [];
            this.done([refused, ...dependent]);
            this.deps.refused(refused.op, failure.message, failure.status);
            continue;
          }
          this.lastError = failure;
          const delay = failure.retryAfterMs ?? RETRY_MS[Math.min(this.failuresInRow++, RETRY_MS.length - 1)]!;
          this.update();
          this.schedule(delay);
          return;
        }
      }
      this.firstWaitingAt = undefined;
      if (this.detached && this.entries.length === 0) this.stop();
    } finally {
      this.running = false;
      this.update();
      if (this.again && this.entries.length > 0 && this.lastError === undefined) this.schedule(0);
    }
  }

  /** The waiting operations from the head up to the next one sent alone (at most a batch's worth). */
  private runFrom(): Entry[] {
    const run: Entry[] = [];
    for (const entry of this.entries) {
      if (sentAlone(entry.op) || run.length >= BATCH_LIMIT) break;
      run.push(entry);
    }
    return run;
  }

  private async send(run: Entry[]): Promise<void> {
    const deps = this.deps!;
    const head = run[0]!.op;
    if (head.op === 'text') {
      deps.sending?.(head);
      const answer = await deps.text.send(head.id, head.text, head.base);
      deps.savedNode(answer.node);
      return;
    }
    if (head.op === 'update_edge') {
      deps.savedEdge(await patchEdgeData(this.boardId, head.id, head.data));
      return;
    }
    const results = await sendBatch(
      this.boardId,
      run.map((e) => batchOperation(e.op as Exclude<OutboxOp, SentAlone>)),
    );
    results.forEach((result, i) => {
      const op = run[i]?.op;
      if (op?.op === 'update_node' && result.node) deps.savedNode(result.node);
      if (op?.op === 'create_node') deps.created?.(op.id);
    });
  }

  /** The entries are settled (confirmed or refused): out of the queue and of IndexedDB. */
  private done(run: Entry[]): void {
    const gone = new Set(run);
    this.entries = this.entries.filter((e) => !gone.has(e));
    for (const entry of run) this.persist(entry.seq, null);
    for (const entry of run) {
      if (entry.op.op === 'text' && !this.isPending(keyOf(entry.op))) this.deps?.text.idle(entry.op.id);
    }
    this.resolveWaiters();
    this.update();
  }

  private resolveWaiters(): void {
    for (const waiter of [...this.waiters]) {
      if (this.isPending(waiter.key)) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  private update(): void {
    const offline = this.entries.length > 0 && (!navigator.onLine || (this.lastError !== undefined && this.lastError.status === undefined));
    const failures: SaveFailure[] =
      this.lastError && this.entries[0]
        ? [{ key: keyOf(this.entries[0].op), message: this.lastError.message, retry: () => this.retryNow() }]
        : [];
    const next = { waiting: this.entries.length, offline, failures };
    const same =
      next.waiting === this.snapshot.waiting &&
      next.offline === this.snapshot.offline &&
      next.failures.length === this.snapshot.failures.length &&
      next.failures.every((f, i) => f.key === this.snapshot.failures[i]?.key && f.message === this.snapshot.failures[i]?.message);
    if (!same) this.snapshot = next;
    // Told even when the count is the same: one change settled and another came (server-sync.ts).
    for (const listener of this.listeners) listener();
  }
}

/** The outbox of each board opened in this tab: one leaving the board keeps sending what waits, and
 * opening the board again takes it up rather than reading (and sending) the same entries twice. */
const open = new Map<string, Outbox>();

export async function openOutbox(boardId: string, read: (boardId: string) => Promise<StoredEntry[]>): Promise<Outbox> {
  const live = open.get(boardId);
  if (live?.hasPending()) return live;
  const outbox = new Outbox(boardId, await read(boardId));
  open.set(boardId, outbox);
  return outbox;
}

export function useOutboxStatus(outbox: Outbox): OutboxStatus {
  return useSyncExternalStore(outbox.subscribe, outbox.getSnapshot);
}
