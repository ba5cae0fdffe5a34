// The comments panel's calls to the API (board comments, issue 31: threads on a card, at a point of
// the canvas or on the board; replies; resolve and reopen; edit and delete; read marks) and the
// board's members for the @mention picker. Each throws an ApiError with the envelope's message.
import { api, authorizedFetch } from '../../api';
import { answerFields } from '../../lib/api-error';
import { ApiError, failureMessage, OFFLINE_MESSAGE, unwrap } from '../../lib/request';

/** A comment as the API answers it (`object: "comment"`); `unread` only in list answers. */
export interface CommentRecord {
  id: string;
  board_id: string;
  /** The root comment's id (a root's own). */
  thread_id: string;
  parent_id: string | null;
  node_id: string | null;
  position: { x: number; y: number } | null;
  author: { id: string; name: string | null };
  content: string;
  mentions: string[];
  resolved_at: string | null;
  resolved_by: string | null;
  created_at: string;
  updated_at: string;
  edited_at: string | null;
  unread?: boolean;
}

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

const base = (boardId: string) => `/v1/boards/${encodeURIComponent(boardId)}/comments`;

async function call<T>(path: string, init: RequestInit, fallback: string): Promise<T> {
  let response: Response;
  try {
    response = await authorizedFetch(path, {
      ...init,
      headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
    });
  } catch {
    throw new ApiError(OFFLINE_MESSAGE);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) throw new ApiError(failureMessage(response.status, body, fallback), answerFields(response, body));
  return body as T;
}

/** Every comment of the board, oldest first, each with `unread` for the caller. */
export async function listAllComments(boardId: string): Promise<CommentRecord[]> {
  const out: CommentRecord[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const page = await call<{ data: CommentRecord[]; has_more: boolean; cursor?: string | null }>(
      `${base(boardId)}?${query}`,
      { method: 'GET' },
      'Could not load the comments',
    );
    out.push(...page.data);
    cursor = page.has_more ? (page.cursor ?? undefined) : undefined;
  } while (cursor);
  return out;
}

/** Starts a thread or replies to one; `idempotencyKey` makes a retry of the same comment safe. */
export async function createComment(boardId: string, body: NewComment, idempotencyKey: string): Promise<CommentRecord> {
  const answer = await call<{ data: CommentRecord }>(
    base(boardId),
    { method: 'POST', body: JSON.stringify(body), headers: { 'idempotency-key': idempotencyKey } },
    'Could not send the comment',
  );
  return answer.data;
}

export async function updateComment(
  boardId: string,
  id: string,
  patch: { content?: string; mentions?: string[]; resolved?: boolean },
): Promise<CommentRecord> {
  const answer = await call<{ data: CommentRecord }>(
    `${base(boardId)}/${encodeURIComponent(id)}`,
    { method: 'PATCH', body: JSON.stringify(patch) },
    'Could not change the comment',
  );
  return answer.data;
}

export async function deleteComment(boardId: string, id: string): Promise<void> {
  await call<unknown>(`${base(boardId)}/${encodeURIComponent(id)}`, { method: 'DELETE' }, 'Could not delete the comment');
}

/** Marks the thread's comments up to `upTo` read for the caller. */
export async function markRead(boardId: string, threadId: string, upTo: string): Promise<void> {
  await call<unknown>(
    `${base(boardId)}/read`,
    { method: 'POST', body: JSON.stringify({ thread_id: threadId, up_to: upTo }) },
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
