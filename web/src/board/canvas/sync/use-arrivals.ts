// The rest of the board arriving after the canvas opened with its first cards (board-load.ts, issue
// 30). Batches are put on the canvas at most every FLUSH_MS (each is a render of the canvas), through
// server-sync.ts's `loaded`: a node or edge is added only when the canvas has nothing under its id and
// it was not deleted meanwhile, so what the person did before the last batch came (a drag, an edit, a
// deletion, a note of their own that the read also found) and a newer state from the event stream
// always stay. The person's waiting edits from before a reload (the outbox) are put on each batch as
// on the first part (operations.ts's withPending). `ready` resolves once the last batch is on the
// canvas (or the read failed half-way): the event stream's first reload waits for it
// (use-board-events.ts), so it compares the service's lists with the whole board.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { BoardBatch, BoardLoad } from '../../board-load';
import { withPending } from './operations';
import type { Outbox } from './outbox';

/** Batches arriving within this time are put on the canvas together. */
const FLUSH_MS = 100;

export interface ArrivalsOptions {
  arriving?: BoardLoad;
  outbox: Outbox;
  /** Puts the batch on the canvas (server-sync.ts's `loaded`). */
  apply(batch: BoardBatch): void;
  /** A batch is on the canvas, after the render that holds it (a board opening fitted is fitted again). */
  applied?(): void;
  notify(message: string): void;
}

export interface Arrivals {
  /** Everything is read and on the canvas (also: nothing was left to arrive). */
  complete: boolean;
  /** The board is still arriving. */
  arriving(): boolean;
  /** Resolves once the read has ended and its last batch is on the canvas. */
  ready: Promise<void>;
}

export function useArrivals({ arriving, outbox, apply, applied, notify }: ArrivalsOptions): Arrivals {
  const [settled, setSettled] = useState<'complete' | 'failed' | undefined>(arriving ? undefined : 'complete');
  const [batches, setBatches] = useState(0);
  const latest = useRef({ apply, applied, notify });
  latest.current = { apply, applied, notify };
  const signal = useMemo(() => {
    let resolve!: () => void;
    const ready = new Promise<void>((r) => {
      resolve = r;
    });
    return { ready, resolve };
  }, []);

  useEffect(() => {
    // Also when the read ended between the first part and this effect: what waits is put on, then settled.
    if (!arriving) return;
    let waiting: BoardBatch[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (waiting.length === 0) return;
      const nodes = waiting.flatMap((b) => b.nodes);
      const edges = waiting.flatMap((b) => b.edges);
      waiting = [];
      // The outbox's waiting edits of these nodes and edges (its creates are on the canvas already).
      const ids = new Set([...nodes.map((n) => n.id), ...edges.map((e) => e.id)]);
      const pending = withPending(nodes, edges, outbox.pendingOps());
      latest.current.apply({ nodes: pending.nodes.filter((n) => ids.has(n.id)), edges: pending.edges.filter((e) => ids.has(e.id)) });
      setBatches((n) => n + 1);
    };
    const stop = arriving.follow((batch) => {
      waiting.push(batch);
      timer ??= setTimeout(flush, FLUSH_MS);
    });
    let live = true;
    void arriving.done.then((read) => {
      if (!live) return;
      flush();
      if (!read) latest.current.notify('Part of the board could not be loaded; it is being read again.');
      setSettled(read ? 'complete' : 'failed');
    });
    return () => {
      live = false;
      stop();
      flush();
    };
  }, [arriving, outbox]);

  // After the render that holds a batch.
  useEffect(() => {
    if (batches > 0) latest.current.applied?.();
  }, [batches]);

  // After the render that holds the last batch: the graph's nodes are the whole board.
  useEffect(() => {
    if (settled) signal.resolve();
  }, [settled, signal]);

  const isArriving = useCallback(() => settled === undefined, [settled]);
  return { complete: settled === 'complete', arriving: isArriving, ready: signal.ready };
}
