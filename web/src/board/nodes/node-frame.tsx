// The frame every canvas node shares: connection handles, a title bar with the node's menu
// (make searchable, chat about it, delete), the vectorize job's progress, and the highlight a
// search result or chat source gives it, and an outline in someone else's colour when they have it selected.
// Its size, colour and editable title are card-parts.tsx's (stored in the node's data).
import { type CSSProperties, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useDismiss } from '../../lib/use-dismiss';
import { Handle, Position, useNodesData } from '@xyflow/react';
import {
  type BoardFlowNode,
  HighlightContext,
  IndexContext,
  type IndexState,
  JobsContext,
  RemoteSelectionContext,
  useBoardActions,
  type JobState,
} from '../board-context';
import { useCardActions } from '../canvas/edits/card-actions';
import { ColorSwatches, EditableTitle, useCardLook } from './card-parts';

const SEARCHABLE = new Set(['note', 'document', 'pdf']);

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
  const job = useContext(JobsContext)[id];
  const index = useContext(IndexContext)[id];
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
        <NodeMenu id={id} kind={kind} title={title} color={look.color} onRename={() => setRenaming(true)} />
      </div>
      <div className="bw-node__body">{children}</div>
      {job && (job.status !== 'completed' || !index) ? (
        <JobBadge id={id} job={job} reindexing={index !== undefined} />
      ) : (
        index && <IndexBadge id={id} index={index} />
      )}
      <Handle type="source" position={Position.Bottom} className="bw-handle" />
    </div>
  );
}

function NodeMenu(props: { id: string; kind: string; title: string; color: string | undefined; onRename(): void }) {
  const { id, kind, title, color, onRename } = props;
  const actions = useBoardActions();
  const cards = useCardActions();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(ref, open, setOpen);
  const run = (action: () => void) => () => {
    setOpen(false);
    action();
  };
  return (
    <div className="bw-menu nodrag" ref={ref}>
      <button
        type="button"
        className="bw-icon-button"
        aria-label={`Menu of ${title}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <div className="bw-menu__list" role="menu">
          {SEARCHABLE.has(kind) && actions.canVectorize && (
            <button type="button" role="menuitem" onClick={run(() => actions.vectorize(id))}>
              Make searchable
            </button>
          )}
          <button type="button" role="menuitem" onClick={run(() => actions.chatAbout(id))}>
            Chat about this
          </button>
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
        </div>
      )}
    </div>
  );
}

/** A node the service has indexed: searchable, or behind its text (with a way to update it). */
function IndexBadge({ id, index }: { id: string; index: IndexState }) {
  const { vectorize, canVectorize } = useBoardActions();
  if (index.behind) {
    return (
      <div className="bw-job is-behind" role="status">
        Index behind the text
        {canVectorize && (
          <button type="button" className="bw-link-button nodrag" onClick={() => vectorize(id)}>
            Update
          </button>
        )}
      </div>
    );
  }
  return (
    <div className="bw-job is-done" role="status">
      ✓ Searchable · {index.chunks} {index.chunks === 1 ? 'passage' : 'passages'}
    </div>
  );
}

function JobBadge({ id, job, reindexing }: { id: string; job: JobState; reindexing: boolean }) {
  const { dismissJob } = useBoardActions();
  const [now, setNow] = useState(Date.now());
  const busy = job.status === 'starting' || job.status === 'processing';
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [busy]);
  if (busy) {
    const seconds = Math.max(0, Math.round((now - job.startedAt) / 1000));
    return (
      <div className="bw-job is-busy" role="status">
        <span className="bw-spinner" aria-hidden="true" />
        {job.status === 'starting' ? 'Starting…' : reindexing ? `Updating index… ${seconds} s` : `Making searchable… ${seconds} s`}
      </div>
    );
  }
  if (job.status === 'completed') {
    return (
      <div className="bw-job is-done" role="status">
        ✓ Searchable{job.chunks !== undefined ? ` · ${job.chunks} ${job.chunks === 1 ? 'passage' : 'passages'}` : ''}
        <button type="button" className="bw-link-button nodrag" onClick={() => dismissJob(id)} aria-label="Dismiss">
          ×
        </button>
      </div>
    );
  }
  return (
    <div className="bw-job is-failed" role="alert">
      Could not make it searchable: {job.error}
      <button type="button" className="bw-link-button nodrag" onClick={() => dismissJob(id)} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

/** The node's label, or a fallback per type. */
export function labelOf(data: Record<string, unknown>, fallback: string): string {
  return typeof data.label === 'string' && data.label.trim() ? data.label : fallback;
}

export { str } from '../../lib/str';
