// The MCP server of one request (stateless: a new server per HTTP request, as the SDK's stateless
// Streamable HTTP pattern has it), holding only the tools the caller's scopes allow: read tools for
// read, and the write tools as well for write.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { hasScope } from '../auth/principal.js';
import type { McpCall, McpDeps } from './context.js';
import { registerReadTools } from './read-tools.js';
import { registerWriteTools } from './write-tools.js';

export const MCP_SERVER_NAME = 'board-workspace';

const instructions =
  'Boards are canvases of nodes (notes, urls, videos, documents, pdfs, images) joined by edges. ' +
  'Start with list_boards, then read_board; search_board and ask_board use the documents vectorized on a board ' +
  '(vectorize_node adds a node). Write tools need an API key with the write scope.';

export function buildMcpServer(deps: McpDeps, call: McpCall, version: string): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version }, { instructions, capabilities: { tools: {} } });
  registerReadTools(server, deps, call);
  if (hasScope(call.principal, 'write')) registerWriteTools(server, deps, call);
  return server;
}
