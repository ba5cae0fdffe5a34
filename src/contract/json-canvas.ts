// JSON Canvas 1.0 (https://jsoncanvas.org/spec/1.0/), the open file format for canvases: the shape
// of an imported `.canvas` document, checked on import, and of the one an export answers. Unknown
// keys are allowed (the format's tools add their own), and the service's own are under
// `x-board-workspace` (see docs/json-canvas.md).
import { type Static, Type } from '@sinclair/typebox';
import {
  BOARD_NAME_MAX_CHARS,
  CANVAS_COORDINATE_MAX,
  CANVAS_ID_MAX_CHARS,
  CANVAS_MAX_ITEMS,
  CANVAS_SIZE_MAX,
  LABEL_MAX_CHARS,
  NODE_TEXT_MAX_CHARS,
  PATH_MAX_CHARS,
  URL_MAX_CHARS,
} from './limits.js';

const Coordinate = Type.Number({ minimum: -CANVAS_COORDINATE_MAX, maximum: CANVAS_COORDINATE_MAX });
const Size = Type.Number({ minimum: 0, maximum: CANVAS_SIZE_MAX });
const Id = Type.String({ minLength: 1, maxLength: CANVAS_ID_MAX_CHARS });
export const CanvasColor = Type.String({
  pattern: '^([1-6]|#[0-9a-fA-F]{6})$',
  description: 'A preset colour "1".."6" (red, orange, yellow, green, cyan, purple) or #rrggbb',
});
const Side = Type.Union([Type.Literal('top'), Type.Literal('right'), Type.Literal('bottom'), Type.Literal('left')]);
const End = Type.Union([Type.Literal('none'), Type.Literal('arrow')]);

const common = { id: Id, x: Coordinate, y: Coordinate, width: Size, height: Size, color: Type.Optional(CanvasColor) };

export const CanvasNode = Type.Union([
  Type.Object({ ...common, type: Type.Literal('text'), text: Type.String({ maxLength: NODE_TEXT_MAX_CHARS }) }),
  Type.Object({
    ...common,
    type: Type.Literal('file'),
    file: Type.String({ minLength: 1, maxLength: PATH_MAX_CHARS }),
    subpath: Type.Optional(Type.String({ maxLength: PATH_MAX_CHARS })),
  }),
  Type.Object({ ...common, type: Type.Literal('link'), url: Type.String({ maxLength: URL_MAX_CHARS }) }),
  Type.Object({
    ...common,
    type: Type.Literal('group'),
    label: Type.Optional(Type.String({ maxLength: LABEL_MAX_CHARS })),
    background: Type.Optional(Type.String({ maxLength: PATH_MAX_CHARS })),
    backgroundStyle: Type.Optional(Type.Union([Type.Literal('cover'), Type.Literal('ratio'), Type.Literal('repeat')])),
  }),
]);
export type CanvasNode = Static<typeof CanvasNode>;

export const CanvasEdge = Type.Object({
  id: Id,
  fromNode: Id,
  toNode: Id,
  fromSide: Type.Optional(Side),
  toSide: Type.Optional(Side),
  fromEnd: Type.Optional(End),
  toEnd: Type.Optional(End),
  color: Type.Optional(CanvasColor),
  label: Type.Optional(Type.String({ maxLength: LABEL_MAX_CHARS })),
});
export type CanvasEdge = Static<typeof CanvasEdge>;

/** What an export adds so that importing it again restores the board exactly (other tools ignore it). */
export const CanvasExtension = Type.Object({
  version: Type.Literal(1),
  board: Type.Object({ name: Type.String({ maxLength: BOARD_NAME_MAX_CHARS }) }),
  nodes: Type.Record(
    Type.String(),
    Type.Object({
      type: Type.String(),
      data: Type.Object({}, { additionalProperties: true }),
      parent: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  edges: Type.Record(Type.String(), Type.Object({ type: Type.String(), data: Type.Object({}, { additionalProperties: true }) })),
});
export type CanvasExtension = Static<typeof CanvasExtension>;

export const EXTENSION_KEY = 'x-board-workspace';

export const CanvasDocument = Type.Object(
  {
    nodes: Type.Optional(Type.Array(CanvasNode, { maxItems: CANVAS_MAX_ITEMS })),
    edges: Type.Optional(Type.Array(CanvasEdge, { maxItems: CANVAS_MAX_ITEMS })),
    [EXTENSION_KEY]: Type.Optional(CanvasExtension),
  },
  { additionalProperties: true, description: 'A JSON Canvas 1.0 document' },
);
export type CanvasDocument = Static<typeof CanvasDocument>;

export const ImportWarning = Type.Object({
  path: Type.String({ description: 'JSON pointer into the imported document' }),
  message: Type.String(),
});
export type ImportWarning = Static<typeof ImportWarning>;
