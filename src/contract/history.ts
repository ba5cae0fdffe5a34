// Board history (issue 31): a board's versions, a version's content as it was, and the restore of a
// version (or of some nodes of it) as new changes.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from './common.js';
import { Board } from './boards.js';
import { Edge } from './edges.js';
import { Node } from './nodes.js';
import { HISTORY_NAME_MAX_CHARS, IDS_MAX_ITEMS } from './limits.js';

export const VersionKind = Type.Union([Type.Literal('auto'), Type.Literal('named'), Type.Literal('restore_point')], {
  description:
    'auto: taken by the service while the board changes (at most one per HISTORY_SNAPSHOT_INTERVAL_SECONDS); named: a version someone named ' +
    '(kept past HISTORY_RETENTION_DAYS); restore_point: the board just before a restore, so that the restore can be undone',
});

export const BoardVersion = Type.Object({
  id: Uuid,
  board_id: Uuid,
  kind: VersionKind,
  name: Type.Union([Type.String(), Type.Null()]),
  /** Who named the version or restored; null for automatic versions. */
  created_by: Type.Union([Uuid, Type.Null()], { description: 'The user who named it or whose restore kept it; null for auto' }),
  event_seq: Type.Integer({ description: "The board's event sequence number the version was read at (docs/events.md)" }),
  node_count: Type.Integer(),
  edge_count: Type.Integer(),
  size_bytes: Type.Integer({ description: 'Bytes the version takes, compressed' }),
  created_at: Timestamp,
});
export type BoardVersion = Static<typeof BoardVersion>;

/** The board's own fields as a version keeps them. */
export const VersionBoard = Type.Object({
  name: Board.properties.name,
  viewport_x: Board.properties.viewport_x,
  viewport_y: Board.properties.viewport_y,
  viewport_zoom: Board.properties.viewport_zoom,
});
export type VersionBoard = Static<typeof VersionBoard>;

export const BoardVersionContent = Type.Object({
  ...BoardVersion.properties,
  board: VersionBoard,
  nodes: Type.Array(Node),
  edges: Type.Array(Edge),
});
export type BoardVersionContent = Static<typeof BoardVersionContent>;

export const CreateVersionBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: HISTORY_NAME_MAX_CHARS,
      pattern: '\\S',
      description: `The version's name, 1..${HISTORY_NAME_MAX_CHARS} characters`,
    }),
  },
  { additionalProperties: false },
);
export type CreateVersionBody = Static<typeof CreateVersionBody>;

export const RestoreBody = Type.Object(
  {
    node_ids: Type.Optional(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: IDS_MAX_ITEMS,
        description:
          'Restore only these nodes (each must be in the version) and the edges of the version between them and nodes on the board; ' +
          'omitted: the whole board',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RestoreBody = Static<typeof RestoreBody>;

const Count = Type.Integer({ minimum: 0 });
export const RestoreResult = Type.Object({
  version_id: Uuid,
  restore_point_id: Type.Union([Uuid, Type.Null()], {
    description: 'The version kept of the board just before the restore (restore it to undo); null when the restore changed nothing',
  }),
  nodes_created: Count,
  nodes_updated: Count,
  nodes_deleted: Count,
  edges_created: Count,
  edges_updated: Count,
  edges_deleted: Count,
});
export type RestoreResult = Static<typeof RestoreResult>;
