// The comment tools: list_comments (read scope) reads a board's comment threads, add_comment (write
// scope) starts a thread or replies to one. Both call the CommentService, so the access rule (who
// may read, who may comment) and the mentions rule are the REST API's.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Comment } from '../contract/comments.js';
import { COMMENT_MAX_CHARS, COMMENT_MENTIONS_MAX, COORDINATE_MAX, PAGE_MAX_ITEMS } from '../contract/limits.js';
import { pageRequest } from '../lib/pagination.js';
import type { McpCall, McpDeps } from './context.js';
import { BoardId, Id } from './read-tools.js';
import { guarded, ok } from './results.js';

const Coordinate = z.number().min(-COORDINATE_MAX).max(COORDINATE_MAX);

/** One line per comment: `[id] author (reply to thread|on node …|at (x,y)|on the board)[, resolved]: text`. */
function commentLine(c: Comment & { unread?: boolean }): string {
  const where =
    c.parent_id !== null
      ? `reply in ${c.thread_id}`
      : c.node_id !== null
        ? `on node ${c.node_id}`
        : c.position !== null
          ? `at (${c.position.x},${c.position.y})`
          : 'on the board';
  const flags = [c.resolved_at !== null ? 'resolved' : '', c.unread ? 'unread' : ''].filter(Boolean).join(', ');
  return `[${c.id}] ${c.author.name} ${where}${flags ? ` (${flags})` : ''}: ${c.content}`;
}

export function registerCommentReadTools(server: McpServer, deps: McpDeps, call: McpCall): void {
  const { principal } = call;
  server.registerTool(
    'list_comments',
    {
      title: 'List comments',
      description:
        "List a board's comments, oldest first: threads (on a node, a point or the board) and their replies, who wrote them, " +
        'whether resolved or unread. thread_id, node_id and resolved narrow the list.',
      inputSchema: {
        board_id: BoardId,
        thread_id: Id.optional().describe("Only this thread's comments"),
        node_id: Id.optional().describe('Only the threads on this node'),
        resolved: z.boolean().optional().describe('Only resolved (true) or open (false) threads'),
        limit: z.number().int().min(1).max(PAGE_MAX_ITEMS).default(50).describe(`Page size, 1..${PAGE_MAX_ITEMS}`),
        cursor: z.string().min(1).max(1024).optional().describe('The next_cursor of the previous page'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ board_id, thread_id, node_id, resolved, limit, cursor }) =>
      guarded(call, async () => {
        const list = `comments:${board_id}:${thread_id ?? ''}:${node_id ?? ''}:${resolved ?? ''}`;
        const page = await deps.comments.list(
          principal,
          board_id,
          { thread_id, node_id, resolved },
          pageRequest(list, { limit, cursor }, 'asc'),
          list,
        );
        const lines = page.data.map(commentLine);
        const head = page.data.length === 0 ? 'No comments' : `${page.data.length} comments${page.has_more ? ' (more: next_cursor)' : ''}`;
        return ok([head, ...lines].join('\n'), { comments: page.data, next_cursor: page.cursor });
      }),
  );
}

export function registerCommentWriteTools(server: McpServer, deps: McpDeps, call: McpCall): void {
  const { principal } = call;
  server.registerTool(
    'add_comment',
    {
      title: 'Add a comment',
      description:
        'Comment on a board: start a thread on a node (node_id), on a point (position) or on the board (neither), or reply to a ' +
        "thread (thread_id: its first comment's id). mentions: user ids of the board's owner or members.",
      inputSchema: {
        board_id: BoardId,
        content: z.string().min(1).max(COMMENT_MAX_CHARS).describe(`The comment, 1..${COMMENT_MAX_CHARS} characters`),
        thread_id: Id.optional().describe('Reply to this thread'),
        node_id: Id.optional().describe('A new thread on this node'),
        position: z.object({ x: Coordinate, y: Coordinate }).optional().describe('A new thread on this point of the canvas'),
        mentions: z.array(Id).max(COMMENT_MENTIONS_MAX).optional().describe('User ids of the people mentioned'),
      },
    },
    ({ board_id, content, thread_id, node_id, position, mentions }) =>
      guarded(call, async () => {
        const comment = await deps.comments.create(principal, board_id, {
          content,
          thread_id,
          node_id,
          position,
          mentions: mentions ? [...new Set(mentions)] : undefined,
        });
        return ok(`Added ${commentLine(comment)}`, { comment });
      }),
  );
}
