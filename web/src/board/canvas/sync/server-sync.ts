// Between the service's state of the board (the event stream, a reload) and this person's own
// changes in flight. A node this person is dragging, or whose text, position or data save has not
// been answered yet, is "busy", and so is an edge whose data (label, colour) save has not: the
// service's newer states of it are kept here, not shown, so an echo of the person's own change (or
// an older change of someone else) never yanks it back mid-drag, nor becomes the base the person's
// next change (an undo right after a redo) is made on. When the item is no longer busy it shows the
// newest state known: the last state the stream brought after the echo of the person's last save,
// or that save's answer. The PATCH answer and the event carry the same resource, so the echo is
// recognised by its updated_at. Two people dragging one node therefore both end on the position
// saved last.
import type { Edge } from '@xyflow/react';
import type { EdgeRecord, NodeRecord } from '../../board-api';
import { toFlowEdge, toFlowNode } from '../../flow-mapping';
import type { BoardFlowNode } from '../../flow-node';
import type { TextSync } from './text-sync';
import type { CanvasGraph } from '../use-board-graph';

/** The person's changes waiting to be saved, by key (the outbox: sync/outbox.ts). */
export interface PendingSaves {
  subscribe(listener: () => void): () => void;
  isPending(key: string): boolean;
  /** Drops the waiting changes under `key` (their node was deleted). */
  cancel(key: string): void;
  /** A node or edge made here whose create the service has not confirmed. */
  isPendingCreate(id: string): boolean;
}

/** How long a saved node waits for its echo on the stream before showing the save's answer. */
const ECHO_WAIT_MS = 5_000;

/** Keys of a node's waiting changes (sync/operations.ts's keyOf). */
export const noteKey = (nodeId: string) => `note:${nodeId}`;
export const positionKey = (nodeId: string) => `position:${nodeId}`;
/** A node's data keys other than a note's text (size, colour, title). */
export const dataKey = (nodeId: string) => `data:${nodeId}`;
/** An edge's data (label, colour). */
export const edgeKey = (edgeId: string) => `edge:${edgeId}`;

const timeOf = (record: { updated_at: unknown }) => Date.parse(record.updated_at as string);

/**
 * The service's states of one kind of item (nodes, or edges) while this person's own change of an
 * item is in flight: held, not shown, until the item is no longer busy; then the newest known.
 */
class EchoHold<R extends { id: string; updated_at: unknown }> {
  /** The newest state the service sent of a busy item, not shown yet. */
  private readonly held = new Map<string, R>();
  /** updated_at of each state held for a busy item (to tell whether a save's echo came already). */
  private readonly seen = new Map<string, Set<number>>();
  /** The answer to the person's last save of a busy item. */
  private readonly answers = new Map<string, R>();
  /** Saved items whose echo has not come yet: stream states until then are older than the save. */
  private readonly awaiting = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    /** Whether this person's change of the item is waiting (in the outbox, or being made). */
    private readonly changing: (id: string) => boolean,
    private readonly show: (record: R) => void,
  ) {}

  busy(id: string): boolean {
    return this.awaiting.has(id) || this.changing(id);
  }

  /** The service answered one of the person's saves with `record`. */
  saved(record: R): void {
    const id = record.id;
    const at = timeOf(record);
    this.answers.set(id, record);
    const previous = this.awaiting.get(id);
    if (previous) clearTimeout(previous.timer);
    if (this.seen.get(id)?.has(at)) {
      this.awaiting.delete(id);
      return;
    }
    const timer = setTimeout(() => {
      this.awaiting.delete(id);
      this.settle(id);
    }, ECHO_WAIT_MS);
    this.awaiting.set(id, { at, timer });
  }

  /** The item as the service has it now (an event, or a reload). */
  state(record: R): void {
    const id = record.id;
    if (!this.busy(id)) {
      this.show(record);
      return;
    }
    const at = timeOf(record);
    this.held.set(id, record);
    const awaited = this.awaiting.get(id);
    if (awaited?.at === at) {
      clearTimeout(awaited.timer);
      this.awaiting.delete(id);
      this.settle(id);
      return;
    }
    const times = this.seen.get(id) ?? new Set<number>();
    times.add(at);
    this.seen.set(id, times);
  }

  /** Shows the newest known state of every item held that is no longer busy. */
  settleAll(): void {
    for (const id of new Set([...this.held.keys(), ...this.answers.keys()])) this.settle(id);
  }

  /** Shows the newest known state of an item that is no longer busy. */
  settle(id: string): void {
    if (this.busy(id)) return;
    const held = this.held.get(id);
    const answer = this.answers.get(id);
    this.forget(id);
    // Stream states come in commit order, so the one held last is the newest of them; the save's
    // answer wins only when nothing after its echo came (e.g. the stream is down).
    const newest = held && answer ? (timeOf(answer) > timeOf(held) ? answer : held) : (held ?? answer);
    if (newest) this.show(newest);
  }

  forget(id: string): void {
    this.held.delete(id);
    this.answers.delete(id);
    this.seen.delete(id);
    const awaited = this.awaiting.get(id);
    if (awaited) clearTimeout(awaited.timer);
    this.awaiting.delete(id);
  }

  stop(): void {
    for (const id of [...this.awaiting.keys()]) this.forget(id);
  }
}

export class ServerSync {
  private readonly dragging = new Set<string>();
  /** Nodes the service deleted: a late save answer or an older state must not bring them back. */
  private readonly deleted = new Set<string>();
  /** Edges deleted here or by the service: a reload that read them before must not bring them back. */
  private readonly deletedEdges = new Set<string>();
  private readonly nodes: EchoHold<NodeRecord>;
  private readonly edges: EchoHold<EdgeRecord>;

  constructor(
    private readonly graph: CanvasGraph,
    private readonly tracker: PendingSaves,
    /** Notes' text typed here: another person's text is merged into it (sync/text-sync.ts). */
    private readonly text?: TextSync,
  ) {
    this.nodes = new EchoHold<NodeRecord>(
      (id) =>
        this.dragging.has(id) || tracker.isPending(noteKey(id)) || tracker.isPending(positionKey(id)) || tracker.isPending(dataKey(id)),
      (record) => graph.applyNode(toFlowNode(record)),
    );
    this.edges = new EchoHold<EdgeRecord>(
      (id) => tracker.isPending(edgeKey(id)),
      (record) => graph.applyEdge(toFlowEdge(record) as Edge),
    );
  }

  /** Follows the save tracker while the canvas is shown; returns the function that stops it. */
  start(): () => void {
    // A save finishing (or failing, or being cancelled) may end an item's busy time.
    const unsubscribe = this.tracker.subscribe(() => {
      this.nodes.settleAll();
      this.edges.settleAll();
    });
    return () => {
      unsubscribe();
      this.nodes.stop();
      this.edges.stop();
    };
  }

  /** Whether the node is busy: the canvas holds this person's own state of it, not the service's. */
  isBusy(id: string): boolean {
    return this.nodes.busy(id);
  }

  /** A deletion made here was refused: the node and its edges are back, and follow the service again. */
  restored(nodeIds: string[], edgeIds: string[]): void {
    for (const id of nodeIds) this.deleted.delete(id);
    for (const id of edgeIds) this.deletedEdges.delete(id);
  }

  /** Made here and not yet on the service: a reload's lists lacking it do not mean it was deleted. */
  localOnly(id: string): boolean {
    return this.tracker.isPendingCreate(id);
  }

  /** The person started dragging these nodes. */
  dragStarted(ids: string[]): void {
    for (const id of ids) this.dragging.add(id);
  }

  /** The drag ended (its position save is already scheduled, so the nodes stay busy until it is answered). */
  dragEnded(ids: string[]): void {
    for (const id of ids) {
      this.dragging.delete(id);
      this.nodes.settle(id);
    }
  }

  /** The service answered one of the person's saves of a node with `record`. */
  saved(record: NodeRecord): void {
    if (!this.deleted.has(record.id)) this.nodes.saved(record);
  }

  /** The service answered one of the person's saves of an edge's data with `record`. */
  savedEdge(record: EdgeRecord): void {
    if (!this.deletedEdges.has(record.id)) this.edges.saved(record);
  }

  /** A node as the service has it now (an event, or a reload). */
  node(record: NodeRecord): void {
    if (this.deleted.has(record.id)) return;
    this.text?.remote(record);
    this.nodes.state(record);
  }

  /**
   * Nodes and edges of the board's first read that arrived after the canvas opened (use-arrivals.ts):
   * added only where the canvas has nothing under the id and the id was not deleted meanwhile, so
   * what is there (the person's change, a newer state from the stream) stays.
   */
  loaded(nodes: BoardFlowNode[], edges: Edge[]): void {
    this.graph.addAbsent(
      nodes.filter((n) => !this.deleted.has(n.id)),
      edges.filter((e) => !this.deletedEdges.has(e.id)),
    );
  }

  /** Nodes the service no longer has (deleted by someone, or missing after a reload). */
  nodesDeleted(ids: string[]): void {
    for (const id of ids) {
      this.deleted.add(id);
      this.nodes.forget(id);
      this.dragging.delete(id);
      this.tracker.cancel(noteKey(id));
      this.tracker.cancel(positionKey(id));
      this.tracker.cancel(dataKey(id));
      this.text?.forget(id);
    }
    this.graph.removeNodes(ids);
  }

  /** An edge as the service has it now (an event, or a reload). */
  edge(record: EdgeRecord): void {
    if (!this.deletedEdges.has(record.id)) this.edges.state(record);
  }

  edgeDeleted(id: string): void {
    this.deletedEdges.add(id);
    this.tracker.cancel(edgeKey(id));
    this.edges.forget(id);
    this.graph.removeEdge(id);
  }
}
