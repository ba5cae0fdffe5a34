// The board's canvas (React Flow) with its header, search box and chat panel: puts together the
// hooks and parts in ./canvas, each of which holds one concern. The nodes and edges and every local
// change to them are in canvas/use-board-graph.ts; every change sent to the API (new notes and
// edges at once, note text and positions debounced per node, deletions through the API first) is
// in canvas/use-board-edits.ts; the viewport, uploads and file drops, vectorize jobs, focusing a
// node and notices each have a hook of their own. Other people's changes and presence come through
// canvas/use-live-board.ts (the board's event stream, applied through the graph without undoing
// this person's own drag or typing). The editing keys, the clipboard, double-click notes and
// connecting by dropping on a card are in canvas/use-editing-shortcuts.ts. See
// docs/architecture.md ("The web app's board page") for the map.
import { useCallback, useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import {
  Background,
  BackgroundVariant,
  Controls,
  type Edge,
  MiniMap,
  ReactFlow,
  SelectionMode,
  useReactFlow,
  useStoreApi,
  type XYPosition,
} from '@xyflow/react';
import { type Board, exportCanvas } from './board-api';
import { saveBlob } from '../lib/download';
import { useDocumentTitle } from '../lib/title';
import {
  ActionsContext,
  type BoardActions,
  type BoardFlowNode,
  FocusPageContext,
  HighlightContext,
  IndexContext,
  JobsContext,
  ReadSoonContext,
  RemoteSelectionContext,
} from './board-context';
import { AddLinkDialog } from './canvas/ui/add-link-dialog';
import { BoardHeader } from './canvas/ui/board-header';
import { BoardToolbar } from './canvas/ui/board-toolbar';
import { useCardActionsValue } from './canvas/edits/card-actions';
import { freeCentre } from './canvas/edits/free-spot';
import { OwnerTools } from './canvas/ui/owner-tools';
import { defaultEdgeOptions, edgeTypes, minimapColor, nodeTypes } from './canvas/flow-types';
import { NoticeList, useNotices } from './canvas/ui/notices';
import { PopoverLayer, PopoverLayerProvider } from './canvas/ui/popover-layer';
import { PresenceAvatars, RemoteCursors } from './canvas/ui/presence-layer';
import { useBoardEdits } from './canvas/edits/use-board-edits';
import { useBoardGraph } from './canvas/use-board-graph';
import { useCanvasSelection } from './canvas/ui/use-canvas-selection';
import { EditBar } from './canvas/ui/edit-bar';
import { ShortcutsHelp } from './canvas/ui/shortcuts-help';
import { useEditingShortcuts } from './canvas/edits/use-editing-shortcuts';
import { useFileDrop } from './canvas/ui/use-file-drop';
import { useLiveBoard } from './canvas/sync/use-live-board';
import { useNodeFocus } from './canvas/ui/use-node-focus';
import type { Outbox } from './canvas/sync/outbox';
import { TextSync } from './canvas/sync/text-sync';
import { useLastSeen } from './canvas/sync/use-last-seen';
import { useOutboxSync } from './canvas/sync/use-outbox-sync';
import { useUrlPaste } from './canvas/ui/use-url-paste';
import { useSearchIndex } from './canvas/sync/use-search-index';
import { useAutoRead } from './canvas/sync/use-auto-read';
import { apiTypeOf } from './flow-mapping';
import { hasContent } from './nodes/node-frame';
import { useUploads } from './canvas/sync/use-uploads';
import { useVectorizeJobs } from './canvas/sync/use-vectorize-jobs';
import { useViewCentre, useViewportPersistence } from './canvas/ui/use-viewport';
import { useLiveDrags } from './canvas/sync/live-drags';
import { ChatPanel } from './chat-panel';
import { HistoryPanel } from './history-panel';
import { CommentsPanel } from './comments/comments-panel';
import { CardCommentActionsContext, CardCommentsContext } from './comments/comments-context';
import { PointPins } from './comments/comment-pins';
import { CommentIcon } from './icons';
import { CanvasCommentMenu, useBoardComments } from './comments/use-board-comments';
import { FocusPassageContext } from './citations';
import { ChunkIndex } from './chunk-index';
import { useCanvasDrag } from './canvas/layout/use-canvas-drag';
import { SnapGuides } from './canvas/layout/snap-guides';
import { FrameButton, useFrameTools } from './canvas/layout/frame-tools';
import { linkPoint } from './canvas/layout/link-spot';
import { useCulling } from './canvas/navigation/use-culling';
import { NAVIGATION_PROPS, useCanvasNavigation } from './canvas/navigation/use-canvas-navigation';
import { useFitViewOptions } from './canvas/navigation/fit-view';
import { useEdgeNames } from './canvas/navigation/use-edge-names';
import { withFarCards } from './canvas/navigation/far-cards';
import { FarLayer } from './canvas/navigation/far-layer';
import { fittedView, useOpeningView } from './canvas/navigation/opening-view';
import { CARD_DESCRIPTIONS, CardsEntry, useCardKeys } from './canvas/navigation/use-card-keys';
import { useUntouched } from './canvas/navigation/use-untouched';
import { useArrivals } from './canvas/sync/use-arrivals';
import type { ServerSync } from './canvas/sync/server-sync';
import type { BoardLoad } from './board-load';

const ZOOM_RANGE = { minZoom: 0.1, maxZoom: 4 };

/** The card components, drawn plain far out. */
const cardTypes = withFarCards(nodeTypes);

const MULTI_SELECT_KEYS = ['Shift', 'Meta', 'Control'];

/** The room a new note takes, for finding it a free spot. */
const NOTE_CARD = { width: 280, height: 160 };

export interface BoardCanvasProps {
  board: Board;
  initialNodes: BoardFlowNode[];
  initialEdges: Edge[];
  /** The owner may also upload files and keeps the viewport. */
  isOwner: boolean;
  /** Nodes and edges may change (owner, or a public board shared with edit access) as the page opened. */
  canEdit: boolean;
  /** The person's changes not yet confirmed by the service (restored from IndexedDB on load). */
  outbox: Outbox;
  /** The rest of the board as it arrives (board-load.ts); none when it was read whole. */
  arriving?: BoardLoad;
}

export function BoardCanvas({
  board: openedBoard,
  initialNodes,
  initialEdges,
  isOwner,
  canEdit: openedEditable,
  outbox,
  arriving,
}: BoardCanvasProps) {
  const boardId = openedBoard.id;
  const wrapper = useRef<HTMLDivElement>(null);
  const [chatOpen, setChatOpen] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  // Where the canvas's menus are drawn (canvas/ui/popover-layer.tsx), once it is on the page.
  const [popoverLayer, setPopoverLayer] = useState<HTMLDivElement | null>(null);
  const chunks = useMemo(() => new ChunkIndex(boardId), [boardId]);
  // Text typed into notes and not yet saved (from before a reload too) shows as typed.
  const text = useMemo(() => {
    const restored = new TextSync();
    for (const op of outbox.pendingOps()) if (op.op === 'text') restored.restore(op.id, op.text, op.base);
    return restored;
  }, [outbox]);
  const notices = useNotices();
  const { notify } = notices;
  const { nodes, edges, onNodesChange, onEdgesChange, graph } = useBoardGraph(initialNodes, initialEdges);
  const { realNodes, selectedNodes, selectedEdges, selectedNode, nodeLabel } = useCanvasSelection(nodes, edges);
  // The search index is asked again when a vectorize job completes (here or elsewhere).
  const refreshIndex = useRef<() => void>(undefined);
  const remoteOutcome = useRef<(nodeId: string, outcome: { failed: boolean; error?: string }) => void>(undefined);
  // A node made here is on the service: automatic reading may start (use-auto-read.ts).
  const nodeCreated = useRef<(nodeId: string) => void>(undefined);
  // Comments (comments/): the stream's comment events and each reconnection reach them through here.
  const commentEvents = useRef<{ receive(type: string, data: Record<string, unknown>): void; connected(): void }>(undefined);
  // The rest of the board as it arrives, put on the canvas through server-sync (canvas/sync/use-arrivals.ts);
  // a board opening fitted is fitted again to each batch until the person first acts.
  const untouched = useUntouched();
  const syncRef = useRef<ServerSync>(undefined);
  const refit = useRef<() => void>(undefined);
  const arrivals = useArrivals({
    arriving,
    outbox,
    apply: (batch) => syncRef.current?.loaded(batch.nodes, batch.edges),
    applied: () => refit.current?.(),
    notify,
  });
  const live = useLiveBoard({
    board: openedBoard,
    graph,
    tracker: outbox,
    text,
    selection: selectedNodes.map((n) => n.id),
    onConnected: () => {
      outbox.retryNow();
      commentEvents.current?.connected();
    },
    onComment: (type, data) => commentEvents.current?.receive(type, data),
    notify,
    ready: arrivals.ready,
    onDocument: (nodeId, outcome) => {
      refreshIndex.current?.();
      if (nodeId) remoteOutcome.current?.(nodeId, outcome);
    },
  });
  const { board, sync } = live;
  syncRef.current = sync;
  // What this person may do: the board's permissions, as the service answers them (its one rule),
  // read again when their role changes (canvas/sync/use-board-events.ts).
  const canUpload = !live.gone && (board.permissions?.upload ?? isOwner);
  // Someone else's drag in progress shows on the nodes (not saved here: canvas/sync/live-drags.ts).
  const shownNodes = useLiveDrags(live.presence.others, nodes);
  // Only the cards near the view are in the page; the zoom keys; edges named by their cards.
  const namedEdges = useEdgeNames(edges, nodes);
  const fitViewOptions = useFitViewOptions();
  const viewport = useViewportPersistence({ board: openedBoard, hasNodes: initialNodes.length > 0, untouched });
  const openingView = useOpeningView(viewport, initialNodes, fitViewOptions);
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const flowStore = useStoreApi<BoardFlowNode, Edge>();
  refit.current = () => {
    const { width, height } = flowStore.getState();
    if (!viewport.fitView || !untouched() || width === 0 || height === 0) return;
    void flow.setViewport(fittedView(graph.nodes(), fitViewOptions, { width, height }));
  };
  const culled = useCulling(shownNodes, namedEdges, wrapper, openingView);
  const navigation = useCanvasNavigation(fitViewOptions, wrapper, ZOOM_RANGE);
  // The keyboard goes through every card in reading order, at every zoom.
  const cardKeys = useCardKeys(wrapper, shownNodes, culled.bringIn);
  useDocumentTitle(board.name);
  // Sharing can change while the page is open; a deleted board (or one no longer shared) is read-only.
  // Someone editing only through the public `edit` flag loses it with the flag; a member has their
  // role's rights, live: a change of their role has the board read again, with its permissions.
  const throughPublicOnly = !isOwner && openedBoard.role == null;
  const canEdit =
    !live.gone &&
    (throughPublicOnly
      ? openedEditable && board.is_public && board.public_access_level === 'edit'
      : (board.permissions?.edit ?? openedEditable));
  const focus = useNodeFocus(graph, notify);
  const canComment = !live.gone && (board.permissions?.comment ?? openedBoard.permissions?.comment ?? false);
  const comments = useBoardComments({ boardId, canComment, wrapper, notify });
  commentEvents.current = { receive: comments.comments.receive, connected: comments.connected };
  const edits = useBoardEdits({ boardId, canEdit, graph, outbox, text, sync, notify, onNodesDeleted: focus.forgetNodes });
  useOutboxSync({
    boardId,
    outbox,
    text,
    graph,
    sync,
    history: edits.history,
    notify,
    onNodesDeleted: focus.forgetNodes,
    restoreDeleted: edits.restoreDeleted,
    onCreated: (nodeId) => nodeCreated.current?.(nodeId),
    accessLost: live.accessLost !== undefined,
  });
  useLastSeen(board, nodes, edges, isOwner, canEdit, { complete: arrivals.complete, gone: live.gone });
  const whenCreated = useCallback((nodeId: string) => outbox.whenSent(`create:${nodeId}`), [outbox]);
  const reads = useVectorizeJobs({
    boardId,
    graph,
    typedText: edits.typedText,
    flushNoteText: edits.flushNoteText,
    whenCreated,
    onCompleted: () => refreshIndex.current?.(),
  });
  const { jobs, startVectorize, dismissJob } = reads;
  remoteOutcome.current = reads.remoteOutcome;
  const searchIndex = useSearchIndex({ boardId, nodes });
  refreshIndex.current = () => void searchIndex.refresh();
  // What is added or typed here is read by itself while the board's auto_read is on.
  const autoRead = canEdit && board.auto_read !== false;
  const reading = useAutoRead({
    autoRead,
    nodeById: graph.nodeById,
    hasContent: (nodeId) => {
      const node = graph.nodeById(nodeId);
      return node !== undefined && hasContent(apiTypeOf(node.type) ?? '', node.data, edits.typedText(nodeId));
    },
    jobs,
    read: (nodeId) => void startVectorize(nodeId),
  });
  nodeCreated.current = reading.created;
  const { placeFiles, retryUpload, dismissUpload } = useUploads({ boardId, graph, notify, placeFileNode: edits.placeFileNode });
  const drop = useFileDrop({ wrapper, canUpload, notify, placeFiles });
  // Snapping, frames taking their cards along and cards joining frames (canvas/layout/).
  const drag = useCanvasDrag({ nodes, onNodesChange, outbox, edits, sync, moveDragging: live.presence.moveDragging });
  const frames = useFrameTools({ canEdit, graph, outbox, history: edits.history, selected: selectedNodes });
  const viewCentre = useViewCentre(wrapper);
  const cards = useCardActionsValue(canEdit, edits);
  // Links and videos go to the free spot nearest where they were asked for (canvas/layout/link-spot.ts).
  const shownRef = useRef(nodes);
  shownRef.current = nodes;
  const { addLink } = edits;
  const placeLink = useCallback((url: string, at: XYPosition) => addLink(url, linkPoint(shownRef.current, url, at)), [addLink]);
  const links = useUrlPaste({ canEdit, viewCentre, addLink: placeLink, notify });

  const shortcuts = useEditingShortcuts({
    boardId,
    canEdit,
    wrapper,
    nodes,
    edges,
    edits,
    selectAll: () => graph.select(realNodes.map((n) => n.id)),
    notify,
  });

  const { autoFocusId, autoFocusDone, remove } = edits;
  const { noteEdited } = reading;
  const saveNoteText = useCallback(
    (id: string, text: string) => {
      edits.saveNoteText(id, text);
      noteEdited(id);
    },
    [edits.saveNoteText, noteEdited],
  );
  const actions = useMemo<BoardActions>(
    () => ({
      boardId,
      canEdit,
      canVectorize: canEdit,
      canUpload,
      autoRead,
      tracker: outbox,
      text,
      autoFocusId,
      autoFocusDone,
      saveNoteText,
      vectorize: (id, options) => void startVectorize(id, options),
      dismissJob,
      remove: (id) => remove({ nodes: [id] }),
      chatAbout: (id) => {
        graph.selectOnly(id);
        setChatOpen(true);
      },
      retryUpload,
      dismissUpload,
    }),
    [
      boardId,
      canEdit,
      canUpload,
      autoRead,
      outbox,
      text,
      autoFocusId,
      autoFocusDone,
      saveNoteText,
      startVectorize,
      dismissJob,
      remove,
      graph,
      retryUpload,
      dismissUpload,
    ],
  );

  // Size, colour, titles and edge labels (canvas/card-actions.ts) ride along with the node actions.
  const nodeActions = useMemo(() => ({ ...actions, cards: cards.value }), [actions, cards.value]);

  const toolbar = (
    <BoardToolbar
      canUpload={canUpload}
      addingNote={edits.addingNote}
      onAddNote={() => void edits.addNote(freeCentre(nodes, viewCentre(), NOTE_CARD))}
      onAddLink={links.openDialog}
      onUpload={(files) => {
        const centre = viewCentre();
        placeFiles(files, { x: centre.x - 140, y: centre.y - 100 });
      }}
      canDelete={selectedNodes.length + selectedEdges.length > 0}
      onDelete={() => remove({ nodes: selectedNodes.map((n) => n.id), edges: selectedEdges.map((e) => e.id) })}
    />
  );

  const canvas = (
    <ActionsContext.Provider value={nodeActions}>
      <JobsContext.Provider value={jobs}>
        <HighlightContext.Provider value={focus.highlight}>
          <RemoteSelectionContext.Provider value={live.presence.remoteSelection}>
            <div className="bw-board">
              <BoardHeader
                board={board}
                isOwner={isOwner}
                canEdit={canEdit}
                toolbar={toolbar}
                chunks={chunks}
                nodeLabel={nodeLabel}
                onOpenNode={focus.focusNode}
                tracker={outbox}
                chatOpen={chatOpen}
                onToggleChat={() => setChatOpen(!chatOpen)}
                historyOpen={historyOpen}
                onToggleHistory={() => setHistoryOpen(!historyOpen)}
                commentsButton={
                  <button
                    type="button"
                    className="bw-button bw-comments-toggle"
                    aria-pressed={comments.open}
                    aria-label={comments.comments.unreadThreads > 0 ? `Comments, ${comments.comments.unreadThreads} unread` : 'Comments'}
                    title="Comments"
                    onClick={() => comments.setOpen(!comments.open)}
                  >
                    <CommentIcon size={16} />
                    {comments.comments.unreadThreads > 0 && <span className="bw-count-badge">{comments.comments.unreadThreads}</span>}
                  </button>
                }
                onExport={async () => {
                  try {
                    const { blob, fileName } = await exportCanvas(boardId, board.name);
                    saveBlob(blob, fileName);
                  } catch (error) {
                    notify((error as Error).message);
                  }
                }}
                ownerTools={<OwnerTools board={board} onSetDefaultView={viewport.setAsDefault} />}
                presence={
                  <>
                    {live.reconnecting && (
                      <span className="bw-badge" title="Changes by others will appear once the connection is back">
                        Reconnecting…
                      </span>
                    )}
                    <PresenceAvatars others={live.presence.others} />
                  </>
                }
              />
              <div className="bw-board__main">
                <div
                  className={`bw-canvas${drop.dropping ? ' is-dropping' : ''}`}
                  ref={wrapper}
                  onDragOver={(event) => {
                    drop.onDragOver(event);
                    links.onDragOver(event);
                  }}
                  onDragLeave={drop.onDragLeave}
                  onDrop={(event) => {
                    drop.onDrop(event);
                    links.onDrop(event);
                  }}
                  onPointerMove={(event) => {
                    live.onPointerMove(event);
                    comments.canvasHandlers.onPointerMove(event);
                  }}
                  onPointerDown={comments.canvasHandlers.onPointerDown}
                  onContextMenu={comments.canvasHandlers.onContextMenu}
                  onPointerLeave={live.onPointerLeave}
                  onDoubleClick={shortcuts.onDoubleClick}
                >
                  <CardsEntry keys={cardKeys} count={realNodes.length} />
                  <ReactFlow<BoardFlowNode, Edge>
                    nodes={culled.nodes}
                    edges={culled.edges}
                    className={navigation.className}
                    {...NAVIGATION_PROPS}
                    nodeTypes={cardTypes}
                    ariaLabelConfig={CARD_DESCRIPTIONS}
                    edgeTypes={edgeTypes}
                    onNodesChange={drag.onNodesChange}
                    onEdgesChange={onEdgesChange}
                    onBeforeDelete={edits.beforeDelete}
                    onConnect={canEdit ? edits.connect : undefined}
                    onConnectEnd={shortcuts.onConnectEnd}
                    onEdgeDoubleClick={cards.onEdgeDoubleClick}
                    onNodeDragStart={drag.onNodeDragStart}
                    onNodeDrag={drag.onNodeDrag}
                    onNodeDragStop={drag.onNodeDragStop}
                    onMoveEnd={viewport.onMoveEnd}
                    onPaneClick={focus.clearHighlight}
                    defaultViewport={openingView}
                    // A board whose view was never moved opens with its content in view instead.
                    fitView={viewport.fitView}
                    fitViewOptions={fitViewOptions}
                    minZoom={ZOOM_RANGE.minZoom}
                    maxZoom={ZOOM_RANGE.maxZoom}
                    nodesDraggable={canEdit}
                    nodesConnectable={canEdit}
                    // The only keys the canvas takes itself; React Flow handles them (through beforeDelete).
                    deleteKeyCode={canEdit ? ['Delete', 'Backspace'] : null}
                    defaultEdgeOptions={defaultEdgeOptions}
                    connectionRadius={30}
                    // As in tldraw and Excalidraw: dragging on empty canvas selects (a rectangle),
                    // space+drag, the middle or right button, the wheel, or touch pans; Shift (or Ctrl/Cmd) +
                    // click adds to the selection; a double-click makes a note (not a zoom).
                    selectionOnDrag
                    selectionMode={SelectionMode.Partial}
                    panOnDrag={[1, 2]}
                    selectionKeyCode={null}
                    multiSelectionKeyCode={MULTI_SELECT_KEYS}
                    zoomOnDoubleClick={false}
                  >
                    <Background variant={BackgroundVariant.Dots} gap={22} size={1.4} />
                    <FarLayer cards={culled.farCards} edges={edges} />
                    <Controls showInteractive={false} fitViewOptions={fitViewOptions} />
                    <MiniMap pannable zoomable style={{ width: 150, height: 100 }} nodeStrokeWidth={3} nodeColor={minimapColor} />
                    <RemoteCursors others={live.presence.others} />
                    <SnapGuides guides={drag.guides} />
                    <PointPins threads={comments.comments.threads} onOpen={(threadId) => comments.show({ kind: 'thread', threadId })} />
                    <EditBar
                      canEdit={canEdit}
                      canUndo={edits.canUndo}
                      canRedo={edits.canRedo}
                      canDuplicate={selectedNodes.length > 0}
                      onUndo={() => void edits.undo()}
                      onRedo={() => void edits.redo()}
                      onDuplicate={shortcuts.duplicate}
                      onShowShortcuts={shortcuts.openHelp}
                    >
                      <FrameButton disabled={selectedNodes.length === 0} onClick={frames.frameSelection} />
                    </EditBar>
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
                  {comments.menu && (
                    <CanvasCommentMenu
                      at={comments.menu}
                      onClose={comments.closeMenu}
                      onComment={(where) => comments.show({ kind: 'new', ...where })}
                    />
                  )}
                  {drop.dropping && <div className="bw-dropzone">Drop images, PDFs or documents to place them here</div>}
                </div>
                {chatOpen && (
                  <ChatPanel
                    boardId={boardId}
                    selectedNode={selectedNode}
                    nodeLabel={nodeLabel}
                    onOpenNode={focus.focusNode}
                    chunks={chunks}
                    selection={selectedNodes.map((n) => n.id)}
                    onOpenCitation={focus.focusCitation}
                    onAddToBoard={canEdit ? (text, nodeIds) => edits.addLinkedNote(text, nodeIds, viewCentre()) : undefined}
                    onClose={() => setChatOpen(false)}
                  />
                )}
                {comments.open && (
                  <CommentsPanel
                    boardId={boardId}
                    me={comments.me}
                    isOwner={isOwner}
                    canComment={canComment}
                    comments={comments.comments}
                    view={comments.view}
                    onView={comments.show}
                    candidates={comments.candidates}
                    nodeLabel={nodeLabel}
                    onOpenNode={focus.focusNode}
                    retrySignal={comments.retrySignal}
                    notify={notify}
                    onClose={() => comments.setOpen(false)}
                  />
                )}
                {historyOpen && (
                  <HistoryPanel
                    boardId={boardId}
                    nodes={realNodes}
                    canRestore={!live.gone && (board.permissions?.manage ?? isOwner)}
                    isOwner={isOwner}
                    notify={notify}
                    onClose={() => setHistoryOpen(false)}
                  />
                )}
              </div>
              <NoticeList notices={notices.list} onDismiss={notices.dismiss} />
              {shortcuts.helpOpen && <ShortcutsHelp onClose={shortcuts.closeHelp} />}
              {links.dialogOpen && <AddLinkDialog onAdd={(url) => placeLink(url, viewCentre())} onClose={links.closeDialog} />}
              <PopoverLayer layerRef={setPopoverLayer} />
            </div>
          </RemoteSelectionContext.Provider>
        </HighlightContext.Provider>
      </JobsContext.Provider>
    </ActionsContext.Provider>
  );
  // Removed from the board's members (or no longer shared): the board closes; what they had
  // waiting is refused by the service and each is listed here as not saved.
  if (live.accessLost) {
    return (
      <div className="bw-board bw-board--message">
        <div className="bw-message-card" role="alert">
          <h1>{live.accessLost}</h1>
          <p>The owner removed you from “{board.name}”, stopped sharing it with you, or deleted it.</p>
          <Link className="bw-button is-primary" href="/boards">
            Back to your boards
          </Link>
        </div>
        <NoticeList notices={notices.list} onDismiss={notices.dismiss} />
      </div>
    );
  }
  // The search index and a focused pdf page reach the node cards around the rest.
  return (
    <CardCommentsContext.Provider value={comments.comments.cards}>
      <CardCommentActionsContext.Provider value={comments.cardActions}>
        <IndexContext.Provider value={searchIndex.states}>
          <ReadSoonContext.Provider value={reading.soon}>
            <FocusPageContext.Provider value={focus.highlight === focus.highlightPage?.nodeId ? focus.highlightPage : undefined}>
              <FocusPassageContext.Provider value={focus.highlight === focus.passage?.nodeId ? focus.passage : undefined}>
                <PopoverLayerProvider value={popoverLayer}>{canvas}</PopoverLayerProvider>
              </FocusPassageContext.Provider>
            </FocusPageContext.Provider>
          </ReadSoonContext.Provider>
        </IndexContext.Provider>
      </CardCommentActionsContext.Provider>
    </CardCommentsContext.Provider>
  );
}
