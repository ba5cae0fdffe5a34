// Tool results: concise text for the assistant plus the same facts as structuredContent, and the
// API's errors as tool errors (isError) carrying the API's message. Anything the API would answer
// with a 500 is logged and shown as "internal error", so no tool failure ends the session.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors.js';
import type { McpCall } from './context.js';

export function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** The API's error for a failure; logs what it cannot show. */
export function apiErrorOf(call: McpCall, error: unknown): ApiError {
  const known = error instanceof ApiError ? error : call.errorOf(error instanceof Error ? error : new Error(String(error)));
  if (known.status >= 500 && known.code === 'internal_error') {
    call.log.error({ err: error }, 'MCP tool failed');
    return new ApiError('internal_error', 'internal error');
  }
  return known;
}

export function failed(error: ApiError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: { code: error.code, status: error.status, message: error.message } },
  };
}

/** Runs a tool's work within the caller's share, turning any failure (a refused share too) into a tool error. */
export async function guarded(call: McpCall, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  // Every MCP tool call runs here, and the SDK runs the calls of one batch at once (up to
  // src/mcp/limits.ts's bound): `share` holds one of the user's slots of expensive work for it.
  try {
    return await (call.share ? call.share(work) : work());
  } catch (error) {
    return failed(apiErrorOf(call, error));
  }
}

export type ItemOutcome<T> = { index: number; ok: true; value: T } | { index: number; ok: false; code: string; message: string };

/**
 * A bulk tool's items, one after the other, each its own write (as the REST API does them): a
 * failed item does not undo the others, and the answer says which failed.
 */
export async function eachItem<I, T>(call: McpCall, items: I[], work: (item: I) => Promise<T>): Promise<ItemOutcome<T>[]> {
  const outcomes: ItemOutcome<T>[] = [];
  for (const [index, item] of items.entries()) {
    try {
      outcomes.push({ index, ok: true, value: await work(item) });
    } catch (error) {
      const known = apiErrorOf(call, error);
      outcomes.push({ index, ok: false, code: known.code, message: known.message });
    }
  }
  return outcomes;
}

/** A bulk answer: one line per item; a tool error only when no item succeeded. */
export function bulkResult<T>(
  verb: string,
  outcomes: ItemOutcome<T>[],
  line: (value: T) => string,
  shape: (value: T) => Record<string, unknown>,
): CallToolResult {
  const done = outcomes.filter((o) => o.ok).length;
  const lines = outcomes.map((o) => (o.ok ? line(o.value) : `item ${o.index}: failed: ${o.message}`));
  const results = outcomes.map((o) =>
    o.ok ? { index: o.index, ok: true, ...shape(o.value) } : { index: o.index, ok: false, error: { code: o.code, message: o.message } },
  );
  const failures = outcomes.length - done;
  if (done === 0 && outcomes.length > 0) {
    // Every item failed, usually for one reason (the board): that reason is the message.
    const messages = [...new Set(outcomes.map((o) => (o.ok ? '' : o.message)))];
    const text = messages.length === 1 ? messages[0]! : lines.join('\n');
    return { isError: true, content: [{ type: 'text', text }], structuredContent: { results } };
  }
  const head = `${verb} ${done} of ${outcomes.length}${failures ? ` (${failures} failed)` : ''}`;
  return ok([head, ...lines].join('\n'), { results });
}
