// The frame every canvas node shares: connection handles, a title bar with the node's menu
// (chat about it, comment on it, rename, colour, delete), its comment pin (comments/comment-pins.tsx), its reading state (read-badge.tsx), and the highlight a
// search result or chat source gives it, and an outline in someone else's colour when they have it selected.
// Its size, colour and editable title are card-parts.tsx's (stored in the node's data).
import { type CSSProperties, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { useDismiss } from '../../lib/use-dismiss';
import { useMenuKeys } from '../../lib/use-menu-keys';
import { Handle, Position, useNodesData } from '@xyflow/react';
import { type BoardFlowNode, HighlightContext, RemoteSelectionContext, useBoardActions } from '../board-context';
import { useCardActions } from '../canvas/edits/card-actions';
import { PopoverMenu, useAnchoredPopover } from '../canvas/ui/popover-layer';
import { ColorSwatches, EditableTitle, useCardLook } from './card-parts';
import { ReadBadge } from './read-badge';
import { str } from '../../lib/str';
import { CardCommentPin } from '../comments/comment-pins';
import { useCardCommentActions } from '../comments/comments-context';

/** Whether a card has something to read: a note or document its text (as typed here), a file-made document its file. */
export function hasContent(kind: string, data: Record<string, unknown>, typed?: string): boolean {
  if (kind === 'note') return (typed ?? str(data.text)).trim() !== '';
  if (kind === 'document') return str(data.text).trim() !== '' || typeof data.storagePath === 'string';
  return true;
}

export function NodeFrame(props: {
  id: string;
  kind: string;
  icon: ReactNode;
  title: string;
  selected?: boolean;
  children: ReactNode;
  wide?: boolean;
}) {
  const { id, kind, icon, title, selected, children, wide } = props;
  const highlighted = useContext(HighlightContext) === id;
  const actions = useBoardActions();
  const remoteColor = useContext(RemoteSelectionContext)[id];
  const data = useNodesData<BoardFlowNode>(id)?.data ?? {};
  const look = useCardLook(id, data, selected);
  const [renaming, setRenaming] = useState(false);
  const classes = [
    'bw-node',
    `bw-node--${kind}`,
    selected ? 'is-selected' : '',
    highlighted ? 'is-highlighted' : '',
    wide ? 'bw-node--wide' : '',
    remoteColor ? 'is-remote-selected' : '',
    ...look.classes,
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-highlighted={highlighted ? 'true' : undefined}
      data-remote-selected={remoteColor}
      data-color={look.color}
      style={{ ...look.style, ...(remoteColor ? ({ '--bw-remote-color': remoteColor } as CSSProperties) : {}) }}
    >
      {look.resizer}
      <Handle type="target" position={Position.Top} className="bw-handle" />
      <div className="bw-node__head">
        <span className="bw-node__icon" aria-hidden="true">
          {icon}
        </span>
        <EditableTitle id={id} title={title} label={data.label} editing={renaming} onEditing={setRenaming} />
        <CardCommentPin id={id} title={title} />
        <NodeMenu id={id} title={title} color={look.color} onRename={() => setRenaming(true)} />
      </div>
      <div className="bw-node__body">{children}</div>
      <ReadBadge id={id} kind={kind} data={data} hasContent={hasContent(kind, data, actions.text.local(id))} />
      <Handle type="source" position={Position.Bottom} className="bw-handle" />
    </div>
  );
}

function NodeMenu(props: { id: string; title: string; color: string | undefined; onRename(): void }) {
  const { id, title, color, onRename } = props;
  const actions = useBoardActions();
  const cards = useCardActions();
  const comments = useCardCommentActions();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  // Drawn in the board's popover layer, above the notices, at the button (popover-layer.tsx).
  const popover = useAnchoredPopover('bottom-end');
  const list = popover.refs.floating;
  const { setReference } = popover.refs;
  const triggerRef = useCallback(
    (element: HTMLButtonElement | null) => {
      trigger.current = element;
      setReference(element);
    },
    [setReference],
  );
  useDismiss([ref, list], open, setOpen);
  const keys = useMenuKeys({ open, setOpen, trigger, list });
  const run = (action: () => void) => () => {
    setOpen(false);
    action();
  };
  return (
    <div className="bw-menu nodrag" ref={ref}>
      <button
        type="button"
        ref={triggerRef}
        className="bw-icon-button"
        aria-label={`Menu of ${title}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <PopoverMenu label={`Menu of ${title}`} popover={popover} onKeyDown={keys.onKeyDown}>
          <button type="button" role="menuitem" onClick={run(() => actions.chatAbout(id))}>
            Chat about this
          </button>
          {comments.canComment && (
            <button type="button" role="menuitem" onClick={run(() => comments.commentOn(id))}>
              Comment
            </button>
          )}
          {cards.canEdit && (
            <>
              <button type="button" role="menuitem" onClick={run(onRename)}>
                Rename
              </button>
              <ColorSwatches label="Card colour" value={color} onChange={(c) => cards.updateNodeData(id, { color: c })} />
            </>
          )}
          {actions.canEdit && (
            <button type="button" role="menuitem" className="is-danger" onClick={run(() => actions.remove(id))}>
              Delete
            </button>
          )}
        </PopoverMenu>
      )}
    </div>
  );
}

/** The node's label, or a fallback per type. */
export function labelOf(data: Record<string, unknown>, fallback: string): string {
  return typeof data.label === 'string' && data.label.trim() ? data.label : fallback;
}

export { str } from '../../lib/str';
