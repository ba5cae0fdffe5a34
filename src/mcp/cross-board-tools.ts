// The search across boards (write scope, as its REST route POST /v1/documents/search): the board
// search run on every board the caller may read (its own by default, or the named board_ids), the
// hits merged by score, each naming its board.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CROSS_SEARCH_MAX_BOARDS } from '../contract/documents-search.js';
import { SEARCH_MODES } from '../contract/documents.js';
import { IDS_MAX_ITEMS, PAGE_MAX_ITEMS, SEARCH_QUERY_MAX_CHARS } from '../contract/limits.js';
import type { McpCall, McpDeps } from './context.js';
import { Id, searchAnswer } from './read-tools.js';
import { guarded } from './results.js';

export function registerCrossBoardTools(server: McpServer, deps: McpDeps, call: McpCall): void {
  server.registerTool(
    'search_boards',
    {
      title: 'Search across boards',
      description:
        'Search the vectorized documents of every board you may read at once: your own boards by default, or the boards named in board_ids (yours or public). Same modes as search_board; each hit names its board, chunk, node and page.',
      inputSchema: {
        query: z.string().min(1).max(SEARCH_QUERY_MAX_CHARS),
        mode: z.enum(SEARCH_MODES).default('hybrid'),
        limit: z.number().int().min(1).max(PAGE_MAX_ITEMS).default(10),
        threshold: z.number().min(-1).max(1).optional().describe("Minimum score in the mode's scale (default 0)"),
        board_ids: z
          .array(Id)
          .min(1)
          .max(CROSS_SEARCH_MAX_BOARDS)
          .optional()
          .describe(`Only these boards (up to ${CROSS_SEARCH_MAX_BOARDS}); default: your own boards`),
        node_ids: z.array(Id).max(IDS_MAX_ITEMS).optional().describe('Only chunks of these nodes'),
        cursor: z.string().min(1).max(1024).optional().describe('The next_cursor of the previous page'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ query, mode, limit, threshold, board_ids, node_ids, cursor }) =>
      guarded(call, async () => {
        const page = await deps.documents.searchAcrossBoards(call.principal, {
          query,
          mode,
          limit,
          threshold,
          board_ids,
          node_ids,
          cursor,
        });
        return searchAnswer('search_boards', page);
      }),
  );
}
