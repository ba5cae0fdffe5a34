// The webhook sender: sends the deliveries the recording statement queued (src/events/record.ts).
// Several instances may run it on one database: a delivery is claimed with FOR UPDATE SKIP LOCKED
// and a lease, so no two send it at once, and one whose sender died is taken up again when its
// lease runs out. Only the oldest pending delivery of each webhook may be claimed, so a webhook gets
// its events in order, and one that keeps failing holds the later ones back until it succeeds or
// is given up.
//
// A 2xx is success. A 410 disables the webhook. Anything else (another status, a redirect, a
// refused or unreachable address, a timeout) is retried after the waits of WEBHOOK_RETRY_SCHEDULE
// (about a day by default); when the last retry fails too the delivery fails and the webhook is
// disabled. A disabled webhook's pending deliveries fail unsent: at once those it has, and when
// claimed any a change queued while it was being disabled (the recording statement does not lock
// webhooks).
//
// Committed changes that queued deliveries notify `webhook_deliveries`, which wakes an idle slot;
// retries coming due are found by polling every WEBHOOK_POLL_MS.
import type { Logger } from '../lib/logger.js';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { WebhookConfig } from '../config.js';
import type { Notifications } from '../db/notifications.js';
import type { Db, Executor } from '../db/schema.js';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../events/record.js';
import { now } from '../lib/ids.js';
import type { BackgroundTask } from '../jobs/background.js';
import { ClaimSlots } from '../jobs/claim-slots.js';
import { type Attempt, postDelivery } from './post.js';

const USER_AGENT = 'board-workspace-webhooks/1';
const NOT_SENT = 'Not sent: the webhook was disabled';

interface ClaimedDelivery {
  id: number;
  webhook_id: string;
  board_id: string;
  seq: number;
  event_type: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
  webhook_board_id: string | null;
  enabled: boolean;
}

/** The webhook-id of a delivery: one per event, the same on every attempt. */
export const messageId = (boardId: string, seq: number): string => `evt_${boardId}_${seq}`;

export class WebhookSender implements BackgroundTask {
  readonly name = 'webhook sender';
  private readonly slots: ClaimSlots;
  private readonly stopped = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly options: WebhookConfig,
    notifications: Notifications,
    private readonly log: Logger,
  ) {
    this.slots = new ClaimSlots(
      options,
      () => this.sendOne(),
      (error) => this.log.error({ err: error }, 'webhook sender: sending failed'),
    );
    notifications.on(WEBHOOK_DELIVERIES_CHANNEL, () => this.wake());
    // Notifications may have been missed while the listening connection was down.
    notifications.onResume(() => this.wake());
  }

  /** The lease outlasts an attempt (its timeout) with room to record the outcome. */
  private get leaseSeconds(): number {
    return Math.ceil((2 * this.options.timeoutMs) / 1000) + 5;
  }

  start(): void {
    this.slots.start();
  }

  /** Looks for work now rather than at the next poll. */
  wake(): void {
    this.slots.wake();
  }

  /** Stops claiming, interrupts the attempts under way and hands their deliveries back. */
  async stop(): Promise<void> {
    const stopped = this.slots.stop();
    this.stopped.abort();
    await stopped;
  }

  /**
   * Claims the due head of one webhook's queue, in one statement: each webhook's oldest pending
   * delivery, when it is due and not leased, is a candidate; the row is locked with SKIP LOCKED and
   * its status and lease re-checked under the lock, so two senders never take the same.
   */
  private async claim(): Promise<ClaimedDelivery | undefined> {
    const { rows } = await sql<ClaimedDelivery>`
      WITH heads AS (
        SELECT h.id FROM webhooks w
        CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at, d.lease_until FROM webhook_deliveries d
          WHERE d.webhook_id = w.id AND d.status = 'pending'
          ORDER BY d.id
          LIMIT 1
        ) h
        WHERE h.next_attempt_at <= clock_timestamp()
          AND (h.lease_until IS NULL OR h.lease_until < clock_timestamp())
      ), next AS (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.id IN (SELECT id FROM heads) AND d.status = 'pending'
          AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
        ORDER BY d.next_attempt_at, d.id
        LIMIT 1
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET attempts = d.attempts + 1, lease_until = clock_timestamp() + make_interval(secs => ${this.leaseSeconds})
      FROM next, webhooks w
      WHERE d.id = next.id AND w.id = d.webhook_id
      RETURNING d.id, d.webhook_id, d.board_id, d.seq, d.event_type, d.body, d.attempts, w.url, w.secret,
        w.board_id AS webhook_board_id, w.enabled`.execute(this.db);
    return rows[0];
  }

  /** Claims and sends one delivery; false when none was due. */
  private async sendOne(): Promise<boolean> {
    const delivery = await this.claim();
    if (!delivery) return false;
    // There may be more: let the next idle slot look.
    this.wake();
    if (this.slots.stopping) {
      await this.release(delivery);
      return true;
    }
    if (!delivery.enabled) {
      await this.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: NOT_SENT, lease_until: null, attempts: delivery.attempts - 1 })
        .where('id', '=', delivery.id)
        .where('attempts', '=', delivery.attempts)
        .where('status', '=', 'pending')
        .execute();
      return true;
    }
    const msgId = messageId(delivery.board_id, delivery.seq);
    let attempt: Attempt;
    try {
      // One instant for the header and the signature, which covers it in whole seconds.
      const sentAt = new Date();
      const signature = new Webhook(delivery.secret).sign(msgId, sentAt, delivery.body);
      attempt = await postDelivery(
        delivery.url,
        {
          'webhook-id': msgId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
          'user-agent': USER_AGENT,
        },
        delivery.body,
        { allowedHosts: this.options.allowedHosts, timeoutMs: this.options.timeoutMs, signal: this.stopped.signal },
      );
    } catch (error) {
      if (this.slots.stopping) {
        await this.release(delivery);
        return true;
      }
      this.log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed');
      attempt = { error: 'Internal error while sending' };
    }
    await this.record(delivery, attempt);
    return true;
  }

  /** Records an attempt's outcome, unless the delivery was taken over meanwhile (its lease ran out). */
  private async record(delivery: ClaimedDelivery, attempt: Attempt): Promise<void> {
    const at = now();
    const schedule = this.options.retryScheduleMs;
    await this.db.transaction().execute(async (trx) => {
      const mine = trx
        .updateTable('webhook_deliveries')
        .where('id', '=', delivery.id)
        .where('attempts', '=', delivery.attempts)
        .where('status', '=', 'pending');
      const outcome = { last_status_code: attempt.status ?? null, lease_until: null };
      if (attempt.error === undefined) {
        const done = await mine
          .set({ ...outcome, status: 'succeeded', last_error: null, delivered_at: at })
          .returning('id')
          .executeTakeFirst();
        // A webhook of one board has nothing more to send once the board is gone.
        if (done && delivery.event_type === 'board.deleted' && delivery.webhook_board_id === delivery.board_id) {
          await disableWebhook(trx, delivery.webhook_id, 'The board was deleted', at);
        }
        return;
      }
      if (attempt.status === 410) {
        const done = await mine
          .set({ ...outcome, status: 'failed', last_error: attempt.error })
          .returning('id')
          .executeTakeFirst();
        if (done) await disableWebhook(trx, delivery.webhook_id, 'The endpoint answered 410 Gone', at);
        return;
      }
      const wait = schedule[delivery.attempts - 1];
      if (wait !== undefined) {
        await mine.set({ ...outcome, last_error: attempt.error, next_attempt_at: new Date(at.getTime() + wait) }).execute();
        return;
      }
      const done = await mine
        .set({ ...outcome, status: 'failed', last_error: attempt.error })
        .returning('id')
        .executeTakeFirst();
      if (done) {
        await disableWebhook(
          trx,
          delivery.webhook_id,
          `A delivery failed ${delivery.attempts} attempts in a row: ${attempt.error}`.slice(0, 500),
          at,
        );
      }
    });
  }

  /** A delivery interrupted by a clean stop does not count as an attempt. */
  private async release(delivery: ClaimedDelivery): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null, attempts: delivery.attempts - 1 })
      .where('id', '=', delivery.id)
      .where('attempts', '=', delivery.attempts)
      .where('status', '=', 'pending')
      .execute()
      .catch(() => {});
  }
}

/** Disables a webhook; its pending deliveries fail unsent. */
async function disableWebhook(trx: Executor, webhookId: string, reason: string, at: Date): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({ enabled: false, disabled_reason: reason, disabled_at: at, updated_at: at })
    .where('id', '=', webhookId)
    .where('enabled', '=', true)
    .execute();
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: NOT_SENT, lease_until: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}
