// Every change a person makes to the board's nodes and edges, sent to the API and shown on the
// canvas from the service's answer: a note added from the toolbar, a file's node placed after its
// upload, note text and positions (debounced per node through the save tracker), a new edge, and
// deletions (the API first, one batch request for a whole selection; only what the service
// deleted leaves the canvas). This is the one place the canvas writes nodes and edges, so
// undo/redo, copy/paste and resizing belong here.
import { useCallback, useRef, useState } from 'react';
import { type Connection, type Edge, type OnBeforeDelete, useReactFlow, type XYPosition } from '@xyflow/react';
import { type ApiNodeType, createEdge, createNode, type DeleteOperation, deleteInBatches, updateEdge, updateNode } from '../board-api';
import { type BoardFlowNode, draftKey, readDraft, writeDraft } from '../board-context';
import { edgeMarker, toFlowEdge, toFlowNode } from '../flow-mapping';
import { labelOf } from '../nodes/node-frame';
import type { SaveTracker } from '../save-tracker';
import { linkNodeType } from '../nodes/web-links';
import { dataKey, edgeKey, noteKey, positionKey, type ServerSync } from './server-sync';
import type { CanvasGraph } from './use-board-graph';

const NOTE_SAVE_MS = 700;
const POSITION_SAVE_MS = 400;
const DATA_SAVE_MS = 300;

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
  const notesAdded = useRef(0);
  // The text as last typed per note, ahead of its debounced save.
  const noteText = useRef(new Map<string, string>());
  // Data keys (size, colour, title) per node changed here and not yet saved; one request per node.
  const dataChanges = useRef(new Map<string, { data: Record<string, unknown>; position?: XYPosition }>());

  /** Adds an empty note near `centre` (each next one a little lower right), selected and focused. */
  const addNote = useCallback(
    async (centre: XYPosition) => {
      const offset = (notesAdded.current++ % 6) * 28;
      const position = { x: Math.round(centre.x - 130 + offset), y: Math.round(centre.y - 70 + offset) };
      setAddingNote(true);
      try {
        // No label: the card is titled by its first line until the person names it.
        const record = await createNode(boardId, 'note', position, { text: '' });
        graph.addNode(toFlowNode(record), { select: true });
        setAutoFocusId(record.id);
      } catch (error) {
        notify((error as Error).message);
      } finally {
        setAddingNote(false);
      }
    },
    [boardId, graph, notify],
  );

  /** Creates a node for an uploaded file in place of its placeholder `tempId`; throws on failure. */
  const placeFileNode = useCallback(
    async (tempId: string, kind: ApiNodeType, position: XYPosition, data: Record<string, unknown>) => {
      const record = await createNode(boardId, kind, position, data);
      graph.replaceNode(tempId, toFlowNode(record));
    },
    [boardId, graph],
  );

  /** Saves a note's text after a pause, kept as a draft in localStorage until the service has it. */
  const saveNoteText = useCallback(
    (nodeId: string, text: string) => {
      const key = draftKey(boardId, nodeId);
      noteText.current.set(nodeId, text);
      writeDraft(key, text);
      tracker.schedule(
        noteKey(nodeId),
        async () => {
          // Shown once the node is no longer busy (server-sync.ts).
          sync.saved(await updateNode(boardId, nodeId, { data: { text } }));
          if (readDraft(key) === text) writeDraft(key, null);
        },
        NOTE_SAVE_MS,
      );
    },
    [boardId, tracker, sync],
  );

  /** The note's text as typed, saved or not (undefined if not typed on this page). */
  const typedText = useCallback((nodeId: string) => noteText.current.get(nodeId), []);

  /** Sends a note's waiting text save now (before vectorizing it). */
  const flushNoteText = useCallback((nodeId: string) => tracker.flush(noteKey(nodeId)), [tracker]);

  /** Saves where dragged nodes were left (React Flow has already moved them on the canvas). */
  const saveMoves = useCallback(
    (dragged: BoardFlowNode[]) => {
      for (const n of dragged) {
        if (n.type === 'uploadNode') continue;
        const position = { x: n.position.x, y: n.position.y };
        tracker.schedule(
          positionKey(n.id),
          async () => {
            sync.saved(await updateNode(boardId, n.id, { position }));
          },
          POSITION_SAVE_MS,
        );
      }
    },
    [boardId, tracker, sync],
  );

  const connect = useCallback(
    async (connection: Connection) => {
      try {
        const record = await createEdge(boardId, connection.source, connection.target);
        graph.addEdge(toFlowEdge(record));
      } catch (error) {
        notify((error as Error).message);
      }
    },
    [boardId, graph, notify],
  );

  /** Deletes nodes and edges (toolbar, a node's menu); React Flow asks `beforeDelete` first. */
  const remove = useCallback(
    (ids: { nodes?: string[]; edges?: string[] }) =>
      void flow.deleteElements({ nodes: ids.nodes?.map((id) => ({ id })), edges: ids.edges?.map((id) => ({ id })) }),
    [flow],
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
      const operations: DeleteOperation[] = [
        ...own.map((e) => ({ op: 'delete_edge' as const, id: e.id })),
        ...real.map((n) => ({ op: 'delete_node' as const, id: n.id })),
      ];
      if (operations.length === 0) return false;
      const { done, error, failedAt } = await deleteInBatches(boardId, operations);
      const written = operations.slice(0, done);
      if (error) {
        // "operations[i]: …" means nothing to a person: name the item instead.
        const item = failedAt === undefined ? undefined : operations[failedAt];
        const node = item?.op === 'delete_node' ? real.find((n) => n.id === item.id) : undefined;
        const what = node ? labelOf(node.data, 'A node') : item ? 'A connection' : undefined;
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
      return {
        nodes: real.filter((n) => gone.has(n.id)),
        edges: doomedEdges.filter((e) => edgesGone.has(e.id) || gone.has(e.source) || gone.has(e.target)),
      };
    },
    [boardId, canEdit, sync, notify, onNodesDeleted],
  );

  // ---- Cards and connections: size, colour, title, edge label, links ---------------------------

  /** Changes keys of a node's data (null removes one), and with a resize its position: shown at
   * once, saved after a short pause as one PATCH per node (the API merges data keys). */
  const updateNodeData = useCallback(
    (nodeId: string, patch: Record<string, unknown>, position?: XYPosition) => {
      if (!graph.nodeById(nodeId)) return; // deleted meanwhile (by someone else too)
      graph.patchNode(nodeId, (n) => ({ ...n, data: patched(n.data, patch) }));
      const before = dataChanges.current.get(nodeId);
      const change = { data: { ...before?.data, ...patch }, position: position ?? before?.position };
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
    [boardId, graph, tracker, sync],
  );

  /** A card resized (React Flow's NodeResizer has drawn it): its size kept in node_data's width
   * and height (the keys JSON Canvas export reads), and its position when a left or top edge moved
   * (`position`: the resizer has moved the node on the canvas already). */
  const resizeNode = useCallback(
    (nodeId: string, size: { width: number; height: number }, position?: XYPosition) => {
      // The card's size now comes from its data again, not from the resizer's inline size.
      graph.patchNode(nodeId, (n) => ({ ...n, width: undefined, height: undefined }));
      updateNodeData(
        nodeId,
        { width: Math.round(size.width), height: Math.round(size.height) },
        position && { x: Math.round(position.x), y: Math.round(position.y) },
      );
    },
    [graph, updateNodeData],
  );

  /** Changes keys of an edge's data (null removes one): shown at once, then the whole data saved
   * (PATCH replaces edge_data). */
  const updateEdgeData = useCallback(
    (edgeId: string, patch: Record<string, unknown>) => {
      const edge = flow.getEdge(edgeId);
      if (!edge) return;
      const data = patched(edge.data ?? {}, patch);
      graph.applyEdge({ ...edge, data, label: typeof data.label === 'string' ? data.label : undefined, markerEnd: edgeMarker(data) });
      tracker.schedule(
        edgeKey(edgeId),
        async () => {
          sync.edge(await updateEdge(boardId, edgeId, flow.getEdge(edgeId)?.data ?? data));
        },
        DATA_SAVE_MS,
      );
    },
    [boardId, flow, graph, tracker, sync],
  );

  /** Adds a url node for `url` (a video node for YouTube and Vimeo) centred on `at`, selected;
   * rejects with the service's reason. */
  const addLink = useCallback(
    async (url: string, at: XYPosition) => {
      const record = await createNode(boardId, linkNodeType(url), { x: Math.round(at.x - 140), y: Math.round(at.y - 60) }, { url });
      graph.addNode(toFlowNode(record), { select: true });
    },
    [boardId, graph],
  );

  return {
    autoFocusId,
    addingNote,
    addNote,
    placeFileNode,
    saveNoteText,
    typedText,
    flushNoteText,
    saveMoves,
    connect,
    remove,
    beforeDelete,
    updateNodeData,
    resizeNode,
    updateEdgeData,
    addLink,
  };
}
