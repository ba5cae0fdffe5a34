// Webhooks of a user: create (the signing secret is returned once), list, read, delete, and the
// deliveries of one. A user only ever sees their own webhooks; another's is "Webhook not found".
import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { findVisibleBoard } from '../access/board-access.js';
import type { WebhookConfig } from '../config.js';
import { fieldsOf } from '../contract/common.js';
import type { BoardEventType } from '../contract/events.js';
import { type CreatedWebhook, type CreateWebhookBody, Webhook, type WebhookDelivery } from '../contract/webhooks.js';
import type { Db } from '../db/schema.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, type Page, type PageRequest, toPage } from '../lib/pagination.js';
import { checkEndpointUrl } from '../lib/outbound-address.js';
import { messageId } from './sender.js';

/** The webhook's columns, in the order of its schema. */
const columns = fieldsOf(Webhook);

/** A secret in the Standard Webhooks form: whsec_ and 32 random bytes in base64. */
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const toWebhook = <T extends { event_types: string[] }>(row: T) => ({ ...row, event_types: row.event_types as BoardEventType[] });

/** The app's webhooks, built once per app with the database and the webhook settings (src/modules/services.ts). */
export class WebhookService {
  constructor(private readonly deps: { db: Db; config: WebhookConfig }) {}

  /**
   * Creates a webhook. A board filter must name a board the caller may read. The caller's row is
   * locked while counting, so two creates at once cannot both take the last of WEBHOOKS_MAX_PER_USER.
   */
  async create(principal: Principal, input: CreateWebhookBody): Promise<CreatedWebhook> {
    const { db, config } = this.deps;
    const url = checkEndpointUrl(input.url, config.allowedHosts);
    const eventTypes = [...new Set(input.event_types ?? [])];
    const boardId = input.board_id ?? null;
    return db.transaction().execute(async (trx) => {
      if (boardId !== null) await findVisibleBoard(trx, principal, boardId);
      await trx.selectFrom('users').select('id').where('id', '=', principal.userId).forUpdate().executeTakeFirst();
      const { n } = await trx
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', principal.userId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= config.maxPerUser) {
        throw conflict(`You already have ${config.maxPerUser} webhooks, the most allowed per user; delete one you no longer use first`);
      }
      const at = now();
      const secret = newSecret();
      const row = await trx
        .insertInto('webhooks')
        .values({
          id: newId(),
          owner_id: principal.userId,
          url,
          event_types: eventTypes,
          board_id: boardId,
          secret,
          disabled_reason: null,
          disabled_at: null,
          created_at: at,
          updated_at: at,
        })
        .returning(columns)
        .executeTakeFirstOrThrow();
      return { ...toWebhook(row), secret };
    });
  }

  async list(userId: string, page: PageRequest, list: string): Promise<Page<Webhook>> {
    const { db } = this.deps;
    const rows = await applyPage(db.selectFrom('webhooks').select(columns).where('owner_id', '=', userId), page, 'webhooks').execute();
    return toPage(rows.map(toWebhook), page, list);
  }

  async get(userId: string, webhookId: string): Promise<Webhook> {
    const { db } = this.deps;
    const row = await db
      .selectFrom('webhooks')
      .select(columns)
      .where('id', '=', webhookId)
      .where('owner_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw notFound('Webhook');
    return toWebhook(row);
  }

  /** Deletes a webhook of the user and its deliveries (pending ones are not sent). */
  async delete(userId: string, webhookId: string): Promise<void> {
    const { db } = this.deps;
    await db.transaction().execute(async (trx) => {
      const row = await trx
        .deleteFrom('webhooks')
        .where('id', '=', webhookId)
        .where('owner_id', '=', userId)
        .returning('id')
        .executeTakeFirst();
      if (!row) throw notFound('Webhook');
      await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute();
    });
  }

  /** A page of a webhook's deliveries, newest first; the cursor is the last delivery's id. */
  async listDeliveries(userId: string, webhookId: string, query: { limit?: number; cursor?: string }): Promise<Page<WebhookDelivery>> {
    const { db } = this.deps;
    await this.get(userId, webhookId);
    const limit = query.limit ?? 20;
    if (query.cursor !== undefined && !/^\d{1,15}$/.test(query.cursor)) throw invalid('cursor is not a valid cursor');
    let q = db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'board_id',
        'seq',
        'event_type',
        'status',
        'attempts',
        'next_attempt_at',
        'last_status_code',
        'last_error',
        'created_at',
        'delivered_at',
      ])
      .where('webhook_id', '=', webhookId);
    if (query.cursor !== undefined) q = q.where('id', '<', Number(query.cursor));
    const rows = await q
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const has_more = rows.length > limit;
    const data = rows.slice(0, limit).map((row) => ({
      id: row.id,
      message_id: messageId(row.board_id, row.seq),
      board_id: row.board_id,
      seq: row.seq,
      event_type: row.event_type as BoardEventType,
      status: row.status,
      attempts: row.attempts,
      next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
      last_status_code: row.last_status_code,
      last_error: row.last_error,
      created_at: row.created_at,
      delivered_at: row.delivered_at,
    }));
    return { data, has_more, cursor: has_more ? String(data[data.length - 1]!.id) : null };
  }
}
