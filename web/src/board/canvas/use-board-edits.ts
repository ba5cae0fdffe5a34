// Every change a person makes to the board's nodes and edges, sent to the API and shown on the
// canvas from the service's answer: a note added from the toolbar, a file's node placed after its
// upload, note text and positions (debounced per node through the save tracker), a new edge, and
// deletions (the API first, one batch request for a whole selection; only what the service
// deleted leaves the canvas). This is the one place the canvas writes nodes and edges, so
// undo/redo, copy/paste and resizing belong here.
import { useCallback, useRef, useState } from 'react';
import { type Connection, type Edge, type OnBeforeDelete, useReactFlow, type XYPosition } from '@xyflow/react';
import { type ApiNodeType, BoardApiError, createEdge, createNode, type DeleteOperation, deleteInBatches, updateNode } from '../board-api';
import { type BoardFlowNode, draftKey, readDraft, writeDraft } from '../board-context';
import { toFlowEdge, toFlowNode } from '../flow-mapping';
import { labelOf } from '../nodes/node-frame';
import type { SaveTracker } from '../save-tracker';
import { noteKey, positionKey, type ServerSync } from './server-sync';
import type { CanvasGraph } from './use-board-graph';

const NOTE_SAVE_MS = 700;
const POSITION_SAVE_MS = 400;

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

  /** Adds an empty note centred on `centre` (the canvas finds a free spot: free-spot.ts), selected and focused. */
  const addNote = useCallback(
    async (centre: XYPosition) => {
      const position = { x: Math.round(centre.x - 130), y: Math.round(centre.y - 70) };
      setAddingNote(true);
      try {
        const record = await createNode(boardId, 'note', position, { text: '', label: 'Note' });
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
    [boardId, tracker, sync, unlessDeleted],
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
            await updateNode(boardId, n.id, { position }).then(sync.saved.bind(sync), unlessDeleted(n.id, 'its move'));
          },
          POSITION_SAVE_MS,
        );
      }
    },
    [boardId, tracker, sync, unlessDeleted],
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
  };
}
