// Requests in flight, so background work can step aside for them. On the embedded database every
// query shares one connection: a job statement that starts between two queries of one request makes
// that request wait a whole statement for each of its queries. Background writers therefore start
// their next statement only once no request is in flight, or after a bounded wait (so a steady
// stream of requests, or a long server-sent-events reply, slows background work but never stops it).
// With DATABASE_URL requests have their own connections and nothing waits. One per app (built by
// the app factory, which counts its requests), so two apps in one process never wait on each other.

export class Foreground {
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  /** `enabled`: the embedded database; otherwise idle() never waits. */
  constructor(private readonly enabled: boolean) {}

  get requests(): number {
    return this.inFlight;
  }

  readonly enter = (): void => {
    this.inFlight++;
  };

  readonly leave = (): void => {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight === 0) this.release();
  };

  /**
   * A reply that stays open (an event stream) stops counting as in flight once its headers are
   * out: it makes no queries while it waits, and background work must not wait for it.
   */
  stopCounting(res: import('node:http').ServerResponse): void {
    if (res.listeners('close').includes(this.leave)) {
      res.removeListener('close', this.leave);
      this.leave();
    }
  }

  /** Lets every waiting writer go (no request in flight, or the app is closing). */
  release(): void {
    const ready = this.waiters;
    this.waiters = [];
    for (const resolve of ready) resolve();
  }

  /** Resolves when no request is in flight, or after `maxWaitMs`. */
  idle(maxWaitMs: number): Promise<void> {
    if (!this.enabled || this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      }, maxWaitMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }
}
