// Nodes: the node types, the request bodies and the node as answered.
import { type Static, Type } from '@sinclair/typebox';
import { clientId, FreeObject, Timestamp, Uuid } from './common.js';
import { COORDINATE_MAX, DATA_MAX_BYTES, NODE_TEXT_MAX_CHARS } from './limits.js';

export const nodeTypes = ['video', 'url', 'note', 'document', 'pdf', 'image'] as const;
export type NodeType = (typeof nodeTypes)[number];
/** Words accepted on input: the six API types, and `youtube` for `video`. */
export const nodeTypeInputs = [...nodeTypes, 'youtube'] as const;
export type NodeTypeInput = (typeof nodeTypeInputs)[number];

const Coordinate = Type.Number({ minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX });
const Position = Type.Object({ x: Coordinate, y: Coordinate }, { additionalProperties: false, description: 'Canvas position' });
// An enum rather than a union of literals: one clear validation message and a compact OpenAPI entry.
export const nodeTypeInput = (description: string) => Type.String({ enum: [...nodeTypeInputs], description });
const NodeTypeField = nodeTypeInput('video, url, note, document, pdf or image (youtube is read as video)');
const NullableUuid = Type.Union([Uuid, Type.Null()]);

const dataDescription =
  'Keys by type. video, url: url (absolute http/https URL). note: text (string, may be empty). document: text, optional url. ' +
  'pdf, image: storagePath, publicUrl, fileSize (integer bytes) of the uploaded asset. Any type: optional label (string); ' +
  `other keys are kept as given. text is at most ${NODE_TEXT_MAX_CHARS.toLocaleString('en-US')} characters; the other keys at most ${DATA_MAX_BYTES / 1024} KiB of JSON.`;

export const CreateNodeBody = Type.Object(
  {
    id: clientId('node'),
    type: NodeTypeField,
    position: Position,
    data: Type.Object({}, { additionalProperties: true, description: dataDescription }),
    parent_node_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'A node of the same board' })),
  },
  { additionalProperties: false },
);
export type CreateNodeBody = Static<typeof CreateNodeBody>;

export const UpdateNodeBody = Type.Object(
  {
    position: Type.Optional(Position),
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Shallow merge: given keys replace, a key set to null is removed; the result must stay valid for the type',
        },
      ),
    ),
    parent_node_id: Type.Optional(
      Type.Union([Uuid, Type.Null()], { description: 'A node of the same board that is not a descendant; null detaches' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateNodeBody = Static<typeof UpdateNodeBody>;

export const Node = Type.Object({
  id: Uuid,
  node_type: Type.String({ description: nodeTypes.join(', ') }),
  position_x: Type.Number(),
  position_y: Type.Number(),
  node_data: FreeObject,
  parent_node_id: NullableUuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Node = Static<typeof Node>;
