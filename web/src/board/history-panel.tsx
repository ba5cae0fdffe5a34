// The board's history panel: its versions (kept by the service as the board changes, named ones,
// and the points kept just before each restore), a preview of the one picked (a sketch of where its
// cards were, and the cards that differ from the board now), and Restore: the whole version, or one
// card. A restore is made by the service as ordinary changes, so it reaches this canvas, and
// everyone else's, through the board's event stream like any edit; "Undo restore" restores the
// point kept just before it.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { BoardFlowNode } from './board-context';
import { type BoardVersion, type BoardVersionContent, getVersion, listVersions, nameVersion, restoreVersion } from './history-api';
import './history.css';

export interface HistoryPanelProps {
  boardId: string;
  /** The cards on the canvas now, to tell what a version would change. */
  nodes: BoardFlowNode[];
  /** Restoring is the owner's (the board's `permissions.manage`), as naming a version is. */
  canRestore: boolean;
  /** Naming a version is the owner's. */
  isOwner: boolean;
  notify(message: string): void;
  onClose(): void;
}

type VersionNode = BoardVersionContent['nodes'][number];

const KIND_LABEL: Record<BoardVersion['kind'], string> = {
  auto: 'Saved automatically',
  named: 'Named version',
  restore_point: 'Before a restore',
};

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** A card's name in a list: its title or label, else the start of its text, its address or its type. */
export function cardName(node: Pick<VersionNode, 'node_type' | 'node_data'>): string {
  const data = node.node_data as Record<string, unknown>;
  for (const key of ['title', 'label', 'text', 'fileName', 'url']) {
    const value = data[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 80);
  }
  return `Untitled ${node.node_type}`;
}

const when = (at: string | Date) =>
  new Date(at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Where the version's cards were, scaled into a small box. */
function Sketch({ nodes }: { nodes: VersionNode[] }) {
  if (nodes.length === 0) return <p className="bw-muted">This version has no cards.</p>;
  const xs = nodes.map((n) => n.position_x);
  const ys = nodes.map((n) => n.position_y);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const width = Math.max(...xs) - minX + 280;
  const height = Math.max(...ys) - minY + 160;
  return (
    <svg className="bw-history__sketch" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Sketch of ${nodes.length} cards`}>
      {nodes.map((n) => (
        <rect key={n.id} x={n.position_x - minX} y={n.position_y - minY} width={240} height={120} rx={12} />
      ))}
    </svg>
  );
}

export function HistoryPanel({ boardId, nodes, canRestore, isOwner, notify, onClose }: HistoryPanelProps) {
  const [versions, setVersions] = useState<BoardVersion[] | undefined>();
  const [picked, setPicked] = useState<BoardVersionContent | undefined>();
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState('');
  const [undoPoint, setUndoPoint] = useState<string | undefined>();

  const refresh = useCallback(async () => {
    try {
      setVersions(await listVersions(boardId));
    } catch (error) {
      notify((error as Error).message);
    }
  }, [boardId, notify]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const pick = async (version: BoardVersion) => {
    try {
      setPicked(await getVersion(boardId, version.id));
    } catch (error) {
      notify((error as Error).message);
    }
  };

  const current = useMemo(() => new Map(nodes.map((n) => [n.id, n])), [nodes]);
  /** The version's cards that differ from the canvas now: gone since, or moved or edited. */
  const differing = useMemo(() => {
    if (!picked) return [];
    return picked.nodes.flatMap((node) => {
      const now = current.get(node.id);
      if (!now) return [{ node, change: 'deleted since' }];
      const moved =
        Math.round(now.position.x) !== Math.round(node.position_x) || Math.round(now.position.y) !== Math.round(node.position_y);
      const edited = canonical(now.data) !== canonical(node.node_data);
      return edited ? [{ node, change: 'edited since' }] : moved ? [{ node, change: 'moved since' }] : [];
    });
  }, [picked, current]);
  const added = picked ? nodes.filter((n) => n.type !== 'uploadNode' && !picked.nodes.some((v) => v.id === n.id)).length : 0;

  const restore = async (versionId: string, nodeIds?: string[], what = 'the version') => {
    setBusy(true);
    try {
      const result = await restoreVersion(boardId, versionId, nodeIds);
      const changed =
        result.nodes_created +
        result.nodes_updated +
        result.nodes_deleted +
        result.edges_created +
        result.edges_updated +
        result.edges_deleted;
      notify(changed === 0 ? 'The board already matches this version.' : `Restored ${what}.`);
      setUndoPoint(result.restore_point_id ?? undefined);
      await refresh();
    } catch (error) {
      notify((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="bw-chat bw-history" aria-label="History">
      <header className="bw-chat__head">
        <h2>History</h2>
        <button type="button" className="bw-icon-button" aria-label="Close history" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="bw-history__body">
        {isOwner && (
          <form
            className="bw-history__name"
            onSubmit={(event) => {
              event.preventDefault();
              const trimmed = name.trim();
              if (!trimmed) return;
              setBusy(true);
              void nameVersion(boardId, trimmed)
                .then(() => {
                  setName('');
                  return refresh();
                })
                .catch((error: Error) => notify(error.message))
                .finally(() => setBusy(false));
            }}
          >
            <input
              aria-label="Version name"
              placeholder="Name this version…"
              value={name}
              maxLength={200}
              onChange={(event) => setName(event.target.value)}
            />
            <button type="submit" className="bw-button" disabled={busy || name.trim() === ''}>
              Keep
            </button>
          </form>
        )}
        {undoPoint && canRestore && (
          <button
            type="button"
            className="bw-button"
            disabled={busy}
            onClick={() => {
              const point = undoPoint;
              setUndoPoint(undefined);
              void restore(point, undefined, 'the board as it was before the restore');
            }}
          >
            Undo restore
          </button>
        )}
        {versions === undefined ? (
          <p className="bw-muted" role="status">
            Loading…
          </p>
        ) : versions.length === 0 ? (
          <p className="bw-muted">No versions yet. The board is kept every few minutes while it changes; you can also name a version.</p>
        ) : (
          <ul className="bw-history__list" aria-label="Versions">
            {versions.map((version) => (
              <li key={version.id}>
                <button
                  type="button"
                  className={`bw-history__version${picked?.id === version.id ? ' is-picked' : ''}`}
                  aria-pressed={picked?.id === version.id}
                  onClick={() => void pick(version)}
                >
                  <strong>{version.name ?? KIND_LABEL[version.kind]}</strong>
                  <span className="bw-muted">
                    {when(version.created_at)} · {version.node_count} cards · {version.edge_count} connections
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {picked && (
          <section className="bw-history__preview" aria-label="Version preview">
            <h3>{picked.name ?? KIND_LABEL[picked.kind]}</h3>
            <p className="bw-muted">
              {when(picked.created_at)} · {picked.nodes.length} cards · {picked.edges.length} connections
            </p>
            <Sketch nodes={picked.nodes} />
            <p className="bw-history__summary">
              {differing.length === 0 && added === 0
                ? 'The board matches this version.'
                : `Since then: ${differing.length} card${differing.length === 1 ? '' : 's'} changed or deleted, ${added} added.`}
            </p>
            {differing.length > 0 && (
              <ul className="bw-history__cards" aria-label="Cards that differ">
                {differing.slice(0, 50).map(({ node, change }) => (
                  <li key={node.id}>
                    <span className="bw-history__card" title={cardName(node)}>
                      {cardName(node)}
                    </span>
                    <span className="bw-muted">{change}</span>
                    {canRestore && (
                      <button
                        type="button"
                        className="bw-button is-small"
                        disabled={busy}
                        onClick={() => void restore(picked.id, [node.id], `“${cardName(node)}”`)}
                      >
                        Restore card
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            )}
            {canRestore && (
              <button type="button" className="bw-button is-primary" disabled={busy} onClick={() => void restore(picked.id)}>
                {busy ? 'Restoring…' : 'Restore this version'}
              </button>
            )}
          </section>
        )}
      </div>
    </aside>
  );
}
