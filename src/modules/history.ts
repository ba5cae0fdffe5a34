// Board history: its routes, and the sweep that keeps a version of each changing board at most every
// HISTORY_SNAPSHOT_INTERVAL_SECONDS and drops unnamed versions older than HISTORY_RETENTION_DAYS
// (src/compose/history-service.ts). The sweep runs every minute, or at the interval when shorter.
import { historyRoutes } from '../http/routes/history.js';
import type { AppModule } from './app-module.js';

/** Boards one sweep keeps a version of at most; the next sweep takes the rest. */
const BOARDS_PER_SWEEP = 50;
/** How long a snapshot waits for the requests in flight on the embedded database (foreground.ts). */
const STEP_ASIDE_MS = 1000;

export const historyModule: AppModule = {
  routes: historyRoutes,
  background: ({ background, history, config, foreground, log }) => {
    const every = Math.min(60_000, config.history.snapshotIntervalSeconds * 1000);
    background.every('board history sweep', every, () => history.sweep(BOARDS_PER_SWEEP, () => foreground.idle(STEP_ASIDE_MS), log));
  },
};
