// Board events: the change log's routes, the hourly sweep of events older than
// EVENT_RETENTION_DAYS and of presence sessions gone quiet, and ending every open stream when the app
// closes.
import { eventRoutes } from '../http/routes/events.js';
import { sweepPresence } from '../events/presence.js';
import type { AppModule } from './app-module.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export const eventsModule: AppModule = {
  routes(app, services) {
    eventRoutes(app, services);
    // Open streams would keep the server from closing.
    app.addHook('preClose', async () => services.events.endAll());
  },
  background: ({ background, db, config }) => {
    background.every('board event sweep', HOUR_MS, () =>
      db
        .deleteFrom('board_events')
        .where('created_at', '<', new Date(Date.now() - config.eventRetentionDays * DAY_MS))
        .execute(),
    );
    background.every('presence session sweep', HOUR_MS, () => sweepPresence(db));
  },
};
