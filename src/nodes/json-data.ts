// Checks for the free-form JSON objects stored in jsonb (node_data, edge_data): a size cap, a depth
// cap, and the text PostgreSQL refuses (NUL characters, lone UTF-16 surrogates). Without these a
// legal JSON body would reach the database and fail there as a 500 instead of a 400.
import { invalid } from '../errors.js';
import { DATA_MAX_BYTES, DATA_MAX_DEPTH } from '../contract/limits.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string PostgreSQL can store in text and jsonb. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** Walks the value without recursion (a deeply nested body must not overflow the stack). */
export function assertStorableJson(value: unknown, field: string): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) throw invalid(`${field} contains a NUL character or invalid Unicode`);
    } else if (v !== null && typeof v === 'object') {
      if (depth >= DATA_MAX_DEPTH) throw invalid(`${field} is nested more than ${DATA_MAX_DEPTH} levels deep`);
      if (Array.isArray(v)) {
        for (const item of v) stack.push({ v: item, depth: depth + 1 });
      } else {
        for (const [key, item] of Object.entries(v)) {
          if (!isStorableText(key)) throw invalid(`${field} has a key with a NUL character or invalid Unicode`);
          stack.push({ v: item, depth: depth + 1 });
        }
      }
    }
  }
}

/** Serialises a data object for jsonb after checking it; `sizeOf` is what counts toward the cap. */
export function toStoredJson(value: Record<string, unknown>, field: string, sizeOf: Record<string, unknown> = value): string {
  assertStorableJson(value, field);
  if (Buffer.byteLength(JSON.stringify(sizeOf), 'utf8') > DATA_MAX_BYTES) {
    throw invalid(`${field} is larger than ${DATA_MAX_BYTES / 1024} KiB of JSON`);
  }
  return JSON.stringify(value);
}
