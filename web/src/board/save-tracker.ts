// Tracks the board page's background saves (note text, node positions, the viewport) so the page
// can say "Saving…", "All changes saved" or which save failed, with a retry. Each save has a key
// (`note:<id>`, `position:<id>`, `viewport`); a newer save under a key replaces the older one, and
// saves are debounced per key so a drag or a burst of typing makes one request.
import { useSyncExternalStore } from 'react';

export interface SaveFailure {
  key: string;
  message: string;
  retry(): void;
}

export interface SaveStatus {
  pending: number;
  failures: SaveFailure[];
}

type Task = () => Promise<void>;

export class SaveTracker {
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private tasks = new Map<string, Task>();
  private inflight = new Map<string, Promise<void>>();
  private failed = new Map<string, SaveFailure>();
  private listeners = new Set<() => void>();
  private snapshot: SaveStatus = { pending: 0, failures: [] };

  /** Runs `task` after `delayMs` unless another save under `key` comes first. */
  schedule(key: string, task: Task, delayMs: number): void {
    this.tasks.set(key, task);
    this.failed.delete(key);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => void this.run(key), delayMs),
    );
    this.emit();
  }

  /** Runs the waiting save under `key` now (e.g. before vectorizing a note). */
  async flush(key: string): Promise<void> {
    if (!this.timers.has(key)) return;
    clearTimeout(this.timers.get(key));
    await this.run(key);
  }

  private async run(key: string): Promise<void> {
    this.timers.delete(key);
    const task = this.tasks.get(key);
    if (!task) return;
    this.tasks.delete(key);
    // Saves under one key go one after another, so an older position never lands after a newer one.
    const current = (this.inflight.get(key) ?? Promise.resolve()).catch(() => undefined).then(task);
    this.inflight.set(key, current);
    this.emit();
    try {
      await current;
      this.failed.delete(key);
    } catch (error) {
      // A newer save under this key supersedes the failed one; otherwise keep it for a retry.
      if (!this.tasks.has(key)) {
        this.failed.set(key, { key, message: (error as Error).message, retry: () => this.schedule(key, task, 0) });
      }
    } finally {
      if (this.inflight.get(key) === current) this.inflight.delete(key);
      this.emit();
    }
  }

  /** Drops a waiting save and a failure under `key` (its node was deleted). */
  cancel(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.tasks.delete(key);
    this.failed.delete(key);
    this.emit();
  }

  /** Retries every failed save now. */
  retryAll(): void {
    for (const failure of [...this.failed.values()]) failure.retry();
  }

  /** A save under `key` is waiting or on its way (its result not yet known). */
  isPending(key: string): boolean {
    return this.timers.has(key) || this.inflight.has(key);
  }

  hasPending(): boolean {
    return this.timers.size + this.inflight.size > 0;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): SaveStatus => this.snapshot;

  private emit(): void {
    const keys = new Set([...this.timers.keys(), ...this.inflight.keys()]);
    this.snapshot = { pending: keys.size, failures: [...this.failed.values()] };
    for (const listener of this.listeners) listener();
  }

  /** Sends every waiting save now (the page is being left: nothing typed may be dropped). */
  flushAll(): void {
    for (const key of [...this.timers.keys()]) void this.flush(key);
  }
}

export function useSaveStatus(tracker: SaveTracker): SaveStatus {
  return useSyncExternalStore(tracker.subscribe, tracker.getSnapshot);
}
