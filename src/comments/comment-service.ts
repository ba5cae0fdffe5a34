// Comments on a board (issue 31): threads on a card, on a point of the canvas or on the board itself,
// replies, resolving and reopening, @mentions of the people who may read the board, editing and
// deleting one's own (the board's owner deletes anyone's), and each reader's unread marks.
//
// Who may do what is the access rule's (src/access/board-access.ts): whoever may read the board
// reads its comments; `permissions.comment` (commenters, editors, the owner, anyone on a public
// `edit` board) writes them. Every write is an event on the board's change log (comment.created,
// comment.updated, comment.deleted), so the board's streams and webhooks carry it; a read mark is
// the reader's own and is no event. A thread on a card outlives the card: the database moves it to
// the card's last position (0025-board-comments.ts).
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Database, Db, Executor } from '../db/schema.js';
import { forbidden, invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { entityTag, assertIfMatch, type TagCondition } from '../lib/etag.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { accessOf, boardSeenBy, findVisibleBoard, type SeenBoard } from '../access/board-access.js';
import { assertNodeOnBoard } from '../access/board-nodes.js';
import { lockSeenBoard } from '../access/content-write.js';
import { changeTransaction, recordChanges } from '../events/record.js';
import type {
  Comment,
  CommentListQuery,
  CommentsRead,
  CreateCommentBody,
  MarkCommentsReadBody,
  ReadComment,
  UpdateCommentBody,
} from '../contract/comments.js';

export interface CommentDeps {
  db: Db;
}

/** A comment's strong entity tag: of the comment as the API answers it, without the caller's `unread`. */
export const commentTag = (comment: Comment): string => entityTag(comment);

/** Whether the caller has not read the comment: not theirs, and newer than their read marks of its board and thread. */
function unreadFor(principal: Principal): RawBuilder<boolean> {
  return sql<boolean>`(board_comments.author_id <> ${principal.userId} AND board_comments.created_at > coalesce((
    SELECT max(r.read_at) FROM board_comment_reads r
    WHERE r.user_id = ${principal.userId} AND r.board_id = board_comments.board_id
      AND (r.thread_id IS NULL OR r.thread_id = board_comments.thread_id)), '-infinity'::timestamptz))`;
}

/** Comments with what the answer needs (the author's name); `boardId`: of that board only. */
function selectComments(db: Executor, boardId?: string) {
  const query = db
    .selectFrom('board_comments')
    .innerJoin('users as u', 'u.id', 'board_comments.author_id')
    .leftJoin('accounts as a', 'a.user_id', 'board_comments.author_id')
    .select([
      'board_comments.id',
      'board_comments.board_id',
      'board_comments.thread_id',
      'board_comments.parent_id',
      'board_comments.node_id',
      'board_comments.position_x',
      'board_comments.position_y',
      'board_comments.author_id',
      sql<string>`coalesce(split_part(a.email, '@', 1), u.subject)`.as('author_name'),
      'board_comments.content',
      'board_comments.mentions',
      'board_comments.resolved_at',
      'board_comments.resolved_by',
      'board_comments.created_at',
      'board_comments.updated_at',
      'board_comments.edited_at',
    ]);
  return boardId === undefined ? query : query.where('board_comments.board_id', '=', boardId);
}

type CommentRow = Awaited<ReturnType<ReturnType<typeof selectComments>['executeTakeFirstOrThrow']>>;

/** The comment as the API answers it, in the schema's order. */
function toComment(row: CommentRow): Comment {
  return {
    id: row.id,
    board_id: row.board_id,
    thread_id: row.thread_id,
    parent_id: row.parent_id,
    node_id: row.node_id,
    position: row.position_x === null || row.position_y === null ? null : { x: row.position_x, y: row.position_y },
    author: { id: row.author_id, name: row.author_name },
    content: row.content,
    mentions: row.mentions,
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    edited_at: row.edited_at,
  };
}

const isBlank = (text: string): boolean => text.trim() === '';

/** `threadId` is a thread of this board (the id of its first comment), or "invalid_request". */
async function assertThreadOnBoard(db: Executor, boardId: string, threadId: string): Promise<void> {
  const root = await db
    .selectFrom('board_comments')
    .select('id')
    .where('id', '=', threadId)
    .where('board_id', '=', boardId)
    .where('parent_id', 'is', null)
    .executeTakeFirst();
  if (!root) throw invalid('thread_id is not a thread of this board (the id of its first comment)');
}

export class CommentService {
  constructor(private readonly deps: CommentDeps) {}

  /**
   * The board, locked against other writes of its comments and content (a card checked here stays
   * until the commit), when the caller may comment on it: 404 when they cannot see it, 403 when they may only read.
   */
  private async commentableBoard(trx: Transaction<Database>, principal: Principal, boardId: string): Promise<SeenBoard> {
    const board = await lockSeenBoard(trx, principal, boardId, 'no key update');
    if (!board) {
      // Tells a missing board from a caller whose key is no longer valid (401).
      await findVisibleBoard(trx, principal, boardId);
      throw notFound('Board');
    }
    if (!accessOf(board, board.member_role, principal).permissions.comment) {
      throw forbidden('Your role on this board does not allow comments');
    }
    return board;
  }

  private async one(db: Executor, boardId: string, commentId: string): Promise<Comment> {
    const row = await selectComments(db, boardId).where('board_comments.id', '=', commentId).executeTakeFirst();
    if (!row) throw notFound('Comment');
    return toComment(row);
  }

  /** Mentions must name people who may read the board whatever its public flag: its owner or its members. */
  private async assertMentionable(db: Executor, board: SeenBoard, mentions: readonly string[]): Promise<void> {
    const others = mentions.filter((id) => id !== board.owner_id);
    if (others.length === 0) return;
    const members = await db
      .selectFrom('board_members')
      .select('user_id')
      .where('board_id', '=', board.id)
      .where('user_id', 'in', others)
      .execute();
    const found = new Set(members.map((m) => m.user_id));
    const strangers = others.filter((id) => !found.has(id));
    if (strangers.length > 0) {
      throw invalid(`mentions names people who are not the board's owner or members: ${strangers.join(', ')}`);
    }
  }

  /** GET …/comments: oldest first by default; filtered to a thread, the threads on a card, open or resolved threads. */
  async list(principal: Principal, boardId: string, query: CommentListQuery, page: PageRequest, list: string): Promise<Page<ReadComment>> {
    const { db } = this.deps;
    await findVisibleBoard(db, principal, boardId);
    let q = selectComments(db, boardId).select(unreadFor(principal).as('unread'));
    if (query.thread_id !== undefined) q = q.where('board_comments.thread_id', '=', query.thread_id);
    if (query.node_id !== undefined || query.resolved !== undefined) {
      let threads = db.selectFrom('board_comments as t').select('t.id').where('t.board_id', '=', boardId).where('t.parent_id', 'is', null);
      if (query.node_id !== undefined) threads = threads.where('t.node_id', '=', query.node_id);
      if (query.resolved !== undefined) threads = threads.where('t.resolved_at', query.resolved ? 'is not' : 'is', null);
      q = q.where('board_comments.thread_id', 'in', threads);
    }
    const rows = await applyPage(q, page, 'board_comments').execute();
    const result = toPage(rows, page, list);
    return { ...result, data: result.data.map((row) => ({ ...toComment(row), unread: row.unread })) };
  }

  /** GET …/comments/{commentId}, with its entity tag. */
  async get(principal: Principal, ids: { boardId: string; commentId: string }): Promise<{ comment: ReadComment; tag: string }> {
    const { db } = this.deps;
    await findVisibleBoard(db, principal, ids.boardId);
    const row = await selectComments(db, ids.boardId)
      .select(unreadFor(principal).as('unread'))
      .where('board_comments.id', '=', ids.commentId)
      .executeTakeFirst();
    if (!row) throw notFound('Comment');
    const comment = toComment(row);
    return { comment: { ...comment, unread: row.unread }, tag: commentTag(comment) };
  }

  /** POST …/comments: starts a thread (on a card, a point, or the board), or replies to one. */
  async create(principal: Principal, boardId: string, input: CreateCommentBody): Promise<Comment> {
    if (isBlank(input.content)) throw invalid('content must not be empty or only white space');
    if (input.thread_id !== undefined && (input.node_id !== undefined || input.position !== undefined)) {
      throw invalid('A reply (thread_id) takes its thread’s place: give neither node_id nor position');
    }
    if (input.node_id !== undefined && input.position !== undefined) throw invalid('Give node_id or position, not both');
    return changeTransaction(this.deps.db, async (trx) => {
      const board = await this.commentableBoard(trx, principal, boardId);
      if (input.thread_id !== undefined) {
        await assertThreadOnBoard(trx, boardId, input.thread_id);
      }
      if (input.node_id !== undefined) await assertNodeOnBoard(trx, boardId, input.node_id, 'node_id');
      const mentions = input.mentions ?? [];
      await this.assertMentionable(trx, board, mentions);
      const id = newId();
      const at = now();
      await trx
        .insertInto('board_comments')
        .values({
          id,
          board_id: boardId,
          thread_id: input.thread_id ?? id,
          parent_id: input.thread_id ?? null,
          node_id: input.node_id ?? null,
          position_x: input.position?.x ?? null,
          position_y: input.position?.y ?? null,
          author_id: principal.userId,
          content: input.content,
          mentions,
          resolved_at: null,
          resolved_by: null,
          created_at: at,
          updated_at: at,
          edited_at: null,
        })
        .execute();
      const comment = await this.one(trx, boardId, id);
      await recordChanges(trx, boardId, principal.userId, [{ type: 'comment.created', data: comment }], at);
      return comment;
    });
  }

  /** PATCH …/comments/{commentId}: the author edits content and mentions; anyone who may comment resolves or reopens a thread. */
  async update(
    principal: Principal,
    ids: { boardId: string; commentId: string },
    input: UpdateCommentBody,
    { ifMatch }: { ifMatch?: TagCondition } = {},
  ): Promise<{ comment: Comment; tag: string }> {
    if (input.content !== undefined && isBlank(input.content)) throw invalid('content must not be empty or only white space');
    return changeTransaction(this.deps.db, async (trx) => {
      const board = await this.commentableBoard(trx, principal, ids.boardId);
      const current = await this.one(trx, ids.boardId, ids.commentId);
      const edits = input.content !== undefined || input.mentions !== undefined;
      if (edits && current.author.id !== principal.userId) throw forbidden('Only its author may edit a comment');
      if (input.resolved !== undefined && current.parent_id !== null) {
        throw invalid("resolved is a thread's: send it for the thread's first comment");
      }
      assertIfMatch(ifMatch, commentTag(current), 'comment');
      if (input.mentions !== undefined) await this.assertMentionable(trx, board, input.mentions);
      const at = now();
      await trx
        .updateTable('board_comments')
        .set({
          updated_at: at,
          ...(input.content !== undefined ? { content: input.content } : {}),
          ...(input.mentions !== undefined ? { mentions: input.mentions } : {}),
          ...(edits ? { edited_at: at } : {}),
          ...(input.resolved === true && current.resolved_at === null ? { resolved_at: at, resolved_by: principal.userId } : {}),
          ...(input.resolved === false ? { resolved_at: null, resolved_by: null } : {}),
        })
        .where('id', '=', ids.commentId)
        .execute();
      const comment = await this.one(trx, ids.boardId, ids.commentId);
      await recordChanges(trx, ids.boardId, principal.userId, [{ type: 'comment.updated', data: comment }], at);
      return { comment, tag: commentTag(comment) };
    });
  }

  /**
   * DELETE …/comments/{commentId}: its author, or the board's owner. Deleting a thread's first
   * comment deletes the thread (one event, whose thread_id is its id).
   */
  async remove(
    principal: Principal,
    ids: { boardId: string; commentId: string },
    { ifMatch }: { ifMatch?: TagCondition } = {},
  ): Promise<void> {
    await changeTransaction(this.deps.db, async (trx) => {
      const board = await this.commentableBoard(trx, principal, ids.boardId);
      const current = await this.one(trx, ids.boardId, ids.commentId);
      if (current.author.id !== principal.userId && board.owner_id !== principal.userId) {
        throw forbidden("Only its author or the board's owner may delete a comment");
      }
      assertIfMatch(ifMatch, commentTag(current), 'comment');
      await trx.deleteFrom('board_comments').where('id', '=', ids.commentId).execute();
      await recordChanges(trx, ids.boardId, principal.userId, [
        { type: 'comment.deleted', data: { id: current.id, thread_id: current.thread_id } },
      ]);
    });
  }

  /**
   * GET /v1/me/mentions: the comments that mention the caller, on the boards they may read now
   * (their own, those they are a member of, public ones), newest first by default.
   */
  async mentionsOf(principal: Principal, page: PageRequest, list: string): Promise<Page<ReadComment>> {
    const { db } = this.deps;
    const rows = await applyPage(
      selectComments(db)
        .innerJoin('boards as b', 'b.id', 'board_comments.board_id')
        .select(unreadFor(principal).as('unread'))
        .where(sql<boolean>`board_comments.mentions @> ARRAY[${principal.userId}]::uuid[]`)
        .where(boardSeenBy(principal, 'b')),
      page,
      'board_comments',
    ).execute();
    const result = toPage(rows, page, list);
    return { ...result, data: result.data.map((row) => ({ ...toComment(row), unread: row.unread })) };
  }

  /** POST …/comments/read: the caller has read the board's comments (or a thread's) up to a time. */
  async markRead(principal: Principal, boardId: string, input: MarkCommentsReadBody): Promise<CommentsRead> {
    const { db } = this.deps;
    await findVisibleBoard(db, principal, boardId);
    const threadId = input.thread_id ?? null;
    if (threadId !== null) {
      await assertThreadOnBoard(db, boardId, threadId);
    }
    const at = now();
    const upTo = new Date(input.up_to);
    const readAt = upTo > at ? at : upTo;
    const row = await db
      .insertInto('board_comment_reads')
      .values({ user_id: principal.userId, board_id: boardId, thread_id: threadId, read_at: readAt })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'board_id', 'thread_id'])
          .doUpdateSet({ read_at: sql`greatest(board_comment_reads.read_at, excluded.read_at)` }),
      )
      .returning(['board_id', 'thread_id', 'read_at'])
      .executeTakeFirstOrThrow();
    return row;
  }
}
