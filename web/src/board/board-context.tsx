// What the canvas shares with its node components: the board's identity and rights, the save
// tracker, per-node job progress, the highlighted node, others' selections, and the actions a
// node's menu can start. Separate contexts, so a job tick, a highlight or someone else's selection
// re-renders nodes without rebuilding the actions.
import { createContext, useContext } from 'react';
import type { Outbox } from './canvas/sync/outbox';
import type { TextSync } from './canvas/sync/text-sync';

export type { BoardFlowNode } from './flow-node';

/** A node's reading (its vectorize job) as this page follows it (canvas/sync/use-vectorize-jobs.ts). */
export interface JobState {
  /** `waiting`: for a free slot, or for the service's Retry-After (a 429). */
  status: 'waiting' | 'starting' | 'processing' | 'completed' | 'failed';
  startedAt: number;
  error?: string;
  chunks?: number;
}

/** A node's search index as the service has it (canvas/sync/use-search-index.ts). */
export interface IndexState {
  chunks: number;
  /** When the node was last read (the index's `indexed_at`). */
  indexedAt: string;
  /** The index was made from other text than the node has now. */
  behind: boolean;
}

/** What a card and a connection can change about themselves (canvas/edits/card-actions.ts). */
type Point = { x: number; y: number };
/** A card's position before and after a resize from its left or top edge. */
export type PositionMove = { from: Point; to: Point };

export interface CardActions {
  canEdit: boolean;
  /** A card's new size, and where it was and is when the resize moved its left or top edge. */
  resizeNode(nodeId: string, size: { width: number; height: number }, move?: PositionMove): void;
  /** Sets keys of a node's data (null removes one). */
  updateNodeData(nodeId: string, patch: Record<string, unknown>): void;
  /** Sets keys of an edge's data (null removes one). */
  updateEdgeData(edgeId: string, patch: Record<string, unknown>): void;
  /** The edge whose label is being edited, if any. */
  editingEdge?: string;
  editEdgeLabel(edgeId: string | undefined): void;
}

export interface BoardActions {
  boardId: string;
  canEdit: boolean;
  /** Vectorizing writes chunks: the owner or a public `edit` board. */
  canVectorize: boolean;
  /** Files may be added (the owner): a video's transcript. */
  canUpload: boolean;
  /** The board reads what is added and edited here by itself (its `auto_read`, and this person may vectorize). */
  autoRead: boolean;
  /** The person's changes waiting to be saved (canvas/sync/outbox.ts). */
  tracker: Outbox;
  /** Notes' text as typed here while it waits (canvas/sync/text-sync.ts). */
  text: TextSync;
  /** The note whose text box takes focus when it appears (a note just added from the toolbar). */
  autoFocusId?: string;
  /** That note took the focus (or gave up trying): it does not take it again when it appears anew. */
  autoFocusDone(nodeId: string): void;
  /** Saves a note's text (shown at once, kept in the outbox until the service has it). */
  saveNoteText(nodeId: string, text: string): void;
  /** Reads the node now (its vectorize job): "Read", "Read again". */
  vectorize(nodeId: string, options?: { transcriptAssetId?: string }): void;
  dismissJob(nodeId: string): void;
  remove(nodeId: string): void;
  chatAbout(nodeId: string): void;
  retryUpload(tempId: string): void;
  dismissUpload(tempId: string): void;
  /** Size, colour, title and edge label changes (none on a read-only board). */
  cards?: CardActions;
}

export const ActionsContext = createContext<BoardActions | null>(null);
export const JobsContext = createContext<Record<string, JobState>>({});
/** Nodes whose automatic reading waits for the typing to settle (canvas/sync/use-auto-read.ts). */
export const ReadSoonContext = createContext<ReadonlySet<string>>(new Set());
/** Node id -> its search index, for the nodes that have one. */
export const IndexContext = createContext<Record<string, IndexState>>({});
/** The page a search hit or chat source named for a pdf node: its card opens the PDF there. */
export const FocusPageContext = createContext<{ nodeId: string; page: number } | undefined>(undefined);
export const HighlightContext = createContext<string | undefined>(undefined);
/** Node id -> the colour of someone else who has it selected (presence). */
export const RemoteSelectionContext = createContext<Record<string, string>>({});

export function useBoardActions(): BoardActions {
  const actions = useContext(ActionsContext);
  if (!actions) throw new Error('useBoardActions outside the board canvas');
  return actions;
}
