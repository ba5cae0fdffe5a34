// The board history tools (issue 31): list_history (read scope: anyone who may read the board) lists
// its versions; restore_history (write scope; the board's owner, as over REST) brings a version, or
// some of its nodes, back as new changes (src/compose/history-service.ts), streamed to everyone on
// the board, and names the restore point that undoes it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { BoardVersion } from '../contract/history.js';
import { IDS_MAX_ITEMS, PAGE_MAX_ITEMS } from '../contract/limits.js';
import { pageRequest } from '../lib/pagination.js';
import type { McpCall, McpDeps } from './context.js';
import { BoardId, Id } from './read-tools.js';
import { guarded, ok } from './results.js';

const Cursor = z.string().min(1).max(1024).describe('The next_cursor of the previous page');

const KIND: Record<BoardVersion['kind'], string> = { auto: 'saved automatically', named: 'named', restore_point: 'before a restore' };

const versionLine = (v: BoardVersion) =>
  `[${v.id}] ${v.name === null ? KIND[v.kind] : `"${v.name}" (${KIND[v.kind]})`} at ${v.created_at.toISOString()}: ` +
  `${v.node_count} nodes, ${v.edge_count} edges`;

export function registerHistoryTools(server: McpServer, deps: McpDeps, call: McpCall, canWrite: boolean): void {
  const { history } = deps;
  const { principal } = call;

  server.registerTool(
    'list_history',
    {
      title: "List a board's versions",
      description:
        "List a board's versions, newest first: kept automatically while it changes, named by its owner, and the points kept " +
        'just before each restore. restore_history brings one back (the owner only).',
      inputSchema: {
        board_id: BoardId,
        limit: z.number().int().min(1).max(PAGE_MAX_ITEMS).default(20).describe(`Page size, 1..${PAGE_MAX_ITEMS}`),
        cursor: Cursor.optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ board_id, limit, cursor }) =>
      guarded(call, async () => {
        const list = `history:${board_id}`;
        const page = await history.list(principal, board_id, pageRequest(list, { limit, cursor }, 'desc'), list);
        const lines = page.data.map(versionLine);
        if (lines.length === 0) lines.push('No versions yet.');
        if (page.cursor) lines.push(`More versions: call again with cursor "${page.cursor}".`);
        const versions = page.data.map((v) => ({
          id: v.id,
          kind: v.kind,
          name: v.name,
          node_count: v.node_count,
          edge_count: v.edge_count,
          created_at: v.created_at.toISOString(),
        }));
        return ok(lines.join('\n'), { versions, next_cursor: page.cursor });
      }),
  );

  if (!canWrite) return;

  server.registerTool(
    'restore_history',
    {
      title: 'Restore a version of a board',
      description:
        "Bring a board back to one of its versions (list_history names them) as new changes, seen live by everyone on it: the board's " +
        'owner only. With node_ids, only those nodes come back and nothing is deleted. The board as it was just before is kept: ' +
        'restoring that restore point undoes this.',
      inputSchema: {
        board_id: BoardId,
        version_id: Id.describe('The version id (list_history names them)'),
        node_ids: z.array(Id).min(1).max(IDS_MAX_ITEMS).optional().describe('Only these nodes of the version'),
      },
      annotations: { destructiveHint: true },
    },
    ({ board_id, version_id, node_ids }) =>
      guarded(call, async () => {
        const result = await history.restore(principal, { boardId: board_id, versionId: version_id }, node_ids, call);
        const counts =
          `nodes: ${result.nodes_created} created, ${result.nodes_updated} updated, ${result.nodes_deleted} deleted; ` +
          `edges: ${result.edges_created} created, ${result.edges_updated} updated, ${result.edges_deleted} deleted`;
        const text =
          result.restore_point_id === null
            ? `The board already matches version ${version_id}: nothing changed.`
            : `Restored version ${version_id} (${counts}). To undo, restore ${result.restore_point_id}.`;
        return ok(text, { ...result });
      }),
  );
}
