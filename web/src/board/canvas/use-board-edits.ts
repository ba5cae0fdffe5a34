// Every change a person makes to the board's nodes and edges, sent to the API and shown on the
// canvas from the service's answer: a note added from the toolbar, a file's node placed after its
// upload, note text and positions (debounced per node through the save tracker), a new edge, and
// deletions (the API first, one batch request for a whole selection; only what the service
// deleted leaves the canvas). This is the one place the canvas writes nodes and edges, so
// undo/redo, copy/paste and resizing belong here. Each of the person's changes is recorded in an
// EditHistory (edit-history.ts; only this person's changes, never the stream's); undo and redo are
// made on the board as it is now (edits/reapply.ts: a reverse patch of text, a field put back only
// if it still holds what this person set) and sent as ordinary local changes through the same saves
// as any edit (creations and deletions through history-writes.ts), one at a time in order, and
// pasting is one batch (node-clipboard.ts).
import { useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { type Connection, type Edge, type OnBeforeDelete, useReactFlow, type XYPosition } from '@xyflow/react';
import {
  type ApiNodeType,
  BoardApiError,
  createEdge,
  createNode,
  type DeleteOperation,
  deleteInBatches,
  updateEdge,
  updateNode,
} from '../board-api';
import { type BoardFlowNode, draftKey, readDraft, writeDraft } from '../board-context';
import { edgeMarker, toFlowEdge, toFlowNode } from '../flow-mapping';
import { labelOf, str } from '../nodes/node-frame';
import { linkNodeType } from '../nodes/web-links';
import type { SaveTracker } from '../save-tracker';
import { writeBatch } from './batch-api';
import { EditHistory, type HistoryChange, invert, type NodeMove, nodeIdsOf } from './edit-history';
import type { PositionMove } from './card-actions';
import { applyChange, type HistoryWriteDeps, snapshotEdge, snapshotNode } from './history-writes';
import { type CurrentBoard, entryAfter, planStep } from './edits/reapply';
import { type NodeClipboard, pasteOperations } from './node-clipboard';
import { dataKey, edgeKey, noteKey, positionKey, type ServerSync } from './server-sync';
import type { CanvasGraph } from './use-board-graph';

const NOTE_SAVE_MS = 700;
const POSITION_SAVE_MS = 400;
const DATA_SAVE_MS = 300;

/** Options of a local change: `record: false` for an undo or redo, which the history keeps itself. */
interface ChangeOptions {
  record?: boolean;
}

/** `data` with `patch` applied as the API's PATCH does (a key set to null is removed). */
function patched(data: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === null) delete out[key];
  return out;
}

export interface BoardEditsOptions {
  boardId: string;
  canEdit: boolean;
  graph: CanvasGraph;
  tracker: SaveTracker;
  /** Told the service's answer to each save, so the stream's echoes do not move the node back. */
  sync: ServerSync;
  notify(message: string): void;
  /** Told which nodes the service deleted. */
  onNodesDeleted(ids: Set<string>): void;
}

export function useBoardEdits({ boardId, canEdit, graph, tracker, sync, notify, onNodesDeleted }: BoardEditsOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [autoFocusId, setAutoFocusId] = useState<string>();
  const [addingNote, setAddingNote] = useState(false);
  // The text as last typed per note, ahead of its debounced save.
  const noteText = useRef(new Map<string, string>());
  const history = useMemo(() => new EditHistory(), []);
  // Where dragged nodes were when the drag started (for the move's history entry).
  const dragFrom = useRef(new Map<string, XYPosition>());
  // Undo and redo run one after another, in the order asked.
  const historyQueue = useRef<Promise<void>>(Promise.resolve());
  const canUndo = useSyncExternalStore(history.subscribe, () => history.canUndo());
  const canRedo = useSyncExternalStore(history.subscribe, () => history.canRedo());
  // Data keys (size, colour, title) per node changed here and not yet saved; one request per node.
  const dataChanges = useRef(new Map<string, { data: Record<string, unknown>; position?: XYPosition }>());

  /** Adds an empty note centred on `centre` (the canvas finds a free spot: free-spot.ts), selected and focused. */
  const addNote = useCallback(
    async (centre: XYPosition) => {
      const position = { x: Math.round(centre.x - 130), y: Math.round(centre.y - 70) };
      setAddingNote(true);
      try {
        // No label: the card is titled by its first line until the person names it.
        const record = await createNode(boardId, 'note', position, { text: '' });
        const node = toFlowNode(record);
        graph.addNode(node, { select: true });
        setAutoFocusId(record.id);
        const snapshot = snapshotNode(node);
        if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges: [] });
      } catch (error) {
        notify((error as Error).message);
      } finally {
        setAddingNote(false);
      }
    },
    [boardId, graph, notify, history],
  );

  /** Adds an empty note with its top-left corner at `position` (a double-click on the canvas). */
  const addNoteAt = useCallback((position: XYPosition) => addNote({ x: position.x + 130, y: position.y + 70 }), [addNote]);

  /** Creates a node for an uploaded file in place of its placeholder `tempId`; throws on failure. */
  const placeFileNode = useCallback(
    async (tempId: string, kind: ApiNodeType, position: XYPosition, data: Record<string, unknown>) => {
      const record = await createNode(boardId, kind, position, data);
      const node = toFlowNode(record);
      graph.replaceNode(tempId, node);
      const snapshot = snapshotNode(node);
      if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges: [] });
    },
    [boardId, graph, history],
  );

  /**
   * A save answered 404 "Node not found": someone else deleted the node meanwhile (the stream may
   * not have said so yet). No retry can succeed: the node leaves the canvas, its pending saves and
   * draft are dropped, and the person is told. Anything else is thrown on (a failed save with Retry).
   */
  const unlessDeleted = useCallback(
    (nodeId: string, what: string) => (error: unknown) => {
      if (!(error instanceof BoardApiError && error.status === 404 && /node not found/i.test(error.message))) throw error;
      const label = labelOf(graph.nodeById(nodeId)?.data ?? {}, 'A node');
      writeDraft(draftKey(boardId, nodeId), null);
      sync.nodesDeleted([nodeId]);
      onNodesDeleted(new Set([nodeId]));
      notify(`“${label}” was deleted by someone else, so ${what} could not be saved.`);
    },
    [boardId, graph, sync, notify, onNodesDeleted],
  );

  /**
   * A note's text as shown now: as typed here while the note is busy (its save waiting or not yet
   * echoed), else as the canvas has it (the service's newest, someone else's change included).
   */
  const shownText = useCallback(
    (nodeId: string) => {
      const shown = str(graph.nodeById(nodeId)?.data.text);
      return sync.isBusy(nodeId) ? (noteText.current.get(nodeId) ?? shown) : shown;
    },
    [graph, sync],
  );

  /** Saves a note's text after a pause, kept as a draft in localStorage until the service has it. */
  const saveNoteText = useCallback(
    (nodeId: string, text: string, options?: ChangeOptions) => {
      const key = draftKey(boardId, nodeId);
      const before = shownText(nodeId);
      noteText.current.set(nodeId, text);
      writeDraft(key, text);
      // One history entry per burst of typing: it grows until its save is sent.
      if (options?.record !== false) history.record({ kind: 'text', id: nodeId, from: before, to: text }, noteKey(nodeId));
      tracker.schedule(
        noteKey(nodeId),
        async () => {
          history.seal(noteKey(nodeId));
          // Shown once the node is no longer busy (server-sync.ts).
          try {
            sync.saved(await updateNode(boardId, nodeId, { data: { text } }));
          } catch (error) {
            return unlessDeleted(nodeId, 'your last changes to it')(error);
          }
          if (readDraft(key) === text) writeDraft(key, null);
        },
        NOTE_SAVE_MS,
      );
    },
    [boardId, tracker, sync, history, unlessDeleted, shownText],
  );

  /** The note's text as typed, saved or not (undefined if not typed on this page). */
  const typedText = useCallback((nodeId: string) => noteText.current.get(nodeId), []);

  /** The node with its text as typed here (a save may still be on its way). */
  const withTypedText = useCallback((node: BoardFlowNode): BoardFlowNode => {
    const text = noteText.current.get(node.id);
    return text === undefined || node.type !== 'noteNode' ? node : { ...node, data: { ...node.data, text } };
  }, []);

  /** Sends a note's waiting text save now (before vectorizing it). */
  const flushNoteText = useCallback((nodeId: string) => tracker.flush(noteKey(nodeId)), [tracker]);

  /** A drag starts: where the nodes were, for undo. */
  const dragStarted = useCallback((dragged: BoardFlowNode[]) => {
    dragFrom.current = new Map(dragged.map((n) => [n.id, { x: n.position.x, y: n.position.y }]));
  }, []);

  /** Schedules the position saves of nodes already moved on the canvas. */
  const schedulePositions = useCallback(
    (moved: BoardFlowNode[]) => {
      for (const n of moved) {
        if (n.type === 'uploadNode') continue;
        const position = { x: n.position.x, y: n.position.y };
        tracker.schedule(
          positionKey(n.id),
          async () => {
            await updateNode(boardId, n.id, { position }).then(sync.saved.bind(sync), unlessDeleted(n.id, 'its move'));
          },
          POSITION_SAVE_MS,
        );
      }
    },
    [boardId, tracker, sync, unlessDeleted],
  );

  /** Saves where dragged nodes were left (React Flow has already moved them on the canvas). */
  const saveMoves = useCallback(
    (dragged: BoardFlowNode[]) => {
      const real = dragged.filter((n) => n.type !== 'uploadNode');
      schedulePositions(real);
      const moves: NodeMove[] = [];
      for (const n of real) {
        const from = dragFrom.current.get(n.id);
        if (from && (from.x !== n.position.x || from.y !== n.position.y)) moves.push({ id: n.id, from, to: { ...n.position } });
      }
      dragFrom.current = new Map();
      if (moves.length > 0) history.record({ kind: 'move', moves });
    },
    [schedulePositions, history],
  );

  /**
   * Moves the selected nodes by (dx, dy) (arrow keys) and saves their positions: React Flow's own
   * keyboard moves end in no drag stop, so they were shown but never saved.
   */
  const nudge = useCallback(
    (ids: string[], dx: number, dy: number) => {
      const moved: BoardFlowNode[] = [];
      const moves: NodeMove[] = [];
      for (const id of ids) {
        const node = graph.nodeById(id);
        if (!node || node.type === 'uploadNode') continue;
        const to = { x: node.position.x + dx, y: node.position.y + dy };
        moves.push({ id, from: { ...node.position }, to });
        moved.push({ ...node, position: to });
        graph.patchNode(id, (n) => ({ ...n, position: to }));
      }
      if (moved.length === 0) return;
      schedulePositions(moved);
      // A run of steps on one selection is one history entry (until any other change or an undo).
      history.record({ kind: 'move', moves }, `keyboard-move:${[...ids].sort().join()}`);
    },
    [graph, schedulePositions, history],
  );

  const connect = useCallback(
    async (connection: Connection) => {
      try {
        const record = await createEdge(boardId, connection.source, connection.target);
        const edge = toFlowEdge(record);
        graph.addEdge(edge);
        history.record({ kind: 'create', nodes: [], edges: [snapshotEdge(edge)] });
      } catch (error) {
        notify((error as Error).message);
      }
    },
    [boardId, graph, notify, history],
  );

  /** Deletes nodes and edges (toolbar, a node's menu); React Flow asks `beforeDelete` first. */
  const remove = useCallback(
    (ids: { nodes?: string[]; edges?: string[] }) =>
      void flow.deleteElements({ nodes: ids.nodes?.map((id) => ({ id })), edges: ids.edges?.map((id) => ({ id })) }),
    [flow],
  );

  /**
   * Deletes on the service (one batch, or consecutive ones past 500 operations) and tells the
   * sync and the canvas what went; a failure is told in a notice naming the item. Returns what
   * was deleted.
   */
  const deleteOnService = useCallback(
    async (nodeIds: string[], edgeIds: string[], nameOf: (id: string) => string | undefined) => {
      const operations: DeleteOperation[] = [
        ...edgeIds.map((id) => ({ op: 'delete_edge' as const, id })),
        ...nodeIds.map((id) => ({ op: 'delete_node' as const, id })),
      ];
      const { done, error, failedAt } = await deleteInBatches(boardId, operations);
      const written = operations.slice(0, done);
      if (error) {
        // "operations[i]: …" means nothing to a person: name the item instead.
        const item = failedAt === undefined ? undefined : operations[failedAt];
        const what = item?.op === 'delete_node' ? (nameOf(item.id) ?? 'A node') : item ? 'A connection' : undefined;
        const reason = error.message.replace(/^operations\[\d+\]:\s*/, '');
        const outcome = done > 0 ? `Only ${done} of ${operations.length} deletions were made` : 'Nothing was deleted';
        notify(`${outcome}: ${what ? `${what}: ` : ''}${reason}`);
      }
      const gone = new Set(written.filter((o) => o.op === 'delete_node').map((o) => o.id));
      const edgesGone = new Set(written.filter((o) => o.op === 'delete_edge').map((o) => o.id));
      for (const id of gone) writeDraft(draftKey(boardId, id), null);
      // Marks the nodes deleted (their pending saves cancelled), so neither a late save answer nor
      // a reload that read the board before the batch brings them back; the stream's own
      // node.deleted/edge.deleted for them then change nothing.
      if (gone.size > 0) sync.nodesDeleted([...gone]);
      for (const id of edgesGone) sync.edgeDeleted(id);
      onNodesDeleted(gone);
      return { gone, edgesGone, failed: error !== undefined };
    },
    [boardId, sync, notify, onNodesDeleted],
  );

  // React Flow's hook for every deletion (the Delete key too): the service deletes first, in one
  // batch request (all or nothing), and only then does the selection leave the canvas; a refused
  // batch leaves it all in place with a notice, so nothing has to come back.
  const beforeDelete: OnBeforeDelete<BoardFlowNode, Edge> = useCallback(
    async ({ nodes: doomed, edges: doomedEdges }) => {
      if (!canEdit) return false;
      const real = doomed.filter((n) => n.type !== 'uploadNode');
      const asked = new Set(real.map((n) => n.id));
      // Edges of deleted nodes go with them on the service; only the others are deleted by id,
      // before the nodes.
      const own = doomedEdges.filter((e) => !asked.has(e.source) && !asked.has(e.target));
      if (own.length + real.length === 0) return false;
      const { gone, edgesGone } = await deleteOnService(
        real.map((n) => n.id),
        own.map((e) => e.id),
        (id) => {
          const node = real.find((n) => n.id === id);
          return node ? labelOf(node.data, 'A node') : undefined;
        },
      );
      const deletedNodes = real.filter((n) => gone.has(n.id));
      const deletedEdges = doomedEdges.filter((e) => edgesGone.has(e.id) || gone.has(e.source) || gone.has(e.target));
      if (deletedNodes.length + deletedEdges.length > 0) {
        history.record({
          kind: 'delete',
          nodes: deletedNodes.flatMap((n) => snapshotNode(withTypedText(n)) ?? []),
          edges: deletedEdges.map(snapshotEdge),
        });
      }
      return { nodes: deletedNodes, edges: deletedEdges };
    },
    [canEdit, deleteOnService, history, withTypedText],
  );

  const writeDeps = useMemo<HistoryWriteDeps>(
    () => ({
      boardId,
      graph,
      sync,
      history,
      deleteNow: async (nodeIds, edgeIds) => {
        const { failed } = await deleteOnService(nodeIds, edgeIds, (id) => {
          const node = graph.nodeById(id);
          return node ? labelOf(node.data, 'A node') : undefined;
        });
        // The notice is given already: an empty message says so.
        if (failed) throw new Error('');
      },
    }),
    [boardId, graph, sync, history, deleteOnService],
  );

  /**
   * Pastes `copy` with its top-left corner at `at`, in one batch (nodes with refs, the edges among
   * them by ref); the pasted nodes become the selection. One history entry.
   */
  const paste = useCallback(
    async (copy: NodeClipboard, at: XYPosition) => {
      if (!canEdit) return;
      const { operations, linked } = pasteOperations(copy, boardId, at);
      try {
        const results = await writeBatch(boardId, operations, 'Could not paste');
        const nodes = results.flatMap((r) => (r.node ? [toFlowNode(r.node)] : []));
        const edges = results.flatMap((r) => (r.edge ? [toFlowEdge(r.edge)] : []));
        for (const n of nodes) graph.applyNode(n);
        for (const e of edges) graph.applyEdge(e);
        graph.select(nodes.map((n) => n.id));
        history.record({ kind: 'create', nodes: nodes.flatMap((n) => snapshotNode(n) ?? []), edges: edges.map(snapshotEdge) });
        if (linked > 0) {
          notify(
            `${linked === 1 ? 'A file was' : `${linked} files were`} pasted as a link to the original: files belong to their board (upload it here for a copy of its own).`,
          );
        }
      } catch (error) {
        notify((error as Error).message);
      }
    },
    [boardId, canEdit, graph, history, notify],
  );

  // ---- Cards and connections: size, colour, title, edge label, links ---------------------------

  /** Changes keys of a node's data (null removes one), and with a resize its position (`move.from`:
   * where it was before the resizer moved it): shown at once, saved after a short pause as one PATCH
   * per node (the API merges data keys). */
  const updateNodeData = useCallback(
    (nodeId: string, patch: Record<string, unknown>, move?: PositionMove, options?: ChangeOptions) => {
      const node = graph.nodeById(nodeId);
      if (!node) return; // deleted meanwhile (by someone else too)
      if (options?.record !== false) {
        history.record({
          kind: 'data',
          id: nodeId,
          from: Object.fromEntries(Object.keys(patch).map((key) => [key, node.data[key] ?? null])),
          to: patch,
          ...(move ? { position: move } : {}),
        });
      }
      graph.patchNode(nodeId, (n) => ({ ...n, data: patched(n.data, patch) }));
      const before = dataChanges.current.get(nodeId);
      const change = { data: { ...before?.data, ...patch }, position: move?.to ?? before?.position };
      dataChanges.current.set(nodeId, change);
      tracker.schedule(
        dataKey(nodeId),
        async () => {
          sync.saved(await updateNode(boardId, nodeId, change));
          if (dataChanges.current.get(nodeId) === change) dataChanges.current.delete(nodeId);
        },
        DATA_SAVE_MS,
      );
    },
    [boardId, graph, tracker, sync, history],
  );

  /** A card resized (React Flow's NodeResizer has drawn it): its size kept in node_data's width
   * and height (the keys JSON Canvas export reads), and its position when a left or top edge moved
   * (`move`: the resizer has moved the node on the canvas already). */
  const resizeNode = useCallback(
    (nodeId: string, size: { width: number; height: number }, move?: PositionMove) => {
      // The card's size now comes from its data again, not from the resizer's inline size.
      graph.patchNode(nodeId, (n) => ({ ...n, width: undefined, height: undefined }));
      updateNodeData(
        nodeId,
        { width: Math.round(size.width), height: Math.round(size.height) },
        move && { from: move.from, to: { x: Math.round(move.to.x), y: Math.round(move.to.y) } },
      );
    },
    [graph, updateNodeData],
  );

  /** Changes keys of an edge's data (null removes one): shown at once, then the whole data saved
   * (PATCH replaces edge_data). */
  const updateEdgeData = useCallback(
    (edgeId: string, patch: Record<string, unknown>, options?: ChangeOptions) => {
      const edge = flow.getEdge(edgeId);
      if (!edge) return;
      const before = (edge.data ?? {}) as Record<string, unknown>;
      if (options?.record !== false) {
        history.record({
          kind: 'edgeData',
          id: edgeId,
          from: Object.fromEntries(Object.keys(patch).map((key) => [key, before[key] ?? null])),
          to: patch,
        });
      }
      const data = patched(before, patch);
      graph.applyEdge({ ...edge, data, label: typeof data.label === 'string' ? data.label : undefined, markerEnd: edgeMarker(data) });
      tracker.schedule(
        edgeKey(edgeId),
        async () => {
          sync.edge(await updateEdge(boardId, edgeId, flow.getEdge(edgeId)?.data ?? data));
        },
        DATA_SAVE_MS,
      );
    },
    [boardId, flow, graph, tracker, sync, history],
  );

  /**
   * Undoes (or redoes) the person's last change on the board as it is now (edits/reapply.ts): made
   * as a local change through the same saves as any edit, or refused with a notice when someone else
   * changed the same thing since (nothing is done, and the entry is dropped).
   */
  const step = useCallback(
    (direction: 'undo' | 'redo') => {
      const run = async () => {
        if (!canEdit) return;
        const entry = direction === 'undo' ? history.takeUndo() : history.takeRedo();
        if (!entry) return;
        const change: HistoryChange = direction === 'undo' ? invert(entry) : entry;
        // A save still waiting for these nodes goes first, so the undo lands after it.
        for (const id of nodeIdsOf(change)) {
          const current = history.resolve(id);
          await tracker.flush(noteKey(current));
          await tracker.flush(positionKey(current));
          await tracker.flush(dataKey(current));
        }
        const board: CurrentBoard = {
          node: (id) => graph.nodeById(id),
          noteText: shownText,
          edgeData: (id) => {
            const edge = flow.getEdge(id);
            return edge && ((edge.data ?? {}) as Record<string, unknown>);
          },
          resolve: (id) => history.resolve(id),
        };
        const plan = planStep(change, board, direction === 'undo' ? 'undone' : 'redone');
        const made = entryAfter(entry, plan, direction);
        const done = () => (direction === 'undo' ? history.undone(made) : history.redone(made));
        switch (plan.kind) {
          case 'refused':
            notify(plan.message);
            return;
          case 'structure':
            try {
              await applyChange(writeDeps, plan.change, direction === 'undo' ? 'Could not undo' : 'Could not redo');
              done();
            } catch (error) {
              // The board changed under it (someone deleted the node, say): the step is dropped.
              const message = (error as Error).message;
              if (message) notify(message);
            }
            return;
          case 'text':
            saveNoteText(plan.id, plan.text, { record: false });
            done();
            // Sent at once: the note shows it when the service has it.
            await tracker.flush(noteKey(plan.id));
            return;
          case 'move': {
            const moved: BoardFlowNode[] = [];
            for (const m of plan.moves) {
              graph.patchNode(m.id, (n) => ({ ...n, position: m.to }));
              const node = graph.nodeById(m.id);
              if (node) moved.push({ ...node, position: m.to });
            }
            schedulePositions(moved);
            done();
            return;
          }
          case 'data':
            if (plan.position) {
              const to = plan.position.to;
              graph.patchNode(plan.id, (n) => ({ ...n, position: to, width: undefined, height: undefined }));
            }
            updateNodeData(plan.id, plan.patch, plan.position, { record: false });
            done();
            return;
          case 'edgeData':
            updateEdgeData(plan.id, plan.patch, { record: false });
            done();
            return;
        }
      };
      historyQueue.current = historyQueue.current.then(run, run);
      return historyQueue.current;
    },
    [canEdit, history, tracker, graph, flow, shownText, writeDeps, notify, saveNoteText, schedulePositions, updateNodeData, updateEdgeData],
  );
  const undo = useCallback(() => step('undo'), [step]);
  const redo = useCallback(() => step('redo'), [step]);

  /** Adds a url node for `url` (a video node for YouTube and Vimeo) centred on `at`, selected;
   * rejects with the service's reason. */
  const addLink = useCallback(
    async (url: string, at: XYPosition) => {
      const record = await createNode(boardId, linkNodeType(url), { x: Math.round(at.x - 140), y: Math.round(at.y - 60) }, { url });
      const node = toFlowNode(record);
      graph.addNode(node, { select: true });
      const snapshot = snapshotNode(node);
      if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges: [] });
    },
    [boardId, graph, history],
  );

  return {
    autoFocusId,
    addingNote,
    addNote,
    addNoteAt,
    placeFileNode,
    saveNoteText,
    typedText,
    withTypedText,
    flushNoteText,
    dragStarted,
    saveMoves,
    nudge,
    connect,
    remove,
    beforeDelete,
    history,
    canUndo,
    canRedo,
    undo,
    redo,
    paste,
    updateNodeData,
    resizeNode,
    updateEdgeData,
    addLink,
  };
}
