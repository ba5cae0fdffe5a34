// The MCP server of one request (stateless: a new server per HTTP request, as the SDK's stateless
// Streamable HTTP pattern has it), holding only the tools the caller's scopes allow: read tools for
// read (list_history among them), and the write tools, restore_history and the search across boards
// as well for write (as over REST).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { hasScope } from '../auth/principal.js';
import type { McpCall, McpDeps } from './context.js';
import { registerCommentReadTools, registerCommentWriteTools } from './comment-tools.js';
import { registerCrossBoardTools } from './cross-board-tools.js';
import { registerHistoryTools } from './history-tools.js';
import { registerReadTools } from './read-tools.js';
import { registerWriteTools } from './write-tools.js';

export const MCP_SERVER_NAME = 'board-workspace';

const instructions =
  'Boards are canvases of nodes (notes, urls, videos, documents, pdfs, images) joined by edges. ' +
  'Start with list_boards, then read_board; search_board and ask_board use the documents vectorized on a board ' +
  '(vectorize_node adds a node; node_ids on ask_board limits it to chosen nodes); search_boards searches all your boards at once. ' +
  'list_comments reads the comment threads of a board, add_comment writes one. ' +
  "list_history lists a board's versions; restore_history brings one back (the board's owner only). " +
  'Write tools, restore_history and search_boards need an API key with the write scope.';

export function buildMcpServer(deps: McpDeps, request: McpCall, version: string): McpServer {
  // Each tool call is expensive work of its user's: it waits for one of the user's slots, so one
  // user's many calls (in parallel requests or one batch) take their turn with everyone else's.
  // The calls of one request (a JSON-RPC batch) take their turns one after another: each joins the
  // user's queue once the one before it has ended, so a batch never fills its own user's queue or
  // waits out the queue's time limit behind itself (HEAVY_WORK_QUEUE_PER_USER, _WAIT_SECONDS).
  let previous: Promise<unknown> = Promise.resolve();
  const share = <T>(work: () => Promise<T>): Promise<T> => {
    const turn = previous.then(() => deps.heavyWork.run(request.principal.userId, work));
    previous = turn.catch(() => {});
    return turn;
  };
  const call: McpCall = { ...request, share };
  const server = new McpServer({ name: MCP_SERVER_NAME, version }, { instructions, capabilities: { tools: {} } });
  const canWrite = hasScope(call.principal, 'write');
  registerReadTools(server, deps, call);
  registerCommentReadTools(server, deps, call);
  registerHistoryTools(server, deps, call, canWrite);
  if (canWrite) {
    registerWriteTools(server, deps, call);
    registerCommentWriteTools(server, deps, call);
    registerCrossBoardTools(server, deps, call);
  }
  return server;
}
