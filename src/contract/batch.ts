// The batch: many node and edge writes in one all-or-nothing request (POST /v1/boards/{id}/batch).
// Each operation carries the fields of its single-resource request; a new node may be named by a
// client-chosen `ref`, which later operations use in place of an id.
import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from './common.js';
import { Edge } from './edges.js';
import { CreateEdgeBody, UpdateEdgeBody } from './edges.js';
import { CreateNodeBody, Node, UpdateNodeBody } from './nodes.js';
import { BATCH_MAX_OPERATIONS } from './limits.js';

const Ref = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A name for the node this operation creates, for later operations of the batch',
});
const IfMatch = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: 'As the If-Match header: the operation fails with 412 unless the resource still has this ETag',
});

export const BatchOperation = Type.Union([
  Type.Object(
    {
      op: Type.Literal('create_node'),
      ref: Type.Optional(Ref),
      ...CreateNodeBody.properties,
      parent_ref: Type.Optional({ ...Ref, description: 'The parent, by the ref of a node created earlier in the batch' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      op: Type.Literal('update_node'),
      id: Uuid,
      if_match: Type.Optional(IfMatch),
      ...UpdateNodeBody.properties,
      parent_ref: Type.Optional({ ...Ref, description: 'The new parent, by the ref of a node created earlier in the batch' }),
    },
    { additionalProperties: false },
  ),
  Type.Object({ op: Type.Literal('delete_node'), id: Uuid, if_match: Type.Optional(IfMatch) }, { additionalProperties: false }),
  Type.Object(
    {
      op: Type.Literal('create_edge'),
      id: CreateEdgeBody.properties.id,
      source_node_id: Type.Optional(CreateEdgeBody.properties.source_node_id),
      target_node_id: Type.Optional(CreateEdgeBody.properties.target_node_id),
      source_ref: Type.Optional({ ...Ref, description: 'The source, by the ref of a node created earlier in the batch' }),
      target_ref: Type.Optional({ ...Ref, description: 'The target, by the ref of a node created earlier in the batch' }),
      type: CreateEdgeBody.properties.type,
      data: CreateEdgeBody.properties.data,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { op: Type.Literal('update_edge'), id: Uuid, if_match: Type.Optional(IfMatch), ...UpdateEdgeBody.properties },
    { additionalProperties: false },
  ),
  Type.Object({ op: Type.Literal('delete_edge'), id: Uuid, if_match: Type.Optional(IfMatch) }, { additionalProperties: false }),
]);
export type BatchOperation = Static<typeof BatchOperation>;

export const BatchBody = Type.Object(
  { operations: Type.Array(BatchOperation, { minItems: 1, maxItems: BATCH_MAX_OPERATIONS }) },
  { additionalProperties: false },
);
export type BatchBody = Static<typeof BatchBody>;

export const BatchResult = Type.Object({
  op: Type.String(),
  /** The created or changed resource; for a deletion only its id. */
  node: Type.Optional(Node),
  edge: Type.Optional(Edge),
  id: Uuid,
  ref: Type.Optional(Type.String()),
});
export type BatchResult = Static<typeof BatchResult>;
