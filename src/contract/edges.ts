// Edges: the request bodies and the edge as answered.
import { type Static, Type } from '@sinclair/typebox';
import { clientId, FreeObject, Timestamp, Uuid } from './common.js';
import { DATA_MAX_BYTES, EDGE_TYPE_MAX_CHARS } from './limits.js';

const EdgeType = Type.String({
  minLength: 1,
  maxLength: EDGE_TYPE_MAX_CHARS,
  description: `Edge type, 1..${EDGE_TYPE_MAX_CHARS} characters`,
});
const EdgeData = Type.Object(
  {},
  { additionalProperties: true, description: `Free-form metadata (e.g. a numeric weight), at most ${DATA_MAX_BYTES / 1024} KiB of JSON` },
);

export const CreateEdgeBody = Type.Object(
  {
    id: clientId('edge'),
    source_node_id: Type.String({ format: 'uuid', description: 'A node of this board' }),
    target_node_id: Type.String({ format: 'uuid', description: 'A node of this board (may equal the source)' }),
    type: Type.Optional({ ...EdgeType, default: 'default' }),
    data: Type.Optional({ ...EdgeData, description: `${EdgeData.description}; default {}` }),
  },
  { additionalProperties: false },
);
export type CreateEdgeBody = Static<typeof CreateEdgeBody>;

export const UpdateEdgeBody = Type.Object(
  { type: Type.Optional(EdgeType), data: Type.Optional({ ...EdgeData, description: 'Replaces edge_data' }) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEdgeBody = Static<typeof UpdateEdgeBody>;

export const Edge = Type.Object({
  id: Uuid,
  board_id: Uuid,
  source_node_id: Uuid,
  target_node_id: Uuid,
  edge_type: Type.String(),
  edge_data: FreeObject,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Edge = Static<typeof Edge>;
