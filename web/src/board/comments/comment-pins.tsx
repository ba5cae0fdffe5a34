// Comment pins on the canvas: a card's pin (its open threads, a dot when one is unread), drawn in
// the card's title bar by node-frame.tsx, and the pins of the open threads at points of the canvas,
// drawn in the flow's coordinates (React Flow's ViewportPortal) so they pan and zoom with it.
import { useContext } from 'react';
import { ViewportPortal } from '@xyflow/react';
import { CommentIcon } from '../icons';
import { CardCommentsContext, useCardCommentActions } from './comments-context';
import type { Thread } from './use-comments';

const plural = (n: number) => `${n} open ${n === 1 ? 'thread' : 'threads'}`;

export function CardCommentPin({ id, title }: { id: string; title: string }) {
  const entry = useContext(CardCommentsContext)[id];
  const { openCard } = useCardCommentActions();
  if (!entry || entry.open === 0) return null;
  return (
    <button
      type="button"
      className={`bw-comment-pin nodrag${entry.unread ? ' is-unread' : ''}`}
      data-testid={`comment-pin-${id}`}
      aria-label={`Comments on ${title}: ${plural(entry.open)}${entry.unread ? ', unread' : ''}`}
      title={`${plural(entry.open)}${entry.unread ? ' (unread)' : ''}`}
      onClick={() => openCard(id)}
    >
      <CommentIcon />
      {entry.open}
    </button>
  );
}

export function PointPins({ threads, onOpen }: { threads: Thread[]; onOpen(threadId: string): void }) {
  const points = threads.filter((t) => !t.resolved && t.root.node_id === null && t.root.position !== null);
  if (points.length === 0) return null;
  return (
    <ViewportPortal>
      {points.map(({ root, unread, replies }) => (
        <button
          key={root.id}
          type="button"
          className={`bw-point-pin nodrag nopan${unread ? ' is-unread' : ''}`}
          style={{ transform: `translate(${root.position!.x}px, ${root.position!.y}px)` }}
          aria-label={`Comment by ${root.author.name ?? 'someone'}: ${root.content.slice(0, 60)}${unread ? ' (unread)' : ''}`}
          title={root.content.slice(0, 120)}
          onClick={() => onOpen(root.id)}
        >
          <CommentIcon />
          {replies.length > 0 ? replies.length + 1 : ''}
        </button>
      ))}
    </ViewportPortal>
  );
}
