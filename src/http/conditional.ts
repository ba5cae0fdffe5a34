// Conditional requests on single nodes and edges (RFC 9110 §13): the ETag header on their answers,
// If-Match on PATCH and DELETE (checked by the service inside its transaction: 412 when the resource
// changed), and If-None-Match on GET (304 when the client's copy is current). The tags themselves
// come from the services (nodeTag, edgeTag), which compare them.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { noneMatchFails, parseTagCondition, type TagCondition } from '../lib/etag.js';

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The If-Match header, for PATCH and DELETE. */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Write only if the resource is unchanged: its ETag as last read (a list of tags, or * for any current one). ' +
        'Otherwise 412 precondition_failed and nothing is written. Weak tags (W/"…") never match',
    }),
  ),
});

/** The If-None-Match header, for GET. */
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The ETag(s) of the copy the client holds: 304 with no body when it is still current' }),
  ),
});

/** The answer's ETag header, as the OpenAPI document shows it. */
const ETagHeader = {
  type: 'string',
  description: 'Strong entity tag of this representation (RFC 9110): send it as If-Match to change or delete only what you read',
};

/** A single resource's success answer with its documented ETag header. */
export const withETag = <T extends TSchema>(schema: T) => ({ ...schema, headers: { ETag: ETagHeader } });

/** The 304 answer of a GET whose If-None-Match named the current tag. */
export const NotModified = { description: 'Not modified: If-None-Match names the current ETag (no body)', type: 'null' } as const;

/** The parsed If-Match of a request (undefined when absent); a malformed one is a 400. */
export const ifMatchOf = (request: FastifyRequest): TagCondition | undefined =>
  parseTagCondition('If-Match', header(request.headers['if-match']));

/**
 * Sets the ETag of a single resource's answer and tells whether the answer should be 304 instead
 * (a GET whose If-None-Match names it): then the caller sends nothing more.
 */
export function tagged(request: FastifyRequest, reply: FastifyReply, tag: string): boolean {
  reply.header('etag', tag);
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const condition = parseTagCondition('If-None-Match', header(request.headers['if-none-match']));
  return condition !== undefined && noneMatchFails(condition, tag);
}
