// Boards: the request bodies and the board as answered, with the owner's flow_state.
import { type Static, Type } from '@sinclair/typebox';
import { FreeObject, Timestamp, Uuid } from './common.js';
import { BoardPermissions, BoardRole } from './members.js';
import { BOARD_NAME_MAX_CHARS, COORDINATE_MAX, ZOOM_MAX } from './limits.js';

const Name = Type.String({
  minLength: 1,
  maxLength: BOARD_NAME_MAX_CHARS,
  pattern: '\\S',
  description: `Board name, 1..${BOARD_NAME_MAX_CHARS} characters`,
});
export const AccessLevel = Type.Union([Type.Literal('view'), Type.Literal('edit')]);
export type AccessLevel = Static<typeof AccessLevel>;
const Coordinate = Type.Number({ minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX });
const Zoom = Type.Number({ exclusiveMinimum: 0, maximum: ZOOM_MAX });

const AutoRead = Type.Boolean({
  description:
    'Whether the web app reads (vectorizes) each note, document, file, link and video automatically as it is added or its text ' +
    'changes (default true). A setting for clients: the service itself never vectorizes on its own',
});

const BoardInputFields = {
  is_public: Type.Optional(Type.Boolean()),
  public_access_level: Type.Optional(
    Type.Union([AccessLevel, Type.Null()], { description: 'view or edit; null when not public; view when made public without one' }),
  ),
  viewport_x: Type.Optional(Coordinate),
  viewport_y: Type.Optional(Coordinate),
  viewport_zoom: Type.Optional(Zoom),
  auto_read: Type.Optional(AutoRead),
};

export const CreateBoardBody = Type.Object({ name: Name, ...BoardInputFields }, { additionalProperties: false });
export type CreateBoardBody = Static<typeof CreateBoardBody>;
export const UpdateBoardBody = Type.Object(
  { name: Type.Optional(Name), ...BoardInputFields },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateBoardBody = Static<typeof UpdateBoardBody>;

export const BoardListItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  is_public: Type.Boolean(),
  role: BoardRole,
});
export type BoardListItem = Static<typeof BoardListItem>;

export const BoardListAccess = Type.Union([Type.Literal('all'), Type.Literal('owned'), Type.Literal('shared')], {
  description: 'all (default): the boards the caller owns and those shared with them; owned: their own; shared: those they are a member of',
});
export type BoardListAccess = Static<typeof BoardListAccess>;
export const Board = Type.Object({
  id: Uuid,
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  is_public: Type.Boolean(),
  public_access_level: Type.Union([AccessLevel, Type.Null()]),
  viewport_x: Type.Number(),
  viewport_y: Type.Number(),
  viewport_zoom: Type.Number(),
  auto_read: AutoRead,
});
export type Board = Static<typeof Board>;
const FlowState = Type.Object({
  viewMode: Type.String(),
  viewport: Type.Object({ x: Type.Number(), y: Type.Number(), zoom: Type.Number() }),
  nodes: Type.Array(
    Type.Object({
      id: Uuid,
      type: Type.String({ description: 'Canvas component: videoNode, urlNode, noteNode, documentNode, pdfNode or imageNode' }),
      position: Type.Object({ x: Type.Number(), y: Type.Number() }),
      data: FreeObject,
      parentId: Type.Optional(Uuid),
    }),
  ),
  edges: Type.Array(Type.Object({ id: Uuid, source: Uuid, target: Uuid, type: Type.String(), data: FreeObject })),
});
/** The single-board read: the caller's role and permissions; flow_state only for the owner (assembled as JSON text by board-service.ts). */
export const FullBoard = Type.Intersect([
  Board,
  Type.Object({
    role: Type.Union([BoardRole, Type.Null()], {
      description: "The caller's role: owner, or their member role; null for someone reading a public board they are not a member of",
    }),
    permissions: BoardPermissions,
    flow_state: Type.Optional(FlowState),
  }),
]);
