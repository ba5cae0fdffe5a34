// The read tools (read scope): list boards, read a board in compact form, read nodes whole,
// search a board's documents, and ask a board (a chat reply with its sources).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { findVisibleBoard } from '../access/board-access.js';
import { pickShape } from '../contract/common.js';
import { Board } from '../contract/boards.js';
import type { Node } from '../contract/nodes.js';
import type { Citation } from '../contract/chats.js';
import type { Hit } from '../contract/documents.js';
import { SEARCH_MODES } from '../contract/documents.js';
import { invalid } from '../errors.js';
import { type Page, pageRequest } from '../lib/pagination.js';
import { type CompactNode, compactEdge, compactNode, compactSummary, edgeLine, nodeLine, nodeText, snippet } from './compact.js';
import type { McpCall, McpDeps } from './context.js';
import { guarded, ok } from './results.js';
import { CHAT_MESSAGE_MAX_CHARS, IDS_MAX_ITEMS, PAGE_MAX_ITEMS, SEARCH_QUERY_MAX_CHARS } from '../contract/limits.js';

export const Id = z.uuid();
export const BoardId = Id.describe('The board id (list_boards names them)');
const Cursor = z.string().min(1).max(1024).describe('The next_cursor of the previous page');

/** read_board's cursor: the node and edge lists' own cursors, false for a list already read to its end. */
type BoardCursor = { n: string | false | null; e: string | false | null };

function readBoardCursor(cursor: string | undefined): BoardCursor {
  if (cursor === undefined) return { n: null, e: null };
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as BoardCursor;
    const valid = (v: unknown) => v === false || v === null || typeof v === 'string';
    if (typeof parsed === 'object' && parsed !== null && valid(parsed.n) && valid(parsed.e)) return parsed;
  } catch {
    // Falls through to the error below.
  }
  throw invalid('cursor is not a valid cursor');
}

/** Rows per statement of read_board: a page of up to 500 is read in steps, so others' statements go in between. */
const READ_STEP = 20;

/** One page of `limit` rows read in statements of at most READ_STEP (the same rows as one statement). */
async function inSteps<T>(
  limit: number,
  cursor: string | undefined,
  read: (limit: number, cursor: string | undefined) => Promise<Page<T>>,
) {
  const data: T[] = [];
  let page: Page<T>;
  let at = cursor;
  do {
    page = await read(Math.min(READ_STEP, limit - data.length), at);
    data.push(...page.data);
    at = page.cursor ?? undefined;
  } while (page.has_more && data.length < limit);
  return { data, has_more: page.has_more, cursor: page.cursor };
}

export function registerReadTools(server: McpServer, deps: McpDeps, call: McpCall): void {
  const { db } = deps;
  const { principal } = call;

  server.registerTool(
    'list_boards',
    {
      title: 'List boards',
      description: "List the caller's boards and those shared with them, newest first (id, name, whether public, the caller's role).",
      inputSchema: {
        limit: z.number().int().min(1).max(PAGE_MAX_ITEMS).default(50).describe(`Page size, 1..${PAGE_MAX_ITEMS}`),
        cursor: Cursor.optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ limit, cursor }) =>
      guarded(call, async () => {
        const list = `boards:${principal.userId}:all`;
        const page = await deps.boards.list(principal, pageRequest(list, { limit, cursor }, 'desc'), list);
        const boards = page.data.map((b) => ({
          id: b.id,
          name: b.name,
          is_public: b.is_public,
          role: b.role,
          updated_at: b.updated_at.toISOString(),
        }));
        const lines = boards.map(
          (b) =>
            `[${b.id}] "${b.name}"${b.is_public ? ' (public)' : ''}${b.role === 'owner' ? '' : ` (shared with you: ${b.role})`} updated ${b.updated_at}`,
        );
        if (boards.length === 0) lines.push('No boards.');
        if (page.cursor) lines.push(`More boards: call again with cursor "${page.cursor}".`);
        return ok(lines.join('\n'), { boards, next_cursor: page.cursor });
      }),
  );

  server.registerTool(
    'read_board',
    {
      title: 'Read a board',
      description:
        'Read a board: its nodes, one line each as `[id] type "label": first 200 characters of text @ (x,y)`, and its edges as ' +
        '`id: source -> target (type, "label")`, oldest first. Large boards come in pages: pass next_cursor to read on. ' +
        'get_nodes reads whole texts.',
      inputSchema: {
        board_id: BoardId,
        limit: z.number().int().min(1).max(500).default(200).describe('Most nodes and most edges in this page, 1..500'),
        cursor: Cursor.optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ board_id, limit, cursor }) =>
      guarded(call, async () => {
        const at = readBoardCursor(cursor);
        const board = pickShape(Board, await findVisibleBoard(db, principal, board_id));
        const nodeList = `nodes:${board_id}:*`;
        const edgeList = `edges:${board_id}:*`;
        const nodes =
          at.n === false
            ? { data: [], has_more: false, cursor: null }
            : await inSteps(limit, at.n ?? undefined, (step, after) =>
                deps.nodes.listSummaries(principal, board_id, pageRequest(nodeList, { limit: step, cursor: after }, 'asc'), nodeList),
              );
        const edges =
          at.e === false
            ? { data: [], has_more: false, cursor: null }
            : await inSteps(limit, at.e ?? undefined, (step, after) =>
                deps.edges.list(principal, board_id, {}, pageRequest(edgeList, { limit: step, cursor: after }, 'asc'), edgeList),
              );
        const next: BoardCursor = { n: nodes.cursor ?? false, e: edges.cursor ?? false };
        const nextCursor = next.n || next.e ? Buffer.from(JSON.stringify(next)).toString('base64url') : null;
        const compactNodes: CompactNode[] = [];
        for (const node of nodes.data) {
          compactNodes.push(compactSummary(node) ?? compactNode(await deps.nodes.get(principal, { boardId: board_id, id: node.id })));
        }
        const compactEdges = edges.data.map(compactEdge);
        const lines = [
          `Board [${board.id}] "${board.name}"${board.is_public ? ` (public, ${board.public_access_level})` : ''}`,
          `Nodes (${compactNodes.length}${nodes.has_more ? ', more follow' : ''}):`,
          ...compactNodes.map(nodeLine),
          `Edges (${compactEdges.length}${edges.has_more ? ', more follow' : ''}):`,
          ...compactEdges.map(edgeLine),
        ];
        if (nextCursor) lines.push(`More: call read_board again with cursor "${nextCursor}".`);
        return ok(lines.join('\n'), {
          board: { id: board.id, name: board.name, is_public: board.is_public, public_access_level: board.public_access_level },
          nodes: compactNodes,
          edges: compactEdges,
          next_cursor: nextCursor,
        });
      }),
  );

  server.registerTool(
    'get_nodes',
    {
      title: 'Get nodes',
      description: 'Read nodes whole: their type, position, parent and all their data (full text).',
      inputSchema: { board_id: BoardId, node_ids: z.array(Id).min(1).max(IDS_MAX_ITEMS).describe(`Up to ${IDS_MAX_ITEMS} node ids`) },
      annotations: { readOnlyHint: true },
    },
    ({ board_id, node_ids }) =>
      guarded(call, async () => {
        const nodes: Node[] = [];
        for (const id of node_ids) nodes.push(await deps.nodes.get(principal, { boardId: board_id, id }));
        const shaped = nodes.map((n) => ({
          id: n.id,
          type: n.node_type,
          x: n.position_x,
          y: n.position_y,
          parent_node_id: n.parent_node_id,
          data: n.node_data,
          updated_at: n.updated_at.toISOString(),
        }));
        const text = nodes.map((n) => `${nodeLine(compactNode(n))}\n${nodeText(n)}`).join('\n\n');
        return ok(text, { nodes: shaped });
      }),
  );

  server.registerTool(
    'search_board',
    {
      title: 'Search a board',
      description:
        "Search a board's vectorized documents (notes, pdfs, texts) by meaning (vector), keywords (keyword) or both (hybrid). " +
        'Each hit names its chunk, the node it came from and its page.',
      inputSchema: {
        board_id: BoardId,
        query: z.string().min(1).max(SEARCH_QUERY_MAX_CHARS),
        mode: z.enum(SEARCH_MODES).default('hybrid'),
        limit: z.number().int().min(1).max(PAGE_MAX_ITEMS).default(10),
        threshold: z.number().min(-1).max(1).optional().describe("Minimum score in the mode's scale (default 0)"),
        node_ids: z.array(Id).max(IDS_MAX_ITEMS).optional().describe('Only chunks of these nodes'),
        cursor: Cursor.optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ board_id, query, mode, limit, threshold, node_ids, cursor }) =>
      guarded(call, async () => {
        const page = await deps.documents.searchBoard(principal, board_id, query, { mode, limit, threshold, nodeIds: node_ids, cursor });
        return searchAnswer('search_board', page);
      }),
  );

  server.registerTool(
    'ask_board',
    {
      title: 'Ask a board',
      description:
        "Ask the board's assistant a question, answered from the board's content (or only the nodes in node_ids), with the chunks it drew on: " +
        'each claim marked [n], citation n naming its node, chunk and the quoted passage. ' +
        'Each question starts a chat titled "MCP: …" in the caller\'s chats (visible in the app); pass chat_id to continue one.',
      inputSchema: {
        board_id: BoardId,
        question: z.string().min(1).max(CHAT_MESSAGE_MAX_CHARS),
        chat_id: Id.optional().describe('A chat of yours on this board to continue (its history is context)'),
        node_id: Id.optional().describe('For a new chat: the node it is about (its content comes first)'),
        node_ids: z
          .array(Id)
          .min(1)
          .max(IDS_MAX_ITEMS)
          .optional()
          .describe(
            'Ask about these nodes only: the reply draws only on their content. A new chat keeps them (as "Ask about this selection" in the app); with chat_id, this question only',
          ),
      },
    },
    ({ board_id, question, chat_id, node_id, node_ids }, extra) =>
      guarded(call, async () => {
        const chatId =
          chat_id ??
          (await deps.chats.create(principal, board_id, { title: `MCP: ${snippet(question, 190)}`, node_id: node_id ?? null, node_ids }))
            .id;
        const pending = await deps.chats.startReply(principal, board_id, chatId, question, chat_id ? node_ids : undefined);
        const done = await deps.chats.generateReply(pending, extra.signal, () => {});
        const metadata: Record<string, unknown> = done.message.metadata ?? {};
        const sources = Array.isArray(metadata.sources) ? (metadata.sources as string[]) : [];
        const citations = Array.isArray(metadata.citations) ? (metadata.citations as Citation[]) : [];
        const lines = [
          done.message.content,
          '',
          `Sources (chunk ids): ${sources.length ? sources.join(', ') : 'none'}`,
          ...citations.map((c) => `[${c.n}] node ${c.node_id ?? '-'} chunk ${c.chunk_id}: "${snippet(c.quote, 200)}"`),
          `Chat: ${chatId}`,
        ];
        return ok(lines.join('\n'), {
          answer: done.message.content,
          sources,
          citations,
          chat_id: chatId,
          message_id: done.message.id,
          model: done.message.model,
          usage: done.usage,
        });
      }),
  );
}

/** A page of search hits as a search tool's answer: a line and a record per hit (with its board where
 * the hit names one), then how to ask for more. */
export function searchAnswer(tool: string, page: Page<Hit & { board_id?: string }>) {
  const hits = page.data.map((h) => ({
    ...(h.board_id === undefined ? {} : { board_id: h.board_id }),
    chunk_id: h.id,
    node_id: h.node_id,
    page: h.metadata.page,
    source: h.metadata.source,
    score: h.score,
    content: h.content,
  }));
  const lines = hits.map(
    (h, i) =>
      `${i + 1}. score ${h.score.toFixed(3)}${h.board_id === undefined ? '' : ` board ${h.board_id}`} chunk ${h.chunk_id} node ${h.node_id ?? '-'} page ${h.page} "${snippet(h.source, 80)}": ${snippet(h.content, 400)}`,
  );
  if (hits.length === 0) lines.push('No matches.');
  if (page.cursor) lines.push(`More: call ${tool} again with cursor "${page.cursor}".`);
  return ok(lines.join('\n'), { hits, next_cursor: page.cursor });
}
