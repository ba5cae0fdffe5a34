// The Comments panel beside the canvas: the board's threads (open or resolved, all or one card's),
// a thread with its replies, the reply box, resolve and reopen, editing and deleting one's own
// comments (the owner may delete anyone's), and a new thread on a card, at a point or on the
// board. What this person may do is the board's `permissions.comment`: without it the panel reads
// only. Opening a thread marks it read.
import { useEffect, useState } from 'react';
import { CommentBox } from './comment-box';
import { type CommentRecord, createComment, deleteComment, type Mentionable, updateComment } from './comments-api';
import type { CommentsState, Thread } from './use-comments';
import './comments.css';

export type CommentsView =
  | { kind: 'list'; filter: 'open' | 'resolved'; nodeId?: string }
  | { kind: 'thread'; threadId: string }
  | { kind: 'new'; nodeId?: string; position?: { x: number; y: number } };

export interface CommentsPanelProps {
  boardId: string;
  me: string | undefined;
  isOwner: boolean;
  canComment: boolean;
  comments: CommentsState;
  view: CommentsView;
  onView(view: CommentsView): void;
  candidates: Mentionable[];
  nodeLabel(id: string): string | undefined;
  onOpenNode(id: string): void;
  retrySignal: number;
  notify(message: string): void;
  onClose(): void;
}

const when = (at: string) => new Date(at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

function placeOf(root: Pick<CommentRecord, 'node_id' | 'position'>, nodeLabel: (id: string) => string | undefined): string {
  if (root.node_id) return `On “${nodeLabel(root.node_id) ?? 'a card'}”`;
  if (root.position) return 'At a point of the canvas';
  return 'On the board';
}

export function CommentsPanel(props: CommentsPanelProps) {
  const { view, onView, comments, onClose } = props;
  return (
    <aside className="bw-chat bw-comments" aria-label="Comments">
      <header className="bw-chat__head">
        <h2>Comments</h2>
        <button type="button" className="bw-icon-button" aria-label="Close comments" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="bw-comments__body">
        {view.kind === 'list' && <ThreadList {...props} view={view} />}
        {view.kind === 'new' && <NewThread {...props} view={view} />}
        {view.kind === 'thread' &&
          (() => {
            const thread = comments.threads.find((t) => t.root.id === view.threadId);
            if (!thread)
              return (
                <>
                  <BackButton onView={onView} />
                  <p className="bw-muted">{comments.loaded ? 'This thread has been deleted.' : 'Loading…'}</p>
                </>
              );
            return <ThreadView {...props} thread={thread} />;
          })()}
      </div>
    </aside>
  );
}

function BackButton({ onView, nodeId }: { onView(view: CommentsView): void; nodeId?: string }) {
  return (
    <button type="button" className="bw-button is-small bw-comments__back" onClick={() => onView({ kind: 'list', filter: 'open', nodeId })}>
      ← All threads
    </button>
  );
}

function ThreadList(props: CommentsPanelProps & { view: Extract<CommentsView, { kind: 'list' }> }) {
  const { view, onView, comments, canComment, nodeLabel } = props;
  const shown = comments.threads.filter(
    (t) => t.resolved === (view.filter === 'resolved') && (view.nodeId === undefined || t.root.node_id === view.nodeId),
  );
  return (
    <>
      <div className="bw-comments__filters" role="group" aria-label="Show threads">
        <button
          type="button"
          className="bw-button is-small"
          aria-pressed={view.filter === 'open'}
          onClick={() => onView({ ...view, filter: 'open' })}
        >
          Open
        </button>
        <button
          type="button"
          className="bw-button is-small"
          aria-pressed={view.filter === 'resolved'}
          onClick={() => onView({ ...view, filter: 'resolved' })}
        >
          Resolved
        </button>
        <span className="bw-comments__spacer" />
        {canComment && (
          <button type="button" className="bw-button is-small is-primary" onClick={() => onView({ kind: 'new', nodeId: view.nodeId })}>
            New comment
          </button>
        )}
      </div>
      {view.nodeId && (
        <p className="bw-comments__scope">
          {placeOf({ node_id: view.nodeId, position: null }, nodeLabel)}{' '}
          <button type="button" className="bw-link-button" onClick={() => onView({ kind: 'list', filter: view.filter })}>
            Show all
          </button>
        </p>
      )}
      {!comments.loaded ? (
        <p className="bw-muted" role="status">
          Loading…
        </p>
      ) : shown.length === 0 ? (
        <p className="bw-muted">{view.filter === 'open' ? 'No open threads.' : 'No resolved threads.'}</p>
      ) : (
        <ul className="bw-comments__threads" aria-label={view.filter === 'open' ? 'Open threads' : 'Resolved threads'}>
          {shown.map((thread) => (
            <li key={thread.root.id}>
              <button
                type="button"
                className={`bw-comments__thread${thread.unread ? ' is-unread' : ''}`}
                onClick={() => onView({ kind: 'thread', threadId: thread.root.id })}
              >
                <span className="bw-comments__meta">
                  <strong>{thread.root.author.name ?? 'Someone'}</strong>
                  {thread.unread && (
                    <span className="bw-unread-dot" role="img" aria-label="Unread">
                      {' '}
                    </span>
                  )}
                  <span className="bw-muted">{when(thread.lastAt)}</span>
                </span>
                <span className="bw-comments__snippet">{thread.root.content}</span>
                <span className="bw-muted">
                  {placeOf(thread.root, nodeLabel)}
                  {thread.replies.length > 0 && ` · ${thread.replies.length} ${thread.replies.length === 1 ? 'reply' : 'replies'}`}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function NewThread(props: CommentsPanelProps & { view: Extract<CommentsView, { kind: 'new' }> }) {
  const { view, onView, boardId, comments, candidates, retrySignal, nodeLabel } = props;
  const place = view.nodeId
    ? `card:${view.nodeId}`
    : view.position
      ? `point:${Math.round(view.position.x)},${Math.round(view.position.y)}`
      : 'board';
  return (
    <>
      <BackButton onView={onView} nodeId={view.nodeId} />
      <p className="bw-comments__scope">{placeOf({ node_id: view.nodeId ?? null, position: view.position ?? null }, nodeLabel)}</p>
      <CommentBox
        draftKey={`${boardId}:new:${place}`}
        label="Comment"
        submitLabel="Comment"
        candidates={candidates}
        retrySignal={retrySignal}
        autoFocus
        onSend={async (content, mentions, idempotencyKey) => {
          const created = await createComment(
            boardId,
            {
              content,
              mentions,
              ...(view.nodeId ? { node_id: view.nodeId } : {}),
              ...(view.position ? { position: { x: Math.round(view.position.x), y: Math.round(view.position.y) } } : {}),
            },
            idempotencyKey,
          );
          comments.upsert(created, false);
          onView({ kind: 'thread', threadId: created.id });
        }}
        onCancel={() => onView({ kind: 'list', filter: 'open', nodeId: view.nodeId })}
      />
    </>
  );
}

function ThreadView(props: CommentsPanelProps & { thread: Thread }) {
  const { thread, onView, boardId, comments, canComment, candidates, retrySignal, nodeLabel, onOpenNode, notify } = props;
  const { root } = thread;
  const [busy, setBusy] = useState(false);
  const { read } = comments;
  // Seen: the unread marks go, and again as others' replies arrive while it is open.
  useEffect(() => {
    if (thread.unread) read(thread);
  }, [thread, read]);

  const resolve = async (resolved: boolean) => {
    setBusy(true);
    try {
      comments.upsert(await updateComment(boardId, root.id, { resolved }), false);
    } catch (error) {
      notify((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bw-comments__thread-view" aria-label="Thread">
      <BackButton onView={onView} nodeId={root.node_id ?? undefined} />
      <p className="bw-comments__scope">
        {root.node_id ? (
          <button type="button" className="bw-link-button" onClick={() => onOpenNode(root.node_id!)}>
            {placeOf(root, nodeLabel)}
          </button>
        ) : (
          placeOf(root, nodeLabel)
        )}
        {thread.resolved && <span className="bw-badge">Resolved</span>}
      </p>
      <ol className="bw-comments__messages" aria-label="Comments in this thread">
        {[root, ...thread.replies].map((comment) => (
          <CommentItem key={comment.id} {...props} comment={comment} />
        ))}
      </ol>
      {canComment && (
        <button type="button" className="bw-button is-small" disabled={busy} onClick={() => void resolve(!thread.resolved)}>
          {thread.resolved ? 'Reopen' : 'Resolve'}
        </button>
      )}
      {canComment && (
        <CommentBox
          draftKey={`${boardId}:reply:${root.id}`}
          label="Reply"
          submitLabel="Reply"
          candidates={candidates}
          retrySignal={retrySignal}
          onSend={async (content, mentions, idempotencyKey) => {
            comments.upsert(await createComment(boardId, { content, mentions, thread_id: root.id }, idempotencyKey), false);
          }}
        />
      )}
    </section>
  );
}

function CommentItem(props: CommentsPanelProps & { comment: CommentRecord }) {
  const { comment, me, isOwner, canComment, boardId, comments, candidates, retrySignal, notify, onView } = props;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const own = me !== undefined && comment.author.id === me;
  const isRoot = comment.parent_id === null;
  const author = comment.author.name ?? 'Someone';
  const remove = async () => {
    try {
      await deleteComment(boardId, comment.id);
      comments.remove(comment.id, comment.thread_id);
      if (isRoot) onView({ kind: 'list', filter: 'open' });
    } catch (error) {
      notify((error as Error).message);
    }
  };
  return (
    <li className="bw-comment">
      <article aria-label={`Comment by ${author}`}>
        <header className="bw-comments__meta">
          <strong>{author}</strong>
          <span className="bw-muted">
            {when(comment.created_at)}
            {comment.edited_at && ' · edited'}
          </span>
        </header>
        {editing ? (
          <CommentBox
            draftKey={`${boardId}:edit:${comment.id}`}
            label="Edit comment"
            submitLabel="Save"
            initial={comment.content}
            initialMentions={comment.mentions}
            candidates={candidates}
            retrySignal={retrySignal}
            autoFocus
            onSend={async (content, mentions) => {
              comments.upsert(await updateComment(boardId, comment.id, { content, mentions }), false);
              setEditing(false);
            }}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <p className="bw-comment__text">{comment.content}</p>
        )}
        {!editing && (own || isOwner) && (
          <div className="bw-comment__actions">
            {own && canComment && (
              <button type="button" className="bw-link-button" aria-label={`Edit comment by ${author}`} onClick={() => setEditing(true)}>
                Edit
              </button>
            )}
            {confirming ? (
              <>
                <button type="button" className="bw-link-button is-danger" onClick={() => void remove()}>
                  {isRoot ? 'Delete the thread' : 'Delete the comment'}
                </button>
                <button type="button" className="bw-link-button" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button
                type="button"
                className="bw-link-button"
                aria-label={`Delete comment by ${author}`}
                onClick={() => setConfirming(true)}
              >
                Delete
              </button>
            )}
          </div>
        )}
      </article>
    </li>
  );
}
