// The claim loops of a table-backed queue (the job worker, the webhook sender): `concurrency` slots,
// each running `step` (true when it claimed something) again at once after work, and otherwise
// waiting for wake() or the poll interval, whichever comes first.
export class ClaimSlots {
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Slots waiting for work; wake() ends one wait. */
  private idle: (() => void)[] = [];

  constructor(
    private readonly options: { concurrency: number; pollMs: number },
    private readonly step: () => Promise<boolean>,
    /** A step that threw, while not stopping. */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** True once stop() was called: a step that claimed something then hands it back. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.running ??= Promise.all(Array.from({ length: this.options.concurrency }, () => this.loop()));
  }

  /** Looks for work now rather than at the next poll (one idle slot; a step that finds work wakes the next). */
  wake(): void {
    this.idle.shift()?.();
  }

  /** No slot claims again and the waiting ones end at once; resolves when the steps under way have returned. */
  stop(): Promise<unknown> {
    this.stopped = true;
    for (const resolve of this.idle.splice(0)) resolve();
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      try {
        worked = await this.step();
      } catch (error) {
        if (!this.stopped) this.onError(error);
      }
      if (worked || this.stopped) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.idle = this.idle.filter((w) => w !== done);
          resolve();
        };
        const timer = setTimeout(done, this.options.pollMs);
        this.idle.push(done);
      });
    }
  }
}
