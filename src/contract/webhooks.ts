// Webhooks: the create body, the webhook as listed, the webhook as created (with its signing secret,
// once), and its deliveries (src/webhooks/).
import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';
import { BoardEventTypeSchema } from './events.js';

/** The longest endpoint URL accepted. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: WEBHOOK_URL_MAX_LENGTH,
      description:
        'The endpoint: https (http only for hosts in WEBHOOK_ALLOWED_HOSTS), without credentials; private, loopback and link-local addresses are refused',
    }),
    event_types: Type.Optional(
      Type.Array(BoardEventTypeSchema, {
        maxItems: 50,
        uniqueItems: true,
        description: 'The event types to send; empty or absent: every type',
      }),
    ),
    board_id: Type.Optional(
      Type.Union([Uuid, Type.Null()], {
        description: "Only this board's events (a board the caller may read); absent or null: every board the caller owns",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const Webhook = Type.Object({
  id: Uuid,
  url: Type.String(),
  event_types: Type.Array(BoardEventTypeSchema, { description: 'Empty: every type' }),
  board_id: Type.Union([Uuid, Type.Null()], { description: 'null: every board the owner owns' }),
  enabled: Type.Boolean({
    description: 'false once disabled: deliveries failed for about a day, the endpoint answered 410, or its board was deleted',
  }),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  disabled_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Webhook = Static<typeof Webhook>;

export const CreatedWebhook = Type.Intersect([
  Webhook,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (whsec_<base64>, Standard Webhooks); shown only in this response',
    }),
  }),
]);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const WebhookDeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const WebhookDelivery = Type.Object({
  id: Type.Integer({ description: "The delivery's number; a webhook's deliveries are sent in this order" }),
  message_id: Type.String({ description: 'The webhook-id header, the same on every attempt' }),
  board_id: Uuid,
  seq: Type.Integer({ description: "The event's sequence number on its board" }),
  event_type: BoardEventTypeSchema,
  status: WebhookDeliveryStatus,
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null once succeeded or failed' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's last HTTP status; null when none" }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  delivered_at: NullableTimestamp,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;
