// The HTTP framing of the contract's shapes (src/contract/): envelopes, path parameters, list
// queries and error responses. Services never return these; routes wrap what services return.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Uuid } from '../../contract/common.js';

export const ErrorEnvelope = Type.Object(
  {
    object: Type.Literal('error'),
    status: Type.Integer(),
    code: Type.String(),
    message: Type.String(),
  },
  { $id: 'Error', description: 'Error envelope' },
) as TObject & { $id: string };

export function Single<T extends TSchema>(object: string, data: T) {
  return Type.Object({ object: Type.Literal(object), data });
}

export function List<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    cursor: Type.Union([Type.String(), Type.Null()]),
  });
}

export function Deleted(object: string) {
  return Single(object, Type.Object({ id: Uuid, deleted: Type.Literal(true) }));
}

export const IdParams = Type.Object({ id: Uuid });
export const BoardParams = Type.Object({ boardId: Uuid });
export const BoardChildParams = Type.Object({ boardId: Uuid, id: Uuid });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1..100' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque cursor from the previous page' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'Sort by creation time' })),
};

/** Error responses every authenticated route can give. */
export const errorResponses = {
  400: Type.Ref('Error'),
  401: Type.Ref('Error'),
  403: Type.Ref('Error'),
  404: Type.Ref('Error'),
  429: Type.Ref('Error'),
  500: Type.Ref('Error'),
  503: Type.Ref('Error'),
};
