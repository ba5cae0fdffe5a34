// A board read as it arrives (issue 30), so a board of thousands of cards shows its first cards while
// the rest is still on the way. The owner's `GET /v1/boards/{id}` carries the nodes and edges in its
// flow_state, which the service streams a page of rows per statement (src/boards/board-service.ts,
// readJson): the answer is parsed as it is read (@streamparser/json, a streaming JSON parser), and
// each network chunk's nodes are handed on as one batch. Anyone else gets the board's record alone and
// reads its nodes and edges in pages (`GET …/nodes`, `GET …/edges`), each page a batch.
//
// `first` resolves once the canvas can be shown: the board's record and its first nodes (all of a
// small board, which arrives in one chunk); it rejects when the board cannot be read at all (the page
// then offers the copy last seen on this device). What arrives later reaches `follow`'s listener; a
// read that fails half-way ends `done` with false (the event stream's reload then reads the board
// again: canvas/sync/use-board-events.ts).
import { JSONParser } from '@streamparser/json';
import type { Edge } from '@xyflow/react';
import { authorizedFetch } from '../api';
import { ApiError, answerFields } from '../lib/api-error';
import { failureMessage } from '../lib/request';
import { type Board, type FlowState, listAllEdges, listAllNodes } from './board-api';
import type { BoardFlowNode } from './flow-node';
import { fromFlowState, fromFlowStateEdge, toFlowEdge, toFlowNode } from './flow-mapping';

/** Marks of the opening's steps in the page's Performance timeline (bench/canvas.ts reads them). */
export const MARKS = {
  request: 'bw:board-request',
  firstCards: 'bw:board-first-cards',
  read: 'bw:board-read',
  outbox: 'bw:outbox-open',
} as const;

export interface BoardBatch {
  nodes: BoardFlowNode[];
  edges: Edge[];
}

export interface FirstPart extends BoardBatch {
  board: Board;
  /** Everything has been read already. */
  complete: boolean;
}

type Listener = (batch: BoardBatch) => void;

const FALLBACK = 'Could not load the board';

export class BoardLoad {
  /** Every node and edge read so far. */
  readonly nodes: BoardFlowNode[] = [];
  readonly edges: Edge[] = [];
  board?: Board;
  /** True once everything is read; false after a failure half-way. */
  readonly done: Promise<boolean>;
  readonly first: Promise<FirstPart>;
  complete = false;
  /** Read after `first` and not yet handed to a listener. */
  private waiting: BoardBatch = { nodes: [], edges: [] };
  private listener?: Listener;
  private shown = false;
  private showFirst!: (part: FirstPart) => void;
  private failFirst!: (error: unknown) => void;
  private readonly controller = new AbortController();

  constructor(private readonly boardId: string) {
    this.first = new Promise<FirstPart>((resolve, reject) => {
      this.showFirst = resolve;
      this.failFirst = reject;
    });
    // A failure before the canvas shows is `first`'s; one after it ends `done` with false.
    this.first.catch(() => undefined);
    this.done = this.read().then(
      () => {
        this.complete = true;
        performance.mark(MARKS.read);
        this.open(true);
        return true;
      },
      (error: unknown) => {
        if (!this.shown) this.failFirst(error);
        return false;
      },
    );
  }

  /** Hands what arrives after `first` to `listener`: what waits at once, then each batch as it comes. */
  follow(listener: Listener): () => void {
    this.listener = listener;
    this.flush();
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }

  /** The page is gone: the read stops. */
  cancel(): void {
    this.controller.abort();
  }

  private add(nodes: BoardFlowNode[], edges: Edge[]): void {
    if (nodes.length === 0 && edges.length === 0) return;
    this.nodes.push(...nodes);
    this.edges.push(...edges);
    if (!this.shown) {
      if (nodes.length > 0) this.open(false);
      return;
    }
    this.waiting.nodes.push(...nodes);
    this.waiting.edges.push(...edges);
    this.flush();
  }

  private flush(): void {
    if (!this.listener || (this.waiting.nodes.length === 0 && this.waiting.edges.length === 0)) return;
    const batch = this.waiting;
    this.waiting = { nodes: [], edges: [] };
    this.listener(batch);
  }

  /** The canvas can be shown: the board's record and what arrived until now. */
  private open(complete: boolean): void {
    if (this.shown || !this.board) return;
    this.shown = true;
    performance.mark(MARKS.firstCards);
    this.showFirst({ board: this.board, nodes: [...this.nodes], edges: [...this.edges], complete });
  }

  private async read(): Promise<void> {
    performance.mark(MARKS.request);
    const { signal } = this.controller;
    let response: Response;
    try {
      response = await authorizedFetch(`/v1/boards/${encodeURIComponent(this.boardId)}`, {
        headers: { accept: 'application/json' },
        signal,
      });
    } catch (error) {
      throw new ApiError(`${FALLBACK}: the service could not be reached (${(error as Error).message})`);
    }
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => undefined);
      throw new ApiError(failureMessage(response.status, body, FALLBACK), answerFields(response, body));
    }
    const hasFlowState = await this.parse(response.body);
    if (hasFlowState) return;
    // Not the owner: the record alone; the nodes and edges by pages, each page shown as it comes
    // (the canvas with the first page, so a board that opens fitted is fitted to its cards).
    await listAllNodes(this.boardId, (page) => this.add(page.map(toFlowNode), []));
    this.add([], (await listAllEdges(this.boardId)).map(toFlowEdge));
  }

  /** Reads the answer as it arrives; whether it carried flow_state (the owner's read). */
  private async parse(body: ReadableStream<Uint8Array>): Promise<boolean> {
    const record: Record<string, unknown> = {};
    let inFlowState = false;
    let nodes: BoardFlowNode[] = [];
    let edges: Edge[] = [];
    // The service writes flow_state after the record's fields: once in it, the record is whole.
    const parser = new JSONParser({
      paths: ['$.data.*', '$.data.flow_state.viewMode', '$.data.flow_state.nodes.*', '$.data.flow_state.edges.*'],
      keepStack: false,
    });
    parser.onValue = ({ value, key, parent, stack }) => {
      if (stack.length === 2) {
        if (key !== 'flow_state') record[key as string] = value;
        return;
      }
      if (!inFlowState) {
        inFlowState = true;
        this.board = record as unknown as Board;
      }
      if (stack.length !== 4) return;
      // Taken out of the array being built (flow_state is emitted whole at its end: without them).
      (parent as unknown[]).pop();
      if (stack[3]?.key === 'nodes') nodes.push(fromFlowState(value as unknown as FlowState['nodes'][number]));
      else edges.push(fromFlowStateEdge(value as unknown as FlowState['edges'][number]));
    };
    const reader = body.getReader();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw new ApiError(`${FALLBACK}: the connection was lost (${(error as Error).message})`);
        }
        if (chunk.done) break;
        try {
          parser.write(chunk.value);
        } catch (error) {
          throw new ApiError(`${FALLBACK}: the answer was not readable (${(error as Error).message})`);
        }
        this.add(nodes, edges);
        nodes = [];
        edges = [];
      }
    } finally {
      reader.releaseLock();
    }
    if (!parser.isEnded) throw new ApiError(`${FALLBACK}: the answer ended early`);
    this.board ??= record as unknown as Board;
    return inFlowState;
  }
}
