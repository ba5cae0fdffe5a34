// The one way an app runs work outside requests: every background task (the job worker, the chunk
// purger, the periodic sweeps) is added here by the module that owns it, started once the app is
// ready and stopped, last added first, when the app closes. One per app, so closing an app stops
// everything it started and nothing of another app's.
import type { Logger } from '../lib/logger.js';

export interface BackgroundTask {
  /** What the task is, for logs. */
  readonly name: string;
  start(): void;
  /** Stops the task and waits for the work it has under way. */
  stop(): Promise<void>;
}

export class Background {
  private readonly tasks: BackgroundTask[] = [];
  private started = false;

  constructor(private readonly log: Logger) {}

  add(task: BackgroundTask): void {
    if (this.started) throw new Error(`background task ${task.name} added after the app started`);
    this.tasks.push(task);
  }

  /** Runs `run` at start and then every `intervalMs`; a failure is logged and the next run goes ahead. */
  every(name: string, intervalMs: number, run: () => Promise<unknown>): void {
    let timer: NodeJS.Timeout | undefined;
    let current: Promise<unknown> | undefined;
    const tick = () => {
      current ??= run()
        .catch((err: unknown) => this.log.warn({ err }, `${name} failed`))
        .finally(() => {
          current = undefined;
        });
    };
    this.add({
      name,
      start() {
        tick();
        timer = setInterval(tick, intervalMs);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
        await current;
      },
    });
  }

  start(): void {
    this.started = true;
    for (const task of this.tasks) task.start();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    for (const task of [...this.tasks].reverse()) await task.stop();
  }
}
