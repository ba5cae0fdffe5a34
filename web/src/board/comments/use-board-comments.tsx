// Comments on the board page, put together for the canvas (board-canvas.tsx): the comments'
// state (use-comments.ts), whether the panel is open and what it shows, the people who may be
// mentioned (the board's members, the owner and anyone who has commented, not oneself), the
// cards' pin contexts, and the canvas's context menu ("Comment here" at a point, "Comment on this
// card" on a card; a right-button drag still pans). The board's event stream feeds `receive` and,
// on each (re)connection, `connected` (the list is loaded again, failed sends are tried again).
import {
  type MouseEvent,
  type PointerEvent,
  type RefObject,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useReactFlow } from '@xyflow/react';
import { useSession } from '../../auth/session';
import { useDismiss } from '../../lib/use-dismiss';
import { useMenuKeys } from '../../lib/use-menu-keys';
import type { CardCommentActions } from './comments-context';
import { listMembers, type Mentionable } from './comments-api';
import type { CommentsView } from './comments-panel';
import { useComments } from './use-comments';
import { PopoverMenu, useAnchoredPopover } from '../canvas/ui/popover-layer';

interface MenuAt {
  /** Where it opened, in the page's (client) pixels. */
  left: number;
  top: number;
  /** The point of the canvas (flow coordinates). */
  point: { x: number; y: number };
  nodeId?: string;
}

export interface BoardCommentsOptions {
  boardId: string;
  /** The board's `permissions.comment` as the service answered it, and the board still readable. */
  canComment: boolean;
  /** Someone added as a member since the page opened, or the owner. */
  wrapper: RefObject<HTMLDivElement | null>;
  notify(message: string): void;
}

const MOVE_PX = 5;

export function useBoardComments({ boardId, canComment, wrapper, notify }: BoardCommentsOptions) {
  const session = useSession();
  const me = session.status === 'signed-in' ? session.user.id : undefined;
  const comments = useComments(boardId, me, notify);
  const [open, setOpen] = useState(false);
  const [view, setView] = useState<CommentsView>({ kind: 'list', filter: 'open' });
  const [retrySignal, setRetrySignal] = useState(0);
  const [members, setMembers] = useState<Mentionable[]>();
  const flow = useReactFlow();

  // The members are asked for once the panel opens (the mention picker's list).
  useEffect(() => {
    if (!open || members) return;
    void listMembers(boardId).then(setMembers);
  }, [open, members, boardId]);

  const candidates = useMemo(() => {
    const out = new Map<string, Mentionable>();
    for (const m of members ?? []) out.set(m.id, m);
    for (const [id, label] of comments.authors) if (!out.has(id)) out.set(id, { id, label });
    if (me) out.delete(me);
    return [...out.values()].sort((a, b) => a.label.localeCompare(b.label));
  }, [members, comments.authors, me]);

  const show = useCallback((next: CommentsView) => {
    setView(next);
    setOpen(true);
  }, []);

  const { threads } = comments;
  const threadsRef = useRef(threads);
  threadsRef.current = threads;
  const cardActions = useMemo<CardCommentActions>(
    () => ({
      canComment,
      openCard: (nodeId) => {
        // One open thread on the card: straight to it.
        const open = threadsRef.current.filter((t) => t.root.node_id === nodeId && !t.resolved);
        show(open.length === 1 ? { kind: 'thread', threadId: open[0]!.root.id } : { kind: 'list', filter: 'open', nodeId });
      },
      commentOn: (nodeId) => show({ kind: 'new', nodeId }),
    }),
    [canComment, show],
  );

  const { load } = comments;
  const connected = useCallback(() => {
    void load();
    setRetrySignal((n) => n + 1);
  }, [load]);

  // The context menu, and a right-button press that turns into a pan closing it.
  const [menu, setMenu] = useState<MenuAt>();
  const press = useRef<{ x: number; y: number; moved: boolean }>(undefined);
  const onPointerDown = useCallback((event: PointerEvent) => {
    if (event.button === 2) press.current = { x: event.clientX, y: event.clientY, moved: false };
  }, []);
  const onPointerMove = useCallback((event: PointerEvent) => {
    const down = press.current;
    if (!down || (event.buttons & 2) === 0 || down.moved) return;
    if (Math.hypot(event.clientX - down.x, event.clientY - down.y) > MOVE_PX) {
      down.moved = true;
      setMenu(undefined);
    }
  }, []);
  const onContextMenu = useCallback(
    (event: MouseEvent) => {
      const target = event.target as Element;
      const onCard = target.closest('.react-flow__node');
      if (!canComment || (!onCard && !target.closest('.react-flow__pane'))) return;
      if (target.closest('input, textarea, [contenteditable="true"]')) return;
      event.preventDefault();
      if (press.current?.moved) return;
      if (!wrapper.current) return;
      // From the keyboard (the menu key) the event has no pointer position: the element's centre.
      const fromKeys = event.clientX === 0 && event.clientY === 0;
      const rect = (onCard ?? target).getBoundingClientRect();
      const x = fromKeys ? rect.left + rect.width / 2 : event.clientX;
      const y = fromKeys ? rect.top + rect.height / 2 : event.clientY;
      setMenu({
        left: x,
        top: y,
        point: flow.screenToFlowPosition({ x, y }),
        nodeId: onCard?.getAttribute('data-id') ?? undefined,
      });
    },
    [canComment, wrapper, flow],
  );

  return {
    comments,
    me,
    open,
    setOpen,
    view,
    show,
    candidates,
    cardActions,
    retrySignal,
    connected,
    menu,
    closeMenu: () => setMenu(undefined),
    canvasHandlers: { onPointerDown, onPointerMove, onContextMenu },
  };
}

export function CanvasCommentMenu({
  at,
  onClose,
  onComment,
}: {
  at: MenuAt;
  onClose(): void;
  onComment(where: { nodeId?: string; position?: { x: number; y: number } }): void;
}) {
  // Drawn in the board's popover layer, above the notices, at the point (popover-layer.tsx).
  const popover = useAnchoredPopover('bottom-start');
  const list = popover.refs.floating;
  const { setReference } = popover.refs;
  useLayoutEffect(() => {
    const { left, top } = at;
    setReference({ getBoundingClientRect: () => new DOMRect(left, top, 0, 0) });
  }, [at, setReference]);
  const trigger = useRef<HTMLElement | null>(document.activeElement as HTMLElement | null);
  const setOpen = useCallback((open: boolean) => !open && onClose(), [onClose]);
  useDismiss(list, true, setOpen);
  const keys = useMenuKeys({ open: true, setOpen, trigger, list });
  const run = (where: { nodeId?: string; position?: { x: number; y: number } }) => () => {
    onClose();
    onComment(where);
  };
  return (
    <PopoverMenu label="Canvas menu" popover={popover} onKeyDown={keys.onKeyDown}>
      {at.nodeId && (
        <button type="button" role="menuitem" onClick={run({ nodeId: at.nodeId })}>
          Comment on this card
        </button>
      )}
      <button type="button" role="menuitem" onClick={run({ position: at.point })}>
        Comment here
      </button>
    </PopoverMenu>
  );
}
