// Automatic reading (issue 29): while the board's `auto_read` is on, what this person adds is read
// (vectorized) once the service has it: a note with text, a document, a PDF, a link, a video (not
// an image: it has no text of its own to read). A note's text edited here is read again
// READ_AFTER_TYPING_MS after the typing stops, whether or not it was read before. Typing is never
// held up: the read waits for the text's save (use-vectorize-jobs.ts flushes it first) and runs
// beside the editing. One read per node at a time: an edit during a read is read once that ends.
// Nodes others add or edit are read by their own pages; nodes already on the board when it opens
// are not read here (their cards offer "Read").
import { useCallback, useEffect, useRef, useState } from 'react';
import type { BoardFlowNode, JobState } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';

/** How long after the last keystroke an edited note is read again. */
export const READ_AFTER_TYPING_MS = 2000;

/** The node types read when added: all but images. */
export const AUTO_READ_KINDS = new Set<string | undefined>(['note', 'document', 'pdf', 'url', 'video']);

export interface AutoReadOptions {
  /** The board's `auto_read`, and this person may vectorize. */
  autoRead: boolean;
  nodeById(nodeId: string): BoardFlowNode | undefined;
  /** The node has something to read (a note: its text as typed here, not blank). */
  hasContent(nodeId: string): boolean;
  jobs: Record<string, JobState>;
  read(nodeId: string): void;
}

export function useAutoRead(options: AutoReadOptions) {
  const latest = useRef(options);
  latest.current = options;
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  // Nodes whose read waits for the typing to settle (their cards say so).
  const [soon, setSoon] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const settle = useCallback((nodeId: string) => {
    timers.current.delete(nodeId);
    setSoon((all) => {
      if (!all.has(nodeId)) return all;
      const next = new Set(all);
      next.delete(nodeId);
      return next;
    });
  }, []);

  const schedule = useCallback(
    (nodeId: string, delayMs: number) => {
      if (!latest.current.autoRead) return;
      const run = () => {
        const { jobs, autoRead, nodeById, hasContent, read } = latest.current;
        const job = jobs[nodeId];
        // One read at a time per node: this one once the running one is done.
        if (job && job.status !== 'completed' && job.status !== 'failed') {
          timers.current.set(nodeId, setTimeout(run, READ_AFTER_TYPING_MS));
          return;
        }
        settle(nodeId);
        if (autoRead && nodeById(nodeId) && hasContent(nodeId)) read(nodeId);
      };
      if (delayMs > 0) setSoon((all) => (all.has(nodeId) ? all : new Set(all).add(nodeId)));
      clearTimeout(timers.current.get(nodeId));
      timers.current.set(nodeId, setTimeout(run, delayMs));
    },
    [settle],
  );

  /** A note's text was edited here: it is read once the typing settles. */
  const noteEdited = useCallback((nodeId: string) => schedule(nodeId, READ_AFTER_TYPING_MS), [schedule]);

  /** A node made here is on the service now: read it if it is of a kind read when added. */
  const created = useCallback(
    (nodeId: string) => {
      const node = latest.current.nodeById(nodeId);
      if (node && AUTO_READ_KINDS.has(apiTypeOf(node.type)) && !timers.current.has(nodeId)) schedule(nodeId, 0);
    },
    [schedule],
  );

  // Turned off: what waits is not read.
  useEffect(() => {
    if (options.autoRead) return;
    for (const [nodeId, timer] of timers.current) {
      clearTimeout(timer);
      settle(nodeId);
    }
  }, [options.autoRead, settle]);

  return { soon, noteEdited, created };
}
