// Presence: who else has the board open, with their cursor and selection, sent through the service
// (PUT /v1/boards/{id}/presence, and `presence` events on the board's stream), never stored as
// board content. This tab announces itself every few seconds, when its pointer moves over the
// canvas (at most a few times a second), while it drags nodes (their positions, 15 times a second,
// so the others see the drag as it happens: sync/live-drags.ts) and when its selection changes, and
// leaves when the canvas goes away or the page is hidden for good. Others' sessions are dropped when they leave,
// or when not heard from for the service's 15 seconds.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { XYPosition } from '@xyflow/react';
import { IDS_MAX_ITEMS } from '@board-workspace/limits';
import { announcePresence, leavePresence, type Presence, type PresenceUpdate } from '../../board-api';

const ANNOUNCE_EVERY_MS = 5_000;
/** Pointer moves are sent at most this often. */
const CURSOR_EVERY_MS = 200;
/** A drag's positions are sent at most this often (15 a second, within the presence budget of 1,200 a minute). */
const DRAG_EVERY_MS = 66;
/** While a drag rests (the pointer still), it is announced again this often, so the others keep showing it. */
const DRAG_REPEAT_MS = 1_000;
/** Another session's drag not heard of for this long has ended (it stopped announcing). */
export const DRAG_QUIET_MS = 3_000;
/** A session not heard from for this long has left (the service's own limit). */
const GONE_AFTER_MS = 15_000;

/** Another session's presence as this tab knows it: `dragQuiet` when its drag ended by going quiet. */
export type SessionPresence = Presence & { dragQuiet?: boolean };

export interface PresenceState {
  /** The other sessions on the board (this tab's own excluded), in the order they came. */
  others: SessionPresence[];
  /** Node id -> the colour of someone else who has it selected. */
  remoteSelection: Record<string, string>;
  /** A presence event from the stream. */
  receive(presence: Presence): void;
  /** The stream (re)connected: announce again (the service let the session go with the old stream). */
  reannounce(): void;
  /** This person's pointer on the canvas, in flow coordinates; null when it left the canvas. */
  moveCursor(point: XYPosition | null): void;
  /** The nodes this person is dragging, where they are now; null when the drag ended. */
  moveDragging(nodes: { id: string; position: XYPosition }[] | null): void;
}

/** A random id for this tab's session on the board. */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function usePresence({ boardId, sessionId, selection }: { boardId: string; sessionId: string; selection: string[] }): PresenceState {
  const [sessions, setSessions] = useState<Map<string, { presence: SessionPresence; heard: number }>>(new Map());
  const state = useRef<Required<PresenceUpdate>>({ cursor: null, selection: [], dragging: [] });
  const dragRepeat = useRef<ReturnType<typeof setInterval>>(undefined);
  const sending = useRef<{ busy: boolean; again: boolean; last: number; timer?: ReturnType<typeof setTimeout> }>({
    busy: false,
    again: false,
    last: 0,
  });
  const left = useRef(false);

  /** Sends this session's state now, or as soon as the one on its way is answered. */
  const announce = useCallback(() => {
    const s = sending.current;
    if (left.current) return;
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    s.last = Date.now();
    clearTimeout(s.timer);
    announcePresence(boardId, sessionId, state.current)
      .catch(() => undefined) // presence is best effort: the next announcement repairs it
      .finally(() => {
        s.busy = false;
        if (s.again) {
          s.again = false;
          announce();
        }
      });
  }, [boardId, sessionId]);

  /** Announces within `everyMs` of the last announcement (a newer state replaces a waiting one). */
  const announceWithin = useCallback(
    (everyMs: number) => {
      const s = sending.current;
      const wait = s.last + (state.current.dragging.length > 0 ? Math.min(everyMs, DRAG_EVERY_MS) : everyMs) - Date.now();
      clearTimeout(s.timer);
      if (wait <= 0) announce();
      else s.timer = setTimeout(announce, wait);
    },
    [announce],
  );

  const moveCursor = useCallback(
    (point: XYPosition | null) => {
      const cursor = point && { x: Math.round(point.x), y: Math.round(point.y) };
      const before = state.current.cursor;
      if (before === cursor || (before && cursor && before.x === cursor.x && before.y === cursor.y)) return;
      state.current = { ...state.current, cursor };
      announceWithin(CURSOR_EVERY_MS);
    },
    [announceWithin],
  );

  const moveDragging = useCallback(
    (nodes: { id: string; position: XYPosition }[] | null) => {
      clearInterval(dragRepeat.current);
      if (!nodes || nodes.length === 0) {
        if (state.current.dragging.length === 0) return;
        // The drop: said at once, so the others stop showing the drag (and show the saved position).
        state.current = { ...state.current, dragging: [] };
        clearTimeout(sending.current.timer);
        announce();
        return;
      }
      const dragged = nodes.slice(0, IDS_MAX_ITEMS);
      // A dragged node is one of the selection (the service requires it; React Flow selects what it drags).
      const selection = [...new Set([...dragged.map((n) => n.id), ...state.current.selection])].slice(0, IDS_MAX_ITEMS);
      const dragging = dragged.map((n) => ({ node_id: n.id, x: Math.round(n.position.x), y: Math.round(n.position.y) }));
      state.current = { ...state.current, selection, dragging };
      announceWithin(DRAG_EVERY_MS);
      dragRepeat.current = setInterval(announce, DRAG_REPEAT_MS);
    },
    [announce, announceWithin],
  );

  const selectionKey = selection.slice(0, 100).join(',');
  useEffect(() => {
    const selection = selectionKey ? selectionKey.split(',') : [];
    // Nodes still dragged stay in the announced selection (the service requires it).
    const dragged = state.current.dragging.map((d) => d.node_id).filter((id) => !selection.includes(id));
    state.current = { ...state.current, selection: [...dragged, ...selection].slice(0, IDS_MAX_ITEMS) };
    announce();
  }, [selectionKey, announce]);

  // Every few seconds, so the service knows the session is still there.
  useEffect(() => {
    left.current = false;
    const timer = setInterval(announce, ANNOUNCE_EVERY_MS);
    const leave = () => {
      if (left.current) return;
      left.current = true;
      void leavePresence(boardId, sessionId).catch(() => undefined);
    };
    // Back from the back/forward cache: the session is there again.
    const back = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      left.current = false;
      announce();
    };
    window.addEventListener('pagehide', leave);
    window.addEventListener('pageshow', back);
    return () => {
      clearInterval(timer);
      clearInterval(dragRepeat.current);
      clearTimeout(sending.current.timer);
      window.removeEventListener('pagehide', leave);
      window.removeEventListener('pageshow', back);
      leave();
    };
  }, [boardId, sessionId, announce]);

  const receive = useCallback(
    (presence: Presence) => {
      if (presence.session_id === sessionId) return;
      setSessions((current) => {
        const next = new Map(current);
        if (presence.left) next.delete(presence.session_id);
        else next.set(presence.session_id, { presence, heard: Date.now() });
        return next;
      });
    },
    [sessionId],
  );

  // Sessions whose announcements stopped (a tab closed without saying so) go after the service's
  // limit; their drag ends sooner (a dragging tab announces at least every second).
  useEffect(() => {
    const timer = setInterval(() => {
      const now = Date.now();
      const quietDrag = (s: { presence: SessionPresence; heard: number }) =>
        s.presence.dragging.length > 0 && now - s.heard > DRAG_QUIET_MS;
      setSessions((current) => {
        if (![...current.values()].some((s) => now - s.heard > GONE_AFTER_MS || quietDrag(s))) return current;
        return new Map(
          [...current]
            .filter(([, s]) => now - s.heard <= GONE_AFTER_MS)
            .map(([id, s]) => [id, quietDrag(s) ? { ...s, presence: { ...s.presence, dragging: [], dragQuiet: true } } : s]),
        );
      });
    }, 500);
    return () => clearInterval(timer);
  }, []);

  const others = useMemo(() => [...sessions.values()].map((s) => s.presence), [sessions]);
  const remoteSelection = useMemo(() => {
    const out: Record<string, string> = {};
    for (const p of others) for (const id of p.selection) out[id] ??= p.color;
    return out;
  }, [others]);

  return { others, remoteSelection, receive, reannounce: announce, moveCursor, moveDragging };
}
