// Requests in flight, so background work can step aside for them. On the embedded database every
// query shares one connection: a job statement that starts between two queries of one request makes
// that request wait a whole statement for each of its queries. Background writers therefore start
// their next statement only once no request is in flight, or after a bounded wait (so a steady
// stream of requests, or a long server-sent-events reply, slows background work but never stops it).
// With DATABASE_URL requests have their own connections and nothing waits (see app.ts).

let enabled = false;
let inFlight = 0;
let waiters: (() => void)[] = [];

export const foreground = {
  /** Turns the tracking on (the embedded database) or off. */
  enable(on: boolean): void {
    enabled = on;
    if (!on) foreground.release();
  },
  enter(): void {
    inFlight++;
  },
  leave(): void {
    inFlight = Math.max(0, inFlight - 1);
    if (inFlight === 0) foreground.release();
  },
  release(): void {
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  },
  /** Resolves when no request is in flight, or after `maxWaitMs`. */
  idle(maxWaitMs: number): Promise<void> {
    if (!enabled || inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== done);
        resolve();
      }, maxWaitMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      waiters.push(done);
    });
  },
};
