// GET /v1/me/usage: what the caller stores against each of their quotas (USER_MAX_BOARDS,
// USER_MAX_STORED_BYTES; docs/api.md, Quotas).
import { type Static, Type } from '@sinclair/typebox';

const Count = Type.Integer({ minimum: 0 });

export const Usage = Type.Object({
  object: Type.Literal('usage'),
  boards: Type.Object({ used: Count, limit: Count }, { description: 'Boards the caller owns, against USER_MAX_BOARDS' }),
  stored_bytes: Type.Object(
    {
      used: Type.Integer({ minimum: 0, description: 'node_data + assets + chunks' }),
      limit: Count,
      node_data: Type.Integer({ minimum: 0, description: 'Bytes of node and edge data (their JSON text) on the caller’s boards' }),
      assets: Type.Integer({ minimum: 0, description: 'Bytes of asset files on the caller’s boards' }),
      chunks: Type.Integer({ minimum: 0, description: 'Bytes of document chunk text (vectorized documents) on the caller’s boards' }),
    },
    { description: 'Bytes stored on the boards the caller owns, against USER_MAX_STORED_BYTES' },
  ),
});
export type Usage = Static<typeof Usage>;
