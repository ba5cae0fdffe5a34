// /v1/mcp: the Model Context Protocol over the Streamable HTTP transport, stateless: each POST gets
// a new MCP server and transport (the SDK's stateless pattern), built for the authenticated caller,
// so scopes, tenancy and rate limits are the REST API's own. GET and DELETE (a session's stream and
// its end) do not exist without sessions: the app answers them 405 like any other method a path lacks.
// A POST is bounded (src/mcp/limits.ts: messages per batch, items over its tool calls; a 400 before
// anything runs) and costs one request against the rate limits per JSON-RPC request it carries:
// the HTTP request counted one, the rest are counted here, and a batch the budget cannot cover is
// a 429 before any of it runs. The answer goes out through Fastify (not written to the socket by
// the SDK), so Idempotency-Key replays it as on every POST.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { McpCall } from '../../mcp/context.js';
import { assertMcpBounds, MCP_MAX_BATCH_MESSAGES, MCP_MAX_ITEMS_PER_REQUEST, mcpLoad } from '../../mcp/limits.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { toApiError } from '../plugins/errors.js';
import { errorResponses } from '../schemas/common.js';
import type { App, Services } from '../types.js';

/** The MCP server's version as it introduces itself (the API's version). */
const MCP_VERSION = '1.0.0';

/** As the vectorize route: vectorize_node carries up to 5,000,000 characters of text. */
const MCP_BODY_LIMIT = 10 * 1024 * 1024;

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'A JSON-RPC 2.0 message of the Model Context Protocol (request, notification or response)' },
);
const description =
  'MCP Streamable HTTP transport, stateless (no Mcp-Session-Id). Send `Accept: application/json, text/event-stream`. ' +
  'Tools: list_boards, read_board, get_nodes, search_board, ask_board (read scope); create_nodes, update_nodes, ' +
  'delete_nodes, connect_nodes, update_edges, delete_edges, vectorize_node (write scope). ' +
  `A JSON-RPC batch carries at most ${MCP_MAX_BATCH_MESSAGES} messages and its tool calls at most ${MCP_MAX_ITEMS_PER_REQUEST} items ` +
  'together (400 beyond); each JSON-RPC request counts as one request against the rate limits (a batch the budget cannot ' +
  'cover is 429 before any of it runs). Idempotency-Key applies. See the README.';

export function mcpRoutes(app: App, services: Services): void {
  app.post(
    '/v1/mcp',
    {
      // Read keys may connect: the tools offered follow the caller's scopes.
      config: { scope: 'read' },
      bodyLimit: MCP_BODY_LIMIT,
      // Before the body's schema and before an Idempotency-Key is taken, as a REST body's validation.
      preValidation: async (request) => {
        assertMcpBounds(request.body);
      },
      schema: {
        tags: ['mcp'],
        operationId: 'mcp',
        summary: 'Model Context Protocol endpoint (JSON-RPC over Streamable HTTP)',
        description,
        body: Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage, { minItems: 1, maxItems: MCP_MAX_BATCH_MESSAGES })]),
        response: {
          // The transport's answer, sent as the text it wrote: documented here, never serialised by Fastify.
          200: Type.Unsafe<never>({
            description: 'The JSON-RPC response',
            content: {
              'application/json': { schema: { anyOf: [JsonRpcMessage, { type: 'array', items: JsonRpcMessage }] } },
              'text/event-stream': { schema: { type: 'string' } },
            },
          }),
          202: Type.Null({ description: 'A notification or response was accepted (no body)' }),
          ...errorResponses,
          400: Type.Union([Type.Ref('Error'), JsonRpcMessage], {
            description:
              'An invalid request (an error envelope or a JSON-RPC error), such as a batch of more than ' +
              `${MCP_MAX_BATCH_MESSAGES} messages or more than ${MCP_MAX_ITEMS_PER_REQUEST} items over its tool calls`,
          }),
          409: Type.Ref('Error', {
            description: 'The Idempotency-Key was already used with another body, or its first request is still running',
          }),
          406: { ...JsonRpcMessage, description: 'The Accept header lacks application/json and text/event-stream (a JSON-RPC error)' },
          415: Type.Ref('Error'),
        },
      },
    },
    async (request, reply) => {
      // The request itself was counted once; each further JSON-RPC request it carries counts too.
      const { requests } = mcpLoad(request.body);
      await app.countMoreRequests(
        request,
        reply,
        requests - 1,
        `each JSON-RPC request in an MCP batch counts as one request; this one carries ${requests}`,
      );
      const call: McpCall = {
        principal: principalOf(request),
        ...originOf(request),
        log: request.log,
        errorOf: toApiError,
      };
      // The SDK and the tools load with the first MCP request, not with the service.
      const [{ buildMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
        import('../../mcp/server.js'),
        import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      ]);
      const server = buildMcpServer(services, call, MCP_VERSION);
      // The web-standard transport (which the SDK's Node transport wraps) hands its answer back
      // instead of writing the socket; in JSON response mode the answer is whole once every call of
      // the POST is done. It goes out through Fastify like any answer, so the onSend hooks see it:
      // Idempotency-Key records it for replay, the rate-limit headers show the smaller budget.
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const answer = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
        const text = await answer.text();
        for (const [name, value] of answer.headers) if (name !== 'content-length') reply.header(name, value);
        reply.code(answer.status);
        return text === '' ? reply.send() : reply.send(text);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        return reply
          .code(500)
          .type('application/json')
          .send(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
      } finally {
        await transport.close();
        await server.close();
      }
    },
  );
}

/** The request as the web-standard transport reads it: its headers (Accept, Content-Type, MCP-Protocol-Version) and url. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: 'POST', headers });
}
