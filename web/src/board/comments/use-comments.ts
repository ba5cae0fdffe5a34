// The board's comments as this page holds them: loaded from the API when the event stream
// (re)connects, kept up to date by the stream's comment.created / updated / deleted events (from
// anyone, this tab included: the same comment arriving twice is one), with each comment's unread
// mark for this person (their own are never unread). Opening a thread marks it read, here at once
// and on the service. Threads, their counts per card and the pins at points are derived here.
import { useCallback, useMemo, useRef, useState } from 'react';
import { type CommentRecord, listAllComments, markRead } from './comments-api';

export interface Thread {
  root: CommentRecord;
  replies: CommentRecord[];
  /** Someone else's comment in it that this person has not seen. */
  unread: boolean;
  resolved: boolean;
  /** When its last comment was written (threads are listed newest activity first). */
  lastAt: string;
}

/** What a card's pin shows. */
export interface CardComments {
  open: number;
  unread: boolean;
}

const newer = (a: CommentRecord, b: CommentRecord) => a.updated_at >= b.updated_at;

export function useComments(boardId: string, me: string | undefined, notify: (message: string) => void) {
  const [byId, setById] = useState<ReadonlyMap<string, CommentRecord>>(new Map());
  const [loaded, setLoaded] = useState(false);
  // Comments deleted while a list was on its way, which it must not bring back.
  const deleted = useRef(new Set<string>());
  const loads = useRef(0);
  // Comments the stream brought while a list was on its way, which it may not have.
  const touched = useRef<Set<string>>(undefined);

  const upsert = useCallback(
    (comment: CommentRecord, created: boolean) => {
      if (deleted.current.has(comment.id)) return;
      touched.current?.add(comment.id);
      setById((current) => {
        const old = current.get(comment.id);
        if (old && !newer(comment, old)) return current;
        const unread = old?.unread ?? (created && comment.author.id !== me);
        const next = new Map(current);
        next.set(comment.id, { ...comment, unread });
        return next;
      });
    },
    [me],
  );

  const remove = useCallback((id: string, threadId?: string) => {
    deleted.current.add(id);
    setById((current) => {
      const next = new Map(current);
      next.delete(id);
      // A deleted root takes its replies with it.
      if (threadId === id || threadId === undefined)
        for (const c of current.values()) {
          if (c.thread_id !== id) continue;
          deleted.current.add(c.id);
          next.delete(c.id);
        }
      return next;
    });
  }, []);

  /** The whole list again (on connecting the stream, and after a reset). */
  const load = useCallback(async () => {
    const mine = ++loads.current;
    const during = new Set<string>();
    touched.current = during;
    try {
      const list = await listAllComments(boardId);
      if (mine !== loads.current) return;
      setById((current) => {
        const next = new Map<string, CommentRecord>();
        for (const c of list) if (!deleted.current.has(c.id)) next.set(c.id, c);
        for (const id of during) {
          const seen = current.get(id);
          const listed = next.get(id);
          if (seen && (!listed || newer(seen, listed))) next.set(id, seen);
        }
        return next;
      });
      setLoaded(true);
    } catch (error) {
      notify(`The comments could not be loaded: ${(error as Error).message}`);
    } finally {
      if (touched.current === during) touched.current = undefined;
    }
  }, [boardId, notify]);

  /** A comment event from the board's stream. */
  const receive = useCallback(
    (type: string, data: Record<string, unknown>) => {
      if (type === 'comment.deleted') return remove(data.id as string, data.thread_id as string | undefined);
      if (type === 'comment.created' || type === 'comment.updated') upsert(data as unknown as CommentRecord, type === 'comment.created');
    },
    [remove, upsert],
  );

  const threads = useMemo(() => {
    const roots = new Map<string, Thread>();
    for (const c of byId.values()) {
      if (c.parent_id === null)
        roots.set(c.id, { root: c, replies: [], unread: Boolean(c.unread), resolved: c.resolved_at !== null, lastAt: c.created_at });
    }
    for (const c of byId.values()) {
      if (c.parent_id === null) continue;
      const thread = roots.get(c.thread_id);
      if (!thread) continue;
      thread.replies.push(c);
      if (c.unread) thread.unread = true;
      if (c.created_at > thread.lastAt) thread.lastAt = c.created_at;
    }
    for (const t of roots.values()) t.replies.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return [...roots.values()].sort((a, b) => b.lastAt.localeCompare(a.lastAt));
  }, [byId]);

  /** Node id -> its open threads and whether one is unread. */
  const cards = useMemo(() => {
    const out: Record<string, CardComments> = {};
    for (const t of threads) {
      const nodeId = t.root.node_id;
      if (!nodeId || t.resolved) continue;
      out[nodeId] ??= { open: 0, unread: false };
      const entry = out[nodeId];
      entry.open += 1;
      if (t.unread) entry.unread = true;
    }
    return out;
  }, [threads]);

  const unreadThreads = useMemo(() => threads.filter((t) => t.unread).length, [threads]);

  /** The thread is seen: its unread marks go, here and on the service. */
  const read = useCallback(
    (thread: Thread) => {
      if (!thread.unread) return;
      const all = [thread.root, ...thread.replies];
      const latest = all.map((c) => c.created_at).sort()[all.length - 1]!;
      // The answer's times are to the millisecond and the service keeps finer ones: a millisecond on
      // covers the last comment itself.
      const upTo = new Date(Date.parse(latest) + 1).toISOString();
      setById((current) => {
        const next = new Map(current);
        for (const c of all) {
          const now = next.get(c.id);
          if (now?.unread) next.set(c.id, { ...now, unread: false });
        }
        return next;
      });
      void markRead(boardId, thread.root.id, upTo).catch(() => {
        // Only the mark is lost: the thread shows unread again after the next load.
      });
    },
    [boardId],
  );

  const mentionable = useMemo(() => {
    const authors = new Map<string, string>();
    for (const c of byId.values()) authors.set(c.author.id, c.author.name ?? c.author.id.slice(0, 8));
    return authors;
  }, [byId]);

  return { loaded, threads, cards, unreadThreads, load, receive, upsert, remove, read, authors: mentionable };
}

export type CommentsState = ReturnType<typeof useComments>;
