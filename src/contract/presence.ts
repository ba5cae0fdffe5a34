// Presence: who else has a board open, and where their cursor and selection are. Sent through the
// service to the board's event streams (event `presence`), never stored as board content.
import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from './common.js';
import { COORDINATE_MAX, IDS_MAX_ITEMS } from './limits.js';

export const PresenceSessionId = Type.String({
  pattern: '^[A-Za-z0-9_-]{8,64}$',
  description: "The client's session on the board (one per open tab), 8..64 of A-Z a-z 0-9 _ -",
});

const Coordinate = Type.Number({ minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX });
const Point = Type.Object({ x: Coordinate, y: Coordinate });

/** The most nodes one announcement may show being dragged: as many as a selection holds. */
export const MAX_DRAGGED = IDS_MAX_ITEMS;

const DragCoordinate = Type.Integer({ minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX });

export const DraggedNode = Type.Object(
  { node_id: Uuid, x: DragCoordinate, y: DragCoordinate },
  { additionalProperties: false, description: 'A node being dragged and where it is now (canvas coordinates, whole numbers)' },
);
export type DraggedNode = Static<typeof DraggedNode>;

export const PresenceBody = Type.Object(
  {
    session_id: PresenceSessionId,
    cursor: Type.Optional(Type.Union([Point, Type.Null()], { description: 'Canvas coordinates of the pointer; null when off the canvas' })),
    selection: Type.Optional(Type.Array(Uuid, { maxItems: IDS_MAX_ITEMS, description: 'Ids of the selected nodes' })),
    dragging: Type.Optional(
      Type.Array(DraggedNode, {
        maxItems: MAX_DRAGGED,
        description:
          'The nodes this session is dragging now, each where it is (a live preview for the others; the move is saved by its own update on drop). Each must be in `selection`. Empty or absent: not dragging.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PresenceBody = Static<typeof PresenceBody>;

export const Presence = Type.Object({
  session_id: Type.String(),
  user_id: Uuid,
  initial: Type.String({ description: "The first letter of the user's name or email, upper case" }),
  color: Type.String({ description: "The user's colour, #rrggbb, the same on every board" }),
  cursor: Type.Union([Point, Type.Null()]),
  selection: Type.Array(Uuid),
  dragging: Type.Array(DraggedNode, { description: 'The nodes the session is dragging now (empty when not dragging)' }),
  left: Type.Boolean({ description: 'true: the session has left the board' }),
});
export type Presence = Static<typeof Presence>;
