// Webhooks (src/webhooks/): a user's endpoints that receive their boards' events, and the queue of
// deliveries to them. A delivery is inserted by the same statement that records the event
// (src/events/record.ts), so it commits or rolls back with the change and survives a crash of the
// process that made it; the sender (src/webhooks/sender.ts) sends each webhook's deliveries in the
// order of their id and marks them succeeded or failed.
//
// `webhooks.board_id` has no foreign key, like board_events: a board's deletion must not take the
// webhooks that follow it (and their queued `board.deleted`) with it. The sender disables such a
// webhook once `board.deleted` is delivered.
//
// `webhook_deliveries.webhook_id` has none either: the recording statement reads the webhooks
// without locking them (a write must never wait for, or fail because of, a webhook being deleted
// or disabled at the same moment), so it may queue a delivery for a webhook that is just going.
// Deleting a webhook deletes its deliveries; the hourly sweep removes any queued for a webhook
// already gone, which the sender never claims (it joins the webhook), and the sender fails unsent
// the ones queued for a webhook just disabled.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      url text NOT NULL,
      -- Empty: every event type.
      event_types text[] NOT NULL DEFAULT '{}',
      -- NULL: every board the owner owns.
      board_id uuid,
      -- whsec_<base64>: kept, since every delivery is signed with it.
      secret text NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      disabled_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX webhooks_owner_idx ON webhooks (owner_id, created_at, id)`.execute(db);
  // What the recording statement looks up for every change: the board's webhooks, the owner's.
  await sql`CREATE INDEX webhooks_board_idx ON webhooks (board_id) WHERE enabled AND board_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX webhooks_all_boards_idx ON webhooks (owner_id) WHERE enabled AND board_id IS NULL`.execute(db);
  await sql`
    CREATE TABLE webhook_deliveries (
      -- The order of a webhook's deliveries: a board's events are recorded under its row lock, so
      -- their ids follow the board's commit order.
      id bigserial PRIMARY KEY,
      webhook_id uuid NOT NULL,
      board_id uuid NOT NULL,
      seq bigint NOT NULL,
      event_type text NOT NULL,
      -- The exact bytes sent and signed, the same on every attempt.
      body text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      -- Set while a sender holds the delivery; another may take it once it has passed.
      lease_until timestamptz,
      last_status_code integer,
      last_error text,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz
    )`.execute(db);
  // The sender's claim: the oldest pending delivery of each webhook.
  await sql`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, id) WHERE status = 'pending'`.execute(db);
  // The list per webhook, newest first.
  await sql`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id)`.execute(db);
  // The sweep of finished deliveries.
  await sql`CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at) WHERE status <> 'pending'`.execute(db);
}
