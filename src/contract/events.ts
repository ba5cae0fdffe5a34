// Board events: one committed change to a board's content or settings, as its event stream and its
// event list carry it (src/events/).
import { type Static, Type } from '@sinclair/typebox';
import { List, Timestamp, Uuid } from './common.js';
import { PresenceSessionId } from './presence.js';

export const BoardEventTypes = [
  'node.created',
  'node.updated',
  'node.deleted',
  'edge.created',
  'edge.updated',
  'edge.deleted',
  'board.updated',
  'board.deleted',
  'asset.created',
  'asset.deleted',
  'document.completed',
  'document.failed',
  'member.added',
  'member.updated',
  'member.removed',
  'comment.created',
  'comment.updated',
  'comment.deleted',
] as const;
export type BoardEventType = (typeof BoardEventTypes)[number];
export const BoardEventTypeSchema = Type.Union(
  BoardEventTypes.map((t) => Type.Literal(t)),
  { description: 'What changed' },
);

export const BoardEvent = Type.Object({
  seq: Type.Integer({ minimum: 1, description: "The event's number on its board: 1, 2, 3, … in commit order, without gaps" }),
  type: BoardEventTypeSchema,
  board_id: Uuid,
  actor_id: Type.Union([Uuid, Type.Null()], { description: 'The user who made the change (for a job, who queued it)' }),
  created_at: Timestamp,
  data: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'The resource as the API answers it (node, edge, board, asset, or the job with its node_id); for a deletion { id }',
    },
  ),
});
export type BoardEvent = Static<typeof BoardEvent>;

export const BoardEventQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Events after this sequence number (a stream: as Last-Event-ID)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Page size of the list, 1..500' })),
    session_id: Type.Optional({
      ...PresenceSessionId,
      description: "A stream's presence session: it leaves the board when the stream ends",
    }),
  },
  { additionalProperties: false },
);
export type BoardEventQuery = Static<typeof BoardEventQuery>;

/** A list of events (List), its cursor a sequence number, with the board's latest number and the reset flag. */
export const BoardEventPage = Type.Object({
  ...List(BoardEvent).properties,
  cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'The last sequence number listed, for the next `after`; null when none',
  }),
  latest_seq: Type.Integer({ description: "The board's latest sequence number" }),
  reset: Type.Boolean({
    description: 'true when `after` is older than the events kept (or ahead of the board): reload the board, then list from latest_seq',
  }),
});
export type BoardEventPage = Static<typeof BoardEventPage>;
