// What presence looks like: the other people on the board as avatars (an initial in their colour)
// in the header, and their pointers drawn on the canvas in flow coordinates (ViewportPortal moves
// them with the view; they keep their size at any zoom). Their selections are outlined on the
// nodes themselves (RemoteSelectionContext, read by NodeFrame).
import { useViewport, ViewportPortal } from '@xyflow/react';
import type { Presence } from '../../board-api';

export function PresenceAvatars({ others }: { others: Presence[] }) {
  // One avatar per person, however many tabs they have open.
  const people = [...new Map(others.map((p) => [p.user_id, p])).values()];
  if (people.length === 0) return null;
  return (
    <ul className="bw-presence" aria-label="Also on this board">
      {people.map((p) => (
        <li key={p.user_id} className="bw-avatar" style={{ background: p.color }} data-user-id={p.user_id} title="Also on this board">
          {p.initial}
        </li>
      ))}
    </ul>
  );
}

export function RemoteCursors({ others }: { others: Presence[] }) {
  const { zoom } = useViewport();
  return (
    <ViewportPortal>
      {others.map((p) =>
        p.cursor ? (
          <div
            key={p.session_id}
            className="bw-cursor"
            data-user-id={p.user_id}
            style={{ transform: `translate(${p.cursor.x}px, ${p.cursor.y}px) scale(${1 / zoom})`, color: p.color }}
            aria-hidden="true"
          >
            <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
              <path d="M1 1 L1 15 L5 11 L8 17 L10.5 16 L7.5 10 L13 10 Z" fill="currentColor" stroke="#fff" strokeWidth="1.2" />
            </svg>
            <span className="bw-cursor__label" style={{ background: p.color }}>
              {p.initial}
            </span>
          </div>
        ) : null,
      )}
    </ViewportPortal>
  );
}
