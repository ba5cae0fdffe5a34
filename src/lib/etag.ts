// Entity tags and the conditional request headers that carry them (RFC 9110 §8.8.3, §13.1.1-2).
// A tag is strong: the hash of the resource's JSON as the API answers it, so it changes whenever any
// field does and two reads of the same row (from the database or a cache) give the same tag. The
// If-Match check is made by the writing service inside its transaction, after the board lock, so of
// two writers holding the same tag exactly one can pass.
import { createHash } from 'node:crypto';
import { ApiError, invalid } from '../errors.js';

/** A parsed If-Match or If-None-Match: `*`, or the listed tags (weak ones marked, as `W/"…"`). */
export type TagCondition = '*' | readonly string[];

/** The strong entity tag of a representation: `"` + 128 bits of its JSON's SHA-256, base64url + `"`. */
export function entityTag(representation: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(representation)).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text; lists may hold
// empty elements and optional white space around the commas (RFC 9110 §5.6.1).
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Parses an If-Match or If-None-Match value (undefined when absent). A value that is neither `*` nor
 * a list of entity tags is a 400: guessing at it could let a stale write through.
 */
export function parseTagCondition(name: string, header: string | undefined): TagCondition | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const tags = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (tags.length === 0 || !tags.every((tag) => ENTITY_TAG.test(tag))) {
    throw invalid(`${name} must be * or a comma-separated list of entity tags such as "abc" (quotes included)`);
  }
  return tags;
}

/** If-Match's strong comparison: a weak tag never matches, nor does any tag when the resource changed. */
export function ifMatchHolds(condition: TagCondition, current: string): boolean {
  return condition === '*' || condition.includes(current);
}

/** If-None-Match's weak comparison (for GET): true when the client's copy is current (304). */
export function noneMatchFails(condition: TagCondition, current: string): boolean {
  return condition === '*' || condition.some((tag) => (tag.startsWith('W/') ? tag.slice(2) : tag) === current);
}

/** Throws 412 precondition_failed when If-Match was given and does not hold for the current tag. */
export function assertIfMatch(condition: TagCondition | undefined, current: string, what: string): void {
  if (condition !== undefined && !ifMatchHolds(condition, current)) {
    throw new ApiError(
      'precondition_failed',
      `The ${what} has changed since the entity tag in If-Match was read; read it again (its ETag is now ${current})`,
      { etag: current },
    );
  }
}
