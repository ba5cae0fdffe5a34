// What one MCP POST may carry, and what it costs against the rate limits. The SDK's transport
// (1.32) still takes JSON-RPC batches of up to 100 messages, whatever protocol version the client
// names (2025-06-18 removed batching from the protocol), and runs every request of a batch at once:
// unbounded, one POST could carry 100 create_nodes calls of 100 items. So a batch carries at most
// MCP_MAX_BATCH_MESSAGES messages and its tool calls at most MCP_MAX_ITEMS_PER_REQUEST items
// together (the REST batch's bound); beyond either the whole POST is a 400 and nothing runs. Each
// JSON-RPC request in a POST counts as one request against the caller's rate limits.
import { BATCH_MAX_OPERATIONS } from '../contract/limits.js';
import { invalid } from '../errors.js';

/** Messages in one JSON-RPC batch (the SDK's own bound is 100). */
export const MCP_MAX_BATCH_MESSAGES = 20;
/** Items over all the tool calls of one POST: as many as one REST batch carries. */
export const MCP_MAX_ITEMS_PER_REQUEST = BATCH_MAX_OPERATIONS;

export interface McpLoad {
  /** JSON-RPC requests (a method and an id): each is answered, and each counts as one request. */
  requests: number;
  /** The items of its tool calls: the entries of each call's list arguments, at least 1 a call. */
  items: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How much a POST's body asks for; a body that is not JSON-RPC counts as it comes (the transport refuses it). */
export function mcpLoad(body: unknown): McpLoad {
  const messages = Array.isArray(body) ? body : [body];
  let requests = 0;
  let items = 0;
  for (const message of messages) {
    if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) continue;
    requests++;
    if (message.method !== 'tools/call' || !isObject(message.params)) continue;
    const args = message.params.arguments;
    const listed = isObject(args) ? Object.values(args).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0) : 0;
    items += Math.max(1, listed);
  }
  return { requests, items };
}

/** Refuses, before anything runs, a POST beyond the bounds (400 naming the bound). */
export function assertMcpBounds(body: unknown): McpLoad {
  if (Array.isArray(body) && body.length > MCP_MAX_BATCH_MESSAGES) {
    throw invalid(
      `A JSON-RPC batch carries at most ${MCP_MAX_BATCH_MESSAGES} messages; this one has ${body.length}. Send the rest in further requests.`,
    );
  }
  const load = mcpLoad(body);
  if (load.items > MCP_MAX_ITEMS_PER_REQUEST) {
    throw invalid(
      `One MCP request carries at most ${MCP_MAX_ITEMS_PER_REQUEST} items over its tool calls; this one has ${load.items}. ` +
        'Send the rest in further requests.',
    );
  }
  return load;
}
