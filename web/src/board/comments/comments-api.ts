// The comments panel's calls to the API (board comments, issue 31: threads on a card, at a point of
// the canvas or on the board; replies; resolve and reopen; edit and delete; read marks) and the
// board's members for the @mention picker. Each throws an ApiError with the envelope's message.
import type { paths } from '@board-workspace/client';
import { api } from '../../api';
import { unwrap } from '../../lib/request';

type CommentsPath = paths['/v1/boards/{boardId}/comments'];
/** A comment as the API lists it (`object: "comment"`, with `unread` for the caller); events carry it without `unread`. */
export type CommentRecord = Omit<CommentsPath['get']['responses'][200]['content']['application/json']['data'][number], 'unread'> & {
  unread?: boolean;
};

export interface NewComment {
  content: string;
  node_id?: string;
  position?: { x: number; y: number };
  thread_id?: string;
  mentions?: string[];
}

/** Someone who may be @mentioned: a member, the owner, or an author seen on the board. */
export interface Mentionable {
  id: string;
  /** What the mention says after its @: the name comments show for them (an email's name part). */
  label: string;
  /** Told apart by it in the picker (the email). */
  detail?: string;
}

/** Every comment of the board, oldest first, each with `unread` for the caller. */
export async function listAllComments(boardId: string): Promise<CommentRecord[]> {
  const out: CommentRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      api.GET('/v1/boards/{boardId}/comments', { params: { path: { boardId }, query: { limit: 100, cursor } } }),
      'Could not load the comments',
    );
    out.push(...page.data);
    cursor = page.has_more ? (page.cursor ?? undefined) : undefined;
  } while (cursor);
  return out;
}

/** Starts a thread or replies to one; `idempotencyKey` makes a retry of the same comment safe. */
export async function createComment(boardId: string, body: NewComment, idempotencyKey: string): Promise<CommentRecord> {
  const answer = await unwrap(
    api.POST('/v1/boards/{boardId}/comments', { params: { path: { boardId } }, body, headers: { 'idempotency-key': idempotencyKey } }),
    'Could not send the comment',
  );
  return answer.data;
}

export async function updateComment(
  boardId: string,
  commentId: string,
  patch: { content?: string; mentions?: string[]; resolved?: boolean },
): Promise<CommentRecord> {
  const answer = await unwrap(
    api.PATCH('/v1/boards/{boardId}/comments/{commentId}', { params: { path: { boardId, commentId } }, body: patch }),
    'Could not change the comment',
  );
  return answer.data;
}

export async function deleteComment(boardId: string, commentId: string): Promise<void> {
  await unwrap(
    api.DELETE('/v1/boards/{boardId}/comments/{commentId}', { params: { path: { boardId, commentId } } }),
    'Could not delete the comment',
  );
}

/** Marks the thread's comments up to `upTo` read for the caller. */
export async function markRead(boardId: string, threadId: string, upTo: string): Promise<void> {
  await unwrap(
    api.POST('/v1/boards/{boardId}/comments/read', { params: { path: { boardId } }, body: { thread_id: threadId, up_to: upTo } }),
    'Could not mark the comments read',
  );
}

/** The board's members (the owner and members may list them; anyone else gets none). */
export async function listMembers(boardId: string): Promise<Mentionable[]> {
  try {
    const page = await unwrap(
      api.GET('/v1/boards/{boardId}/members', { params: { path: { boardId }, query: { limit: 100 } } }),
      'Could not load the members',
    );
    // The same name as comments carry for their author (the email's name part).
    return page.data.map((m) => ({ id: m.user_id, label: m.email?.split('@')[0] || m.user_id.slice(0, 8), detail: m.email ?? undefined }));
  } catch {
    return [];
  }
}
