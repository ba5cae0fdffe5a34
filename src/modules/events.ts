// Board events: the change log's routes, the hourly sweep of events (and of the ids of deleted nodes
// and edges) older than EVENT_RETENTION_DAYS and of presence sessions gone quiet, and ending every
// open stream when the app closes.
import { eventRoutes } from '../http/routes/events.js';
import type { AppModule } from './app-module.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export const eventsModule: AppModule = {
  routes(app, services) {
    eventRoutes(app, services);
    // Open streams would keep the server from closing.
    app.addHook('preClose', async () => services.events.endAll());
  },
  // The ids of deleted nodes and edges (src/nodes/client-ids.ts) are kept as long as the events.
  background: ({ background, db, config, boardEvents }) => {
    background.every('board event sweep', HOUR_MS, async () => {
      const before = new Date(Date.now() - config.eventRetentionDays * DAY_MS);
      await db.deleteFrom('board_events').where('created_at', '<', before).execute();
      await db.deleteFrom('deleted_ids').where('deleted_at', '<', before).execute();
    });
    background.every('presence session sweep', HOUR_MS, () => boardEvents.sweepPresence());
  },
};
