// Every change a person makes to the board's nodes and edges: shown on the canvas at once and put
// in the outbox (sync/outbox.ts: IndexedDB, sent in order, retried until the service has it): a
// note added from the toolbar or a double-click, a file's node placed after its upload, a link,
// note text (sync/text-sync.ts merges it with others' typing), positions, sizes, colours, titles,
// a new edge, an edge's label, pasting and deletions. New nodes and edges get their ids here
// (crypto.randomUUID), so they exist on the canvas before the service answers and a note is
// typeable at once. This is the one place the canvas writes nodes and edges, so
// undo/redo, copy/paste and resizing belong here. Each of the person's changes is recorded in an
// EditHistory (edit-history.ts; only this person's changes, never the stream's); undo and redo are
// planned on the board as it is now (edits/reapply.ts: a reverse patch of text, a field put back
// only if it still holds what this person set) and made as ordinary local changes through the
// outbox (sync/history-outbox.ts), one at a time in order; pasting is one batch (node-clipboard.ts).
import { useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { type Connection, type Edge, type OnBeforeDelete, useReactFlow, type XYPosition } from '@xyflow/react';
import type { ApiNodeType } from '../../board-api';
import type { BoardFlowNode } from '../../board-context';
import { str } from '../../nodes/node-frame';
import { linkNodeType } from '../../nodes/web-links';
import { EditHistory, type HistoryChange, invert, type NodeMove } from './edit-history';
import type { PositionMove } from './card-actions';
import { snapshotEdge, snapshotNode } from './history-snapshots';
import { type CurrentBoard, entryAfter, planStep } from './reapply';
import { type NodeClipboard, pasteOperations } from './node-clipboard';
import { noteKey, type ServerSync } from '../sync/server-sync';
import { createdEdge, createdNode, type OutboxOp, patched } from '../sync/operations';
import { applyStep, type HistoryOutboxDeps, setEdgeKeys } from '../sync/history-outbox';
import type { Outbox } from '../sync/outbox';
import type { TextSync } from '../sync/text-sync';
import type { CanvasGraph } from '../use-board-graph';

const newId = () => crypto.randomUUID();

export interface BoardEditsOptions {
  boardId: string;
  canEdit: boolean;
  graph: CanvasGraph;
  /** Where every change goes until the service has it. */
  outbox: Outbox;
  /** Notes' text as typed here, merged with others' (sync/text-sync.ts). */
  text: TextSync;
  /** Told the service's answer to each save, so the stream's echoes do not move the node back. */
  sync: ServerSync;
  notify(message: string, options?: { copy?: string }): void;
  /** Told which nodes the service deleted. */
  onNodesDeleted(ids: Set<string>): void;
}

export function useBoardEdits({ boardId, canEdit, graph, outbox, text, sync, notify, onNodesDeleted }: BoardEditsOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [autoFocusId, setAutoFocusId] = useState<string>();
  // Notes are made on the canvas at once: nothing to wait for.
  const addingNote = false;
  const history = useMemo(() => new EditHistory(), []);
  // Where dragged nodes were when the drag started (for the move's history entry).
  const dragFrom = useRef(new Map<string, XYPosition>());
  // What was deleted here and not yet confirmed, to put back if the service refuses.
  const deletedHere = useRef(new Map<string, { node?: BoardFlowNode; edges: Edge[] }>());
  // Undo and redo run one after another, in the order asked.
  const historyQueue = useRef<Promise<void>>(Promise.resolve());
  const canUndo = useSyncExternalStore(history.subscribe, () => history.canUndo());
  const canRedo = useSyncExternalStore(history.subscribe, () => history.canRedo());

  /** A node made here: on the canvas now, created on the service through the outbox. */
  const create = useCallback(
    (type: ApiNodeType, position: XYPosition, data: Record<string, unknown>, options?: { select?: boolean; replace?: string }) => {
      const op: Extract<OutboxOp, { op: 'create_node' }> = { op: 'create_node', id: newId(), type, position, data };
      const node = createdNode(op);
      if (options?.replace) graph.replaceNode(options.replace, node);
      else graph.addNode(node, { select: options?.select });
      outbox.enqueue(op);
      const snapshot = snapshotNode(node);
      if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges: [] });
      return node;
    },
    [graph, outbox, history],
  );

  /** Adds an empty note centred on `centre` (the canvas finds a free spot: free-spot.ts), selected and focused. */
  const addNote = useCallback(
    async (centre: XYPosition) => {
      const position = { x: Math.round(centre.x - 130), y: Math.round(centre.y - 70) };
      // No label: the card is titled by its first line until the person names it.
      const node = create('note', position, { text: '' }, { select: true });
      setAutoFocusId(node.id);
    },
    [create],
  );
  /**
   * The new note took the focus once: scrolled or zoomed out of the page and back (which mounts
   * its card again), it must not take the focus from wherever the person is by then.
   */
  const autoFocusDone = useCallback((id: string) => setAutoFocusId((current) => (current === id ? undefined : current)), []);

  /**
   * A chat reply added to the board: a note holding `text`, right of the nodes it cites (else
   * centred on `centre`), joined to each of them by an edge; one step of undo.
   */
  const addLinkedNote = useCallback(
    (text: string, targets: string[], centre: XYPosition) => {
      const cited = targets.flatMap((t) => graph.nodeById(t) ?? []);
      const position = cited.length
        ? {
            x: Math.round(Math.max(...cited.map((n) => n.position.x + (n.measured?.width ?? n.width ?? 260))) + 80),
            y: Math.round(cited.reduce((sum, n) => sum + n.position.y, 0) / cited.length),
          }
        : { x: Math.round(centre.x - 130), y: Math.round(centre.y - 70) };
      const op: Extract<OutboxOp, { op: 'create_node' }> = { op: 'create_node', id: newId(), type: 'note', position, data: { text } };
      const node = createdNode(op);
      graph.addNode(node, { select: true });
      outbox.enqueue(op);
      const edges = cited.map((target) => {
        const edgeOp: Extract<OutboxOp, { op: 'create_edge' }> = {
          op: 'create_edge',
          id: newId(),
          source: node.id,
          target: target.id,
          data: {},
        };
        const edge = createdEdge(edgeOp);
        graph.addEdge(edge);
        outbox.enqueue(edgeOp);
        return snapshotEdge(edge);
      });
      const snapshot = snapshotNode(node);
      if (snapshot) history.record({ kind: 'create', nodes: [snapshot], edges });
      return node.id;
    },
    [graph, outbox, history],
  );

  /** Adds an empty note with its top-left corner at `position` (a double-click on the canvas). */
  const addNoteAt = useCallback((position: XYPosition) => addNote({ x: position.x + 130, y: position.y + 70 }), [addNote]);

  /** Creates a node for an uploaded file in place of its placeholder `tempId` (through the outbox). */
  const placeFileNode = useCallback(
    async (tempId: string, kind: ApiNodeType, position: XYPosition, data: Record<string, unknown>) => {
      create(kind, position, data, { replace: tempId });
    },
    [create],
  );

  /** Saves a note's text: shown as typed, kept in the outbox until the service has it. */
  const saveNoteText = useCallback(
    (nodeId: string, typed: string) => {
      const serverText = str(graph.nodeById(nodeId)?.data.text);
      const before = text.local(nodeId) ?? serverText;
      const base = text.typed(nodeId, typed, serverText);
      // One history entry per burst of typing: it grows until its save is sent.
      history.record({ kind: 'text', id: nodeId, from: before, to: typed }, noteKey(nodeId));
      outbox.enqueue({ op: 'text', id: nodeId, text: typed, base });
    },
    [graph, text, outbox, history],
  );

  /** The note's text as typed, saved or not (undefined if nothing typed here waits). */
  const typedText = useCallback((nodeId: string) => text.local(nodeId), [text]);

  /** The node with its text as typed here (a save may still be on its way). */
  const withTypedText = useCallback(
    (node: BoardFlowNode): BoardFlowNode => {
      const typed = text.local(node.id);
      return typed === undefined || node.type !== 'noteNode' ? node : { ...node, data: { ...node.data, text: typed } };
    },
    [text],
  );

  /** Sends a note's waiting text now (before vectorizing it); resolves once the service has it. */
  const flushNoteText = useCallback((nodeId: string) => outbox.whenSent(noteKey(nodeId)), [outbox]);

  /** A drag starts: where the nodes were, for undo. */
  const dragStarted = useCallback((dragged: BoardFlowNode[]) => {
    dragFrom.current = new Map(dragged.map((n) => [n.id, { x: n.position.x, y: n.position.y }]));
  }, []);

  /** Puts the positions of nodes already moved on the canvas in the outbox. */
  const schedulePositions = useCallback(
    (moved: BoardFlowNode[]) => {
      for (const n of moved) {
        if (n.type === 'uploadNode') continue;
        outbox.enqueue({ op: 'update_node', id: n.id, position: { x: n.position.x, y: n.position.y } });
      }
    },
    [outbox],
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
      const op: Extract<OutboxOp, { op: 'create_edge' }> = {
        op: 'create_edge',
        id: newId(),
        source: connection.source,
        target: connection.target,
        data: {},
      };
      const edge = createdEdge(op);
      graph.addEdge(edge);
      outbox.enqueue(op);
      history.record({ kind: 'create', nodes: [], edges: [snapshotEdge(edge)] });
    },
    [graph, outbox, history],
  );

  /** Deletes nodes and edges (toolbar, a node's menu); React Flow asks `beforeDelete` first. */
  const remove = useCallback(
    (ids: { nodes?: string[]; edges?: string[] }) =>
      void flow.deleteElements({ nodes: ids.nodes?.map((id) => ({ id })), edges: ids.edges?.map((id) => ({ id })) }),
    [flow],
  );

  /**
   * Deletes nodes and edges: off the canvas now, deleted on the service through the outbox (edges
   * by id first, then nodes, whose own edges go with them). Returns what was deleted.
   */
  const deleteNow = useCallback(
    (nodeIds: string[], edgeIds: string[]) => {
      // Kept until the service has the deletion: a refused one puts them back (restoreDeleted).
      const edges = graph.edges();
      for (const id of nodeIds) {
        deletedHere.current.set(id, { node: graph.nodeById(id), edges: edges.filter((e) => e.source === id || e.target === id) });
      }
      for (const id of edgeIds) deletedHere.current.set(id, { edges: edges.filter((e) => e.id === id) });
      for (const id of edgeIds) outbox.enqueue({ op: 'delete_edge', id });
      for (const id of nodeIds) outbox.enqueue({ op: 'delete_node', id });
      const gone = new Set(nodeIds);
      // Marks the nodes deleted (their waiting changes dropped), so neither a late answer nor a
      // reload that read the board before the deletion brings them back; the stream's own
      // node.deleted/edge.deleted for them then change nothing.
      if (gone.size > 0) sync.nodesDeleted([...gone]);
      for (const id of edgeIds) sync.edgeDeleted(id);
      onNodesDeleted(gone);
      return { gone, edgesGone: new Set(edgeIds) };
    },
    [graph, outbox, sync, onNodesDeleted],
  );

  /** A deletion the service refused: the node (with its edges) or the edge is put back. */
  const restoreDeleted = useCallback(
    (id: string): BoardFlowNode | undefined => {
      const kept = deletedHere.current.get(id);
      if (!kept) return undefined;
      deletedHere.current.delete(id);
      sync.restored(
        kept.node ? [id] : [],
        kept.edges.map((e) => e.id),
      );
      if (kept.node) graph.applyNode(kept.node);
      for (const edge of kept.edges) graph.applyEdge(edge);
      return kept.node;
    },
    [graph, sync],
  );

  // React Flow's hook for every deletion (the Delete key too): the selection leaves the canvas at
  // once and its deletion waits in the outbox until the service has it.
  const beforeDelete: OnBeforeDelete<BoardFlowNode, Edge> = useCallback(
    async ({ nodes: doomed, edges: doomedEdges }) => {
      if (!canEdit) return false;
      const real = doomed.filter((n) => n.type !== 'uploadNode');
      const asked = new Set(real.map((n) => n.id));
      // Edges of deleted nodes go with them on the service; only the others are deleted by id,
      // before the nodes.
      const own = doomedEdges.filter((e) => !asked.has(e.source) && !asked.has(e.target));
      if (own.length + real.length === 0) return false;
      // The text typed into a deleted note goes into its history entry (undo brings it back).
      const typedNodes = real.map(withTypedText);
      const { gone, edgesGone } = deleteNow(
        real.map((n) => n.id),
        own.map((e) => e.id),
      );
      const deletedNodes = real.filter((n) => gone.has(n.id));
      const deletedEdges = doomedEdges.filter((e) => edgesGone.has(e.id) || gone.has(e.source) || gone.has(e.target));
      if (deletedNodes.length + deletedEdges.length > 0) {
        history.record({
          kind: 'delete',
          nodes: typedNodes.filter((n) => gone.has(n.id)).flatMap((n) => snapshotNode(n) ?? []),
          edges: deletedEdges.map(snapshotEdge),
        });
      }
      return { nodes: deletedNodes, edges: deletedEdges };
    },
    [canEdit, deleteNow, history, withTypedText],
  );

  const undoDeps = useMemo<HistoryOutboxDeps>(
    () => ({ graph, history, outbox, text, deleteNow }),
    [graph, history, outbox, text, deleteNow],
  );

  /**
   * Undoes (or redoes) the person's last change on the board as it is now (edits/reapply.ts: never
   * over someone else's later change), as a change of its own through the outbox; one that cannot
   * be made (its node is gone, someone changed the same thing since) is dropped with a notice.
   */
  const step = useCallback(
    (direction: 'undo' | 'redo') => {
      const run = async () => {
        if (!canEdit) return;
        const entry = direction === 'undo' ? history.takeUndo() : history.takeRedo();
        if (!entry) return;
        const change: HistoryChange = direction === 'undo' ? invert(entry) : entry;
        const board: CurrentBoard = {
          node: (id) => graph.nodeById(id),
          noteText: (id) => text.local(id) ?? str(graph.nodeById(id)?.data.text),
          edgeData: (id) => {
            const edge = graph.edgeById(id);
            return edge && ((edge.data ?? {}) as Record<string, unknown>);
          },
          resolve: (id) => history.resolve(id),
        };
        const plan = planStep(change, board, direction === 'undo' ? 'undone' : 'redone');
        if (plan.kind === 'refused') {
          notify(plan.message);
          return;
        }
        // Made on the canvas and put in the outbox after what waits there (sync/history-outbox.ts).
        applyStep(undoDeps, plan);
        const made = entryAfter(entry, plan, direction);
        if (direction === 'undo') history.undone(made);
        else history.redone(made);
      };
      historyQueue.current = historyQueue.current.then(run, run);
      return historyQueue.current;
    },
    [canEdit, history, graph, text, undoDeps, notify],
  );
  const undo = useCallback(() => step('undo'), [step]);
  const redo = useCallback(() => step('redo'), [step]);

  /**
   * Pastes `copy` with its top-left corner at `at`, in one batch (nodes with refs, the edges among
   * them by ref); the pasted nodes become the selection. One history entry.
   */
  const paste = useCallback(
    async (copy: NodeClipboard, at: XYPosition) => {
      if (!canEdit) return;
      const { operations, linked } = pasteOperations(copy, boardId, at);
      // The copies get ids of their own here (the clipboard's refs name them within the paste).
      const ids = new Map<string, string>();
      const ops: OutboxOp[] = [];
      for (const operation of operations) {
        if (operation.op === 'create_node') {
          const id = newId();
          if (operation.ref) ids.set(operation.ref, id);
          ops.push({
            op: 'create_node',
            id,
            type: operation.type as ApiNodeType,
            position: operation.position,
            data: operation.data ?? {},
          });
        } else if (operation.op === 'create_edge') {
          const source = operation.source_ref ? ids.get(operation.source_ref) : operation.source_node_id;
          const target = operation.target_ref ? ids.get(operation.target_ref) : operation.target_node_id;
          if (source && target) ops.push({ op: 'create_edge', id: newId(), source, target, data: operation.data ?? {} });
        }
      }
      const nodes = ops.flatMap((op) => (op.op === 'create_node' ? [createdNode(op)] : []));
      const edges = ops.flatMap((op) => (op.op === 'create_edge' ? [createdEdge(op)] : []));
      for (const n of nodes) graph.applyNode(n);
      for (const e of edges) graph.applyEdge(e);
      for (const op of ops) outbox.enqueue(op);
      graph.select(nodes.map((n) => n.id));
      history.record({ kind: 'create', nodes: nodes.flatMap((n) => snapshotNode(n) ?? []), edges: edges.map(snapshotEdge) });
      if (linked > 0) {
        notify(
          `${linked === 1 ? 'A file was' : `${linked} files were`} pasted as a link to the original: files belong to their board (upload it here for a copy of its own).`,
        );
      }
    },
    [boardId, canEdit, graph, outbox, history, notify],
  );

  // ---- Cards and connections: size, colour, title, edge label, links ---------------------------

  /** Changes keys of a node's data (null removes one), and with a resize its position (`move.from`:
   * where it was before the resizer moved it): shown at once, saved after a short pause as one PATCH
   * per node (the API merges data keys). */
  const updateNodeData = useCallback(
    (nodeId: string, patch: Record<string, unknown>, move?: PositionMove) => {
      const node = graph.nodeById(nodeId);
      if (!node) return; // deleted meanwhile (by someone else too)
      history.record({
        kind: 'data',
        id: nodeId,
        from: Object.fromEntries(Object.keys(patch).map((key) => [key, node.data[key] ?? null])),
        to: patch,
        ...(move ? { position: move } : {}),
      });
      graph.patchNode(nodeId, (n) => ({ ...n, data: patched(n.data, patch) }));
      outbox.enqueue({ op: 'update_node', id: nodeId, data: patch, ...(move ? { position: move.to } : {}) });
    },
    [graph, outbox, history],
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

  /** Changes keys of an edge's data (null removes one): shown at once, then saved on the edge as
   * the service has it then (others' changes to its other keys stay: sync/send.ts). */
  const updateEdgeData = useCallback(
    (edgeId: string, patch: Record<string, unknown>) => {
      const edge = graph.edgeById(edgeId);
      if (!edge) return;
      const before = (edge.data ?? {}) as Record<string, unknown>;
      history.record({
        kind: 'edgeData',
        id: edgeId,
        from: Object.fromEntries(Object.keys(patch).map((key) => [key, before[key] ?? null])),
        to: patch,
      });
      setEdgeKeys(graph, outbox, edge, patch);
    },
    [graph, outbox, history],
  );

  /** Adds a url node for `url` (a video node for YouTube and Vimeo) centred on `at`, selected;
   * rejects with the service's reason. */
  const addLink = useCallback(
    async (url: string, at: XYPosition) => {
      create(linkNodeType(url), { x: Math.round(at.x - 140), y: Math.round(at.y - 60) }, { url }, { select: true });
    },
    [create],
  );

  return {
    autoFocusId,
    autoFocusDone,
    addingNote,
    addNote,
    addNoteAt,
    addLinkedNote,
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
    restoreDeleted,
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
