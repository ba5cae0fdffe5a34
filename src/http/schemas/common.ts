// The HTTP framing of the contract's shapes (src/contract/): envelopes, path parameters, list
// queries and error responses. Services never return these; routes wrap what services return.
import { Type, type TSchema } from '@sinclair/typebox';
import { Uuid } from '../../contract/common.js';
import { PAGE_MAX_ITEMS } from '../../contract/limits.js';

export function Single<T extends TSchema>(object: string, data: T) {
  return Type.Object({ object: Type.Literal(object), data });
}

/** A page of a list (from src/contract/common.ts, where the events page is built on it too). */
export { List } from '../../contract/common.js';

export function Deleted(object: string) {
  return Single(object, Type.Object({ id: Uuid, deleted: Type.Literal(true) }));
}

export const IdParams = Type.Object({ id: Uuid });
export const BoardParams = Type.Object({ boardId: Uuid });
export const BoardChildParams = Type.Object({ boardId: Uuid, id: Uuid });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX_ITEMS, default: 20, description: `Page size, 1..${PAGE_MAX_ITEMS}` })),
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
