// Webhooks: their routes, the sender of their deliveries, and the hourly sweep of finished
// deliveries older than EVENT_RETENTION_DAYS (pending ones stay until sent or given up) and of
// deliveries whose webhook is gone (its owner was deleted, or it was deleted while a change queued
// one: 0012-webhooks.ts).
import { sql } from 'kysely';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { WebhookSender } from '../webhooks/sender.js';
import type { AppModule } from './app-module.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export const webhooksModule: AppModule = {
  routes: webhookRoutes,
  background({ background, db, config, notifications, log }) {
    background.add(new WebhookSender(db, config.webhooks, notifications, log));
    background.every('webhook delivery sweep', HOUR_MS, async () => {
      await db
        .deleteFrom('webhook_deliveries')
        .where('status', '<>', 'pending')
        .where('created_at', '<', new Date(Date.now() - config.eventRetentionDays * DAY_MS))
        .execute();
      await sql`DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`.execute(db);
    });
  },
};
