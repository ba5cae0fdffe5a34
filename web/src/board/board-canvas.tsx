// The board's canvas (React Flow) with its toolbar, search box and chat panel. Every change is
// sent to the API as it happens: new notes and edges at once, note text and positions debounced
// per node, the viewport debounced per board; deletions go through the API first and leave the
// canvas only when the service has done them. Files dropped on the canvas are uploaded with
// progress and placed as image/pdf nodes where they were dropped.
import { useCallback, useEffect, useMemo, useRef, useState, type ChangeEvent, type DragEvent } from 'react';
import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  useEdgesState,
  useNodesState,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeTypes,
  type NodeTypes,
  type OnBeforeDelete,
  type XYPosition,
} from '@xyflow/react';
import {
  createEdge,
  createNode,
  deleteEdge,
  deleteNode,
  getJob,
  saveViewport,
  updateNode,
  uploadAsset,
  vectorize,
  type Asset,
  type Board,
  type Job,
} from './board-api';
import {
  ActionsContext,
  draftKey,
  HighlightContext,
  JobsContext,
  readDraft,
  writeDraft,
  type BoardActions,
  type BoardFlowNode,
  type JobState,
} from './board-context';
import { ChatPanel } from './chat-panel';
import { ChunkIndex } from './chunk-index';
import { FloatingEdge } from './floating-edge';
import { ChatIcon, PlusIcon, TrashIcon, UploadIcon } from './icons';
import { toFlowNode, toFlowEdge, apiTypeOf } from './flow-mapping';
import { ImageNode, PdfNode, UploadNode, type UploadData } from './nodes/file-nodes';
import { DocumentNode, UrlNode, VideoNode } from './nodes/link-nodes';
import { labelOf, str } from './nodes/node-frame';
import { NoteNode } from './nodes/note-node';
import { countPdfPages } from './pdf-pages';
import { SaveTracker, useSaveStatus } from './save-tracker';
import { SearchBox } from './search-box';

const nodeTypes: NodeTypes = {
  noteNode: NoteNode,
  urlNode: UrlNode,
  videoNode: VideoNode,
  documentNode: DocumentNode,
  pdfNode: PdfNode,
  imageNode: ImageNode,
  uploadNode: UploadNode,
};

const edgeTypes: EdgeTypes = { floating: FloatingEdge };

const NOTE_SAVE_MS = 700;
const POSITION_SAVE_MS = 400;
const VIEWPORT_SAVE_MS = 800;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function kindOfFile(file: File): 'image' | 'pdf' | undefined {
  if (file.type === 'application/pdf' || (!file.type && /\.pdf$/i.test(file.name))) return 'pdf';
  if (IMAGE_TYPES.has(file.type) || (!file.type && /\.(png|jpe?g|gif|webp)$/i.test(file.name))) return 'image';
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Notice {
  id: number;
  message: string;
}

export interface BoardCanvasProps {
  board: Board;
  initialNodes: BoardFlowNode[];
  initialEdges: Edge[];
  /** The owner may also upload files and keeps the viewport. */
  isOwner: boolean;
  /** Nodes and edges may change (owner, or a public board shared with edit access). */
  canEdit: boolean;
}

export function BoardCanvas({ board, initialNodes, initialEdges, isOwner, canEdit }: BoardCanvasProps) {
  const boardId = board.id;
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [nodes, setNodes, onNodesChange] = useNodesState<BoardFlowNode>(initialNodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initialEdges);
  const tracker = useMemo(() => new SaveTracker(), []);
  const chunks = useMemo(() => new ChunkIndex(boardId), [boardId]);
  const [jobs, setJobs] = useState<Record<string, JobState>>({});
  const [highlight, setHighlight] = useState<string>();
  const [autoFocusId, setAutoFocusId] = useState<string>();
  const [notices, setNotices] = useState<Notice[]>([]);
  const [chatOpen, setChatOpen] = useState(false);
  const [dropping, setDropping] = useState(false);
  const [adding, setAdding] = useState(false);
  const wrapper = useRef<HTMLDivElement>(null);
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const noteText = useRef(new Map<string, string>());
  const uploads = useRef(new Map<string, { file: File; position: XYPosition; kind: 'image' | 'pdf'; asset?: Asset; pageCount?: number }>());
  const counters = useRef({ notice: 0, upload: 0, note: 0 });
  const alive = useRef(true);
  const neverMoved = board.viewport_x === 0 && board.viewport_y === 0 && board.viewport_zoom === 1;
  const initialFit = useRef(neverMoved && initialNodes.length > 0);
  const savedViewport = useRef({ x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom });

  useEffect(() => {
    alive.current = true;
    // Leaving with a save still waiting asks the browser to confirm; leaving the page within the
    // app (unmount) sends the waiting saves at once.
    const warn = (event: BeforeUnloadEvent) => {
      if (tracker.hasPending()) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      alive.current = false;
      window.removeEventListener('beforeunload', warn);
      tracker.flushAll();
    };
  }, [tracker]);

  const notify = useCallback((message: string) => {
    const id = ++counters.current.notice;
    setNotices((list) => [...list.slice(-3), { id, message }]);
  }, []);

  const patchNode = useCallback(
    (id: string, change: (node: BoardFlowNode) => BoardFlowNode) => setNodes((list) => list.map((n) => (n.id === id ? change(n) : n))),
    [setNodes],
  );

  const selectOnly = useCallback(
    (id: string) => setNodes((list) => list.map((n) => (n.selected === (n.id === id) ? n : { ...n, selected: n.id === id }))),
    [setNodes],
  );

  /** Centres the canvas on a node and highlights it (search results, chat sources). */
  const focusNode = useCallback(
    (id: string) => {
      const node = flow.getInternalNode(id);
      if (!node) {
        notify('That node is no longer on the board.');
        return;
      }
      const width = node.measured.width ?? 260;
      const height = node.measured.height ?? 120;
      const at = node.internals.positionAbsolute;
      void flow.setCenter(at.x + width / 2, at.y + height / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 450 });
      setHighlight(id);
      selectOnly(id);
    },
    [flow, notify, selectOnly],
  );

  // ---- note text, vectorizing, deleting: actions the nodes call -------------------------------

  const saveNoteText = useCallback(
    (nodeId: string, text: string) => {
      const key = draftKey(boardId, nodeId);
      noteText.current.set(nodeId, text);
      writeDraft(key, text);
      tracker.schedule(
        `note:${nodeId}`,
        async () => {
          const saved = await updateNode(boardId, nodeId, { data: { text } });
          patchNode(nodeId, (n) => ({ ...n, data: saved.node_data }));
          if (readDraft(key) === text) writeDraft(key, null);
        },
        NOTE_SAVE_MS,
      );
    },
    [boardId, tracker, patchNode],
  );

  const pollJob = useCallback(async (nodeId: string, first: Job) => {
    let job = first;
    let failures = 0;
    let delay = 400;
    while (job.status === 'processing' && alive.current) {
      setJobs((all) => ({ ...all, [nodeId]: { ...all[nodeId]!, status: 'processing' } }));
      await sleep(delay);
      delay = Math.min(delay * 1.5, 2000);
      try {
        job = await getJob(job.id);
        failures = 0;
      } catch (error) {
        // A blip should not lose the job; several failures in a row end the watch with the reason.
        if (++failures >= 5) {
          setJobs((all) => ({
            ...all,
            [nodeId]: { ...all[nodeId]!, status: 'failed', error: `lost track of it (${(error as Error).message})` },
          }));
          return;
        }
      }
    }
    if (!alive.current) return;
    const chunkCount = typeof job.result?.chunks === 'number' ? job.result.chunks : undefined;
    setJobs((all) => ({
      ...all,
      [nodeId]:
        job.status === 'completed'
          ? { ...all[nodeId]!, status: 'completed', chunks: chunkCount }
          : { ...all[nodeId]!, status: 'failed', error: job.error ?? 'the job failed' },
    }));
  }, []);

  const startVectorize = useCallback(
    async (nodeId: string) => {
      const node = nodesRef.current.find((n) => n.id === nodeId);
      if (!node) return;
      const kind = apiTypeOf(node.type);
      const startedAt = Date.now();
      setJobs((all) => ({ ...all, [nodeId]: { status: 'starting', startedAt } }));
      try {
        // The text as typed: a waiting save goes first, so what is searched is what is stored.
        await tracker.flush(`note:${nodeId}`);
        let text: string | undefined;
        if (kind === 'note' || kind === 'document') {
          text = noteText.current.get(nodeId) ?? str(node.data.text);
          if (!text.trim()) {
            setJobs((all) => ({ ...all, [nodeId]: { status: 'failed', startedAt, error: 'there is no text yet' } }));
            return;
          }
        }
        const job = await vectorize(boardId, { node_id: nodeId, ...(text !== undefined ? { text } : {}) });
        await pollJob(nodeId, job);
      } catch (error) {
        setJobs((all) => ({ ...all, [nodeId]: { status: 'failed', startedAt, error: (error as Error).message } }));
      }
    },
    [boardId, tracker, pollJob],
  );

  const onBeforeDelete: OnBeforeDelete<BoardFlowNode, Edge> = useCallback(
    async ({ nodes: doomed, edges: doomedEdges }) => {
      if (!canEdit) return false;
      const real = doomed.filter((n) => n.type !== 'uploadNode');
      const results = await Promise.allSettled(real.map((n) => deleteNode(boardId, n.id)));
      const gone = new Set<string>();
      const asked = new Set(real.map((n) => n.id));
      results.forEach((result, i) => {
        const node = real[i]!;
        if (result.status === 'fulfilled') {
          gone.add(node.id);
          for (const key of [`note:${node.id}`, `position:${node.id}`]) tracker.cancel(key);
          writeDraft(draftKey(boardId, node.id), null);
        } else notify(`${labelOf(node.data, 'The node')}: ${(result.reason as Error).message}`);
      });
      // Edges of deleted nodes go with them on the service; the others are deleted one by one.
      const own = doomedEdges.filter((e) => !asked.has(e.source) && !asked.has(e.target));
      const edgeResults = await Promise.allSettled(own.map((e) => deleteEdge(boardId, e.id)));
      const edgesGone = doomedEdges.filter((e) => gone.has(e.source) || gone.has(e.target));
      edgeResults.forEach((result, i) => {
        if (result.status === 'fulfilled') edgesGone.push(own[i]!);
        else notify((result.reason as Error).message);
      });
      if (highlight && gone.has(highlight)) setHighlight(undefined);
      return { nodes: real.filter((n) => gone.has(n.id)), edges: edgesGone };
    },
    [boardId, canEdit, tracker, notify, highlight],
  );

  // ---- uploads ------------------------------------------------------------------------------

  const startUpload = useCallback(
    (file: File, position: XYPosition, existingId?: string) => {
      const kind = kindOfFile(file);
      if (!kind) {
        notify(`${file.name}: only images (PNG, JPEG, GIF, WebP) and PDFs can be placed on the board.`);
        return;
      }
      const tempId = existingId ?? `upload-${++counters.current.upload}`;
      const entry = uploads.current.get(tempId) ?? { file, position, kind };
      uploads.current.set(tempId, entry);
      const show = (data: Partial<UploadData>) => patchNode(tempId, (n) => ({ ...n, data: { ...n.data, ...data } }));
      const fresh: UploadData = { name: file.name, progress: entry.asset ? 1 : 0, stage: entry.asset ? 'placing' : 'uploading' };
      setNodes((list) =>
        list.some((n) => n.id === tempId)
          ? list.map((n) => (n.id === tempId ? { ...n, data: fresh } : n))
          : [
              ...list,
              {
                id: tempId,
                type: 'uploadNode',
                position,
                data: fresh,
                draggable: false,
                selectable: false,
                deletable: false,
                connectable: false,
              },
            ],
      );
      void (async () => {
        try {
          if (!entry.asset) {
            const pages = kind === 'pdf' ? countPdfPages(file).catch(() => undefined) : Promise.resolve(undefined);
            entry.asset = await uploadAsset(boardId, file, (progress) => show({ progress })).done;
            entry.pageCount = await pages;
          }
          show({ progress: 1, stage: 'placing' });
          const asset = entry.asset;
          const data = {
            storagePath: asset.storage_path,
            publicUrl: asset.url,
            fileSize: asset.size,
            label: file.name,
            ...(entry.pageCount ? { pageCount: entry.pageCount } : {}),
          };
          const record = await createNode(boardId, kind, entry.position, data);
          uploads.current.delete(tempId);
          setNodes((list) => list.map((n) => (n.id === tempId ? toFlowNode(record) : n)));
        } catch (error) {
          show({ stage: 'failed', error: (error as Error).message });
        }
      })();
    },
    [boardId, notify, patchNode, setNodes],
  );

  const placeFiles = useCallback(
    (files: File[], at: XYPosition) =>
      files.forEach((file, i) => startUpload(file, { x: Math.round(at.x + i * 32), y: Math.round(at.y + i * 32) })),
    [startUpload],
  );

  const viewCentre = useCallback((): XYPosition => {
    const rect = wrapper.current?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    return flow.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
  }, [flow]);

  const actions = useMemo<BoardActions>(
    () => ({
      boardId,
      canEdit,
      canVectorize: canEdit,
      tracker,
      autoFocusId,
      saveNoteText,
      vectorize: (id) => void startVectorize(id),
      dismissJob: (id) =>
        setJobs((all) => {
          const { [id]: _dropped, ...rest } = all;
          return rest;
        }),
      remove: (id) => void flow.deleteElements({ nodes: [{ id }] }),
      chatAbout: (id) => {
        selectOnly(id);
        setChatOpen(true);
      },
      retryUpload: (id) => {
        const entry = uploads.current.get(id);
        if (entry) startUpload(entry.file, entry.position, id);
      },
      dismissUpload: (id) => {
        uploads.current.delete(id);
        setNodes((list) => list.filter((n) => n.id !== id));
      },
    }),
    [boardId, canEdit, tracker, autoFocusId, saveNoteText, startVectorize, flow, selectOnly, startUpload, setNodes],
  );

  // ---- toolbar -------------------------------------------------------------------------------

  async function addNote() {
    const centre = viewCentre();
    const offset = (counters.current.note++ % 6) * 28;
    const position = { x: Math.round(centre.x - 130 + offset), y: Math.round(centre.y - 70 + offset) };
    setAdding(true);
    try {
      const record = await createNode(boardId, 'note', position, { text: '', label: 'Note' });
      setNodes((list) => [...list.map((n) => (n.selected ? { ...n, selected: false } : n)), { ...toFlowNode(record), selected: true }]);
      setAutoFocusId(record.id);
    } catch (error) {
      notify((error as Error).message);
    } finally {
      setAdding(false);
    }
  }

  function onFileInput(event: ChangeEvent<HTMLInputElement>) {
    const files = [...(event.target.files ?? [])];
    event.target.value = '';
    const centre = viewCentre();
    placeFiles(files, { x: centre.x - 140, y: centre.y - 100 });
  }

  const canUpload = isOwner;
  const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  // Files dragged over the canvas are always taken (a file dropped on a page would otherwise
  // replace the page); only the owner may add files to a board.
  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = canUpload ? 'copy' : 'none';
    if (canUpload && !dropping) setDropping(true);
  };
  const onDrop = (event: DragEvent) => {
    setDropping(false);
    if (!hasFiles(event)) return;
    event.preventDefault();
    if (!canUpload) {
      notify("Only the board's owner can add files to it.");
      return;
    }
    placeFiles([...event.dataTransfer.files], flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };

  const onConnect = useCallback(
    async (connection: Connection) => {
      try {
        const record = await createEdge(boardId, connection.source, connection.target);
        setEdges((list) => [...list, toFlowEdge(record)]);
      } catch (error) {
        notify((error as Error).message);
      }
    },
    [boardId, setEdges, notify],
  );

  const realNodes = nodes.filter((n) => n.type !== 'uploadNode');
  const selectedNodes = realNodes.filter((n) => n.selected);
  const selectedEdges = edges.filter((e) => e.selected);
  const selectedOne = selectedNodes.length === 1 ? selectedNodes[0]! : undefined;
  const selectedNode = useMemo(
    () => (selectedOne ? { id: selectedOne.id, label: labelOf(selectedOne.data, apiTypeOf(selectedOne.type) ?? 'Node') } : undefined),
    [selectedOne?.id, selectedOne?.data],
  );
  const nodeLabel = (id: string): string | undefined => {
    const node = realNodes.find((n) => n.id === id);
    return node ? labelOf(node.data, apiTypeOf(node.type) ?? 'Node') : undefined;
  };

  return (
    <ActionsContext.Provider value={actions}>
      <JobsContext.Provider value={jobs}>
        <HighlightContext.Provider value={highlight}>
          <div className="bw-board">
            <header className="bw-board__bar">
              <h1 className="bw-board__name" title={board.name}>
                {board.name}
              </h1>
              {!canEdit && <span className="bw-badge">View only</span>}
              {isOwner && board.is_public && <span className="bw-badge is-public">Public · {board.public_access_level}</span>}
              {canEdit && (
                <div className="bw-toolbar" role="toolbar" aria-label="Board tools">
                  <button type="button" className="bw-button is-primary" onClick={addNote} disabled={adding}>
                    <PlusIcon /> Add note
                  </button>
                  {canUpload && (
                    <label className="bw-button">
                      <UploadIcon /> Upload file
                      <input
                        type="file"
                        className="bw-visually-hidden"
                        aria-label="Upload image or PDF"
                        accept="image/png,image/jpeg,image/gif,image/webp,application/pdf"
                        multiple
                        onChange={onFileInput}
                      />
                    </label>
                  )}
                  <button
                    type="button"
                    className="bw-button"
                    aria-label="Delete selected"
                    disabled={selectedNodes.length + selectedEdges.length === 0}
                    onClick={() =>
                      void flow.deleteElements({
                        nodes: selectedNodes.map((n) => ({ id: n.id })),
                        edges: selectedEdges.map((e) => ({ id: e.id })),
                      })
                    }
                  >
                    <TrashIcon /> Delete
                  </button>
                </div>
              )}
              <SearchBox boardId={boardId} chunks={chunks} nodeLabel={nodeLabel} onOpen={focusNode} />
              <div className="bw-board__spacer" />
              {canEdit && <SaveIndicator tracker={tracker} />}
              <button type="button" className="bw-button" aria-pressed={chatOpen} onClick={() => setChatOpen(!chatOpen)}>
                <ChatIcon /> Chat
              </button>
            </header>
            <div className="bw-board__main">
              <div
                className={`bw-canvas${dropping ? ' is-dropping' : ''}`}
                ref={wrapper}
                onDragOver={onDragOver}
                onDragLeave={(event) => {
                  if (!wrapper.current?.contains(event.relatedTarget as Node | null)) setDropping(false);
                }}
                onDrop={onDrop}
              >
                <ReactFlow<BoardFlowNode, Edge>
                  nodes={nodes}
                  edges={edges}
                  nodeTypes={nodeTypes}
                  edgeTypes={edgeTypes}
                  onNodesChange={onNodesChange}
                  onEdgesChange={onEdgesChange}
                  onBeforeDelete={onBeforeDelete}
                  onConnect={canEdit ? onConnect : undefined}
                  onNodeDragStop={(_event, _node, dragged) => {
                    for (const n of dragged) {
                      if (n.type === 'uploadNode') continue;
                      const position = { x: n.position.x, y: n.position.y };
                      tracker.schedule(
                        `position:${n.id}`,
                        async () => {
                          await updateNode(boardId, n.id, { position });
                        },
                        POSITION_SAVE_MS,
                      );
                    }
                  }}
                  onMoveEnd={(event, viewport) => {
                    // The fit on opening a never-moved board is not a choice of the person: not saved
                    // (opening a board should not change it); nor is a view that did not change.
                    if (initialFit.current && !event) {
                      initialFit.current = false;
                      return;
                    }
                    const last = savedViewport.current;
                    if (
                      !isOwner ||
                      (Math.abs(last.x - viewport.x) < 0.5 &&
                        Math.abs(last.y - viewport.y) < 0.5 &&
                        Math.abs(last.zoom - viewport.zoom) < 1e-4)
                    )
                      return;
                    tracker.schedule(
                      'viewport',
                      async () => {
                        await saveViewport(boardId, viewport);
                        savedViewport.current = viewport;
                      },
                      VIEWPORT_SAVE_MS,
                    );
                  }}
                  onPaneClick={() => setHighlight(undefined)}
                  defaultViewport={{ x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom }}
                  // A board whose view was never moved opens with its content in view instead.
                  fitView={neverMoved && initialNodes.length > 0}
                  fitViewOptions={{ maxZoom: 1, padding: 0.2 }}
                  minZoom={0.1}
                  maxZoom={4}
                  nodesDraggable={canEdit}
                  nodesConnectable={canEdit}
                  deleteKeyCode={canEdit ? ['Delete', 'Backspace'] : null}
                  defaultEdgeOptions={{ type: 'floating', markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 } }}
                  connectionRadius={30}
                >
                  <Background variant={BackgroundVariant.Dots} gap={22} size={1.4} />
                  <Controls showInteractive={false} />
                  <MiniMap
                    pannable
                    zoomable
                    style={{ width: 150, height: 100 }}
                    nodeStrokeWidth={3}
                    nodeColor={(n) => MINIMAP_COLORS[n.type ?? ''] ?? '#94a3b8'}
                  />
                </ReactFlow>
                {realNodes.length === 0 && (
                  <div className="bw-empty">
                    <p>
                      {canUpload
                        ? 'This board is empty. Add a note, or drop an image or PDF here.'
                        : canEdit
                          ? 'This board is empty. Add a note.'
                          : 'This board is empty.'}
                    </p>
                  </div>
                )}
                {dropping && <div className="bw-dropzone">Drop images or PDFs to place them here</div>}
              </div>
              {chatOpen && (
                <ChatPanel
                  boardId={boardId}
                  selectedNode={selectedNode}
                  nodeLabel={nodeLabel}
                  onOpenNode={focusNode}
                  chunks={chunks}
                  onClose={() => setChatOpen(false)}
                />
              )}
            </div>
            {notices.length > 0 && (
              <div className="bw-notices">
                {notices.map((notice) => (
                  <div key={notice.id} className="bw-notice" role="alert">
                    <span>{notice.message}</span>
                    <button
                      type="button"
                      className="bw-icon-button"
                      aria-label="Dismiss"
                      onClick={() => setNotices((list) => list.filter((n) => n.id !== notice.id))}
                    >
                      ×
                    </button>
                  </div>
                ))}
              </div>
            )}
          </div>
        </HighlightContext.Provider>
      </JobsContext.Provider>
    </ActionsContext.Provider>
  );
}

const MINIMAP_COLORS: Record<string, string> = {
  noteNode: '#facc15',
  urlNode: '#38bdf8',
  videoNode: '#f87171',
  documentNode: '#a78bfa',
  pdfNode: '#fb923c',
  imageNode: '#34d399',
  uploadNode: '#cbd5e1',
};

function SaveIndicator({ tracker }: { tracker: SaveTracker }) {
  const status = useSaveStatus(tracker);
  if (status.failures.length > 0) {
    const first = status.failures[0]!;
    return (
      <div className="bw-save is-failed" role="alert">
        <span title={status.failures.map((f) => f.message).join('\n')}>
          {status.failures.length === 1 ? `Not saved: ${first.message}` : `${status.failures.length} changes not saved: ${first.message}`}
        </span>
        <button type="button" className="bw-link-button" onClick={() => tracker.retryAll()}>
          Retry
        </button>
      </div>
    );
  }
  return (
    <div className="bw-save" role="status">
      {status.pending > 0 ? 'Saving…' : 'All changes saved'}
    </div>
  );
}
