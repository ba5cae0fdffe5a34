// Reading a node: starts its vectorize job and follows it until it completes or fails, keeping
// each node's reading state for its card (JobsContext). A few reads run at once (the others wait
// for a slot), a 429 waits for the service's Retry-After and asks again, polling backs off to every
// 2 s, a few failed polls in a row end the watch with the reason, and it stops when the canvas
// goes away. The job of a read still running or failed is remembered in this browser
// (localStorage, per board), so after a reload the card still says it is being read, or why it
// failed. Others' reads end as `document.completed`/`document.failed` events (remoteOutcome).
import { useCallback, useEffect, useRef, useState } from 'react';
import { getJob, type Job, vectorize } from '../../board-api';
import type { JobState } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { str } from '../../nodes/node-frame';
import { ApiError } from '../../../lib/api-error';
import type { CanvasGraph } from '../use-board-graph';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads started at once by this page; more wait for one to end (a board opened with many unread nodes). */
const READS_AT_ONCE = 3;
/** The pause before asking again after a 429 without Retry-After. */
const BUSY_RETRY_MS = 5_000;

/** node id -> the id of its read's job, while it runs or after it failed (this browser, per board). */
type RememberedJobs = Record<string, string>;
const storageKey = (boardId: string) => `bw-reads:${boardId}`;

function remembered(boardId: string): RememberedJobs {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(boardId)) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as RememberedJobs) : {};
  } catch {
    return {};
  }
}

function remember(boardId: string, nodeId: string, jobId: string | undefined): void {
  try {
    const all = remembered(boardId);
    if (jobId === undefined) delete all[nodeId];
    else all[nodeId] = jobId;
    if (Object.keys(all).length === 0) localStorage.removeItem(storageKey(boardId));
    else localStorage.setItem(storageKey(boardId), JSON.stringify(all));
  } catch {
    // Storage full or denied: the card shows the state while the page is open.
  }
}

export interface VectorizeJobsOptions {
  boardId: string;
  graph: CanvasGraph;
  /** The note's text as typed on this page, if it was. */
  typedText(nodeId: string): string | undefined;
  /** Sends the note's waiting text save now. */
  flushNoteText(nodeId: string): Promise<void>;
  /** Resolves once the service has the node (a create made here may still wait in the outbox). */
  whenCreated(nodeId: string): Promise<void>;
  /** Told when a node's job completed (the index changed). */
  onCompleted?(nodeId: string): void;
}

export interface ReadOptions {
  /** A video's transcript: an asset of this board (.vtt or .srt). */
  transcriptAssetId?: string;
}

export function useVectorizeJobs({ boardId, graph, typedText, flushNoteText, whenCreated, onCompleted }: VectorizeJobsOptions) {
  const completed = useRef(onCompleted);
  completed.current = onCompleted;
  const [jobs, setJobs] = useState<Record<string, JobState>>({});
  const alive = useRef(true);
  const running = useRef(0);
  const slotWaiters = useRef<(() => void)[]>([]);

  const setJob = useCallback((nodeId: string, state: JobState | ((previous: JobState | undefined) => JobState)) => {
    setJobs((all) => ({ ...all, [nodeId]: typeof state === 'function' ? state(all[nodeId]) : state }));
  }, []);

  const takeSlot = useCallback(async () => {
    while (running.current >= READS_AT_ONCE) await new Promise<void>((resolve) => slotWaiters.current.push(resolve));
    running.current++;
  }, []);
  const freeSlot = useCallback(() => {
    running.current--;
    slotWaiters.current.shift()?.();
  }, []);

  const pollJob = useCallback(
    async (nodeId: string, first: Job, startedAt: number) => {
      let job = first;
      let failures = 0;
      let delay = 400;
      while (job.status === 'processing' && alive.current) {
        setJob(nodeId, (previous) => ({ ...previous, startedAt: previous?.startedAt ?? startedAt, status: 'processing' }));
        await sleep(delay);
        delay = Math.min(delay * 1.5, 2000);
        try {
          job = await getJob(job.id);
          failures = 0;
        } catch (error) {
          // The job is gone (a deleted board's, or this browser's memory is of another account).
          if (error instanceof ApiError && error.status === 404) {
            remember(boardId, nodeId, undefined);
            setJobs(({ [nodeId]: _gone, ...rest }) => rest);
            return;
          }
          // A blip should not lose the job; several failures in a row end the watch with the reason.
          if (++failures >= 5) {
            setJob(nodeId, { startedAt, status: 'failed', error: `lost track of it (${(error as Error).message})` });
            return;
          }
        }
      }
      if (!alive.current) return;
      const chunkCount = typeof job.result?.chunks === 'number' ? job.result.chunks : undefined;
      remember(boardId, nodeId, job.status === 'failed' ? job.id : undefined);
      setJob(
        nodeId,
        job.status === 'completed'
          ? { startedAt, status: 'completed', chunks: chunkCount }
          : { startedAt, status: 'failed', error: job.error ?? 'the job failed' },
      );
      if (job.status === 'completed') completed.current?.(nodeId);
    },
    [boardId, setJob],
  );

  // Reads this browser started before a reload: still running (followed again) or failed (the reason shown).
  useEffect(() => {
    alive.current = true;
    for (const [nodeId, jobId] of Object.entries(remembered(boardId))) {
      // A node deleted since needs no word about its read.
      if (!graph.nodeById(nodeId)) {
        remember(boardId, nodeId, undefined);
        continue;
      }
      void getJob(jobId).then(
        (job) => {
          if (!alive.current) return;
          if (job.status === 'completed') {
            remember(boardId, nodeId, undefined);
            return;
          }
          void pollJob(nodeId, job, Date.parse(job.created_at));
        },
        (error) => {
          if (error instanceof ApiError && error.status === 404) remember(boardId, nodeId, undefined);
        },
      );
    }
    return () => {
      alive.current = false;
    };
  }, [boardId, graph, pollJob]);

  const startVectorize = useCallback(
    async (nodeId: string, options: ReadOptions = {}) => {
      const startedAt = Date.now();
      setJob(nodeId, { status: 'waiting', startedAt });
      await takeSlot();
      try {
        for (;;) {
          if (!alive.current) return;
          const node = graph.nodeById(nodeId);
          if (!node) {
            setJobs(({ [nodeId]: _gone, ...rest }) => rest);
            return;
          }
          const kind = apiTypeOf(node.type);
          setJob(nodeId, { status: 'starting', startedAt });
          try {
            // The node and its text as typed: waiting saves go first, so what is read is what is stored.
            await whenCreated(nodeId);
            await flushNoteText(nodeId);
            let text: string | undefined;
            if (kind === 'note' || kind === 'document') {
              text = typedText(nodeId) ?? str(node.data.text);
              // A document made from an uploaded file is read from its file by the service.
              if (kind === 'document' && !text.trim() && node.data.storagePath) text = undefined;
              else if (!text.trim()) {
                setJob(nodeId, { status: 'failed', startedAt, error: 'there is no text yet' });
                return;
              }
            }
            const transcript = options.transcriptAssetId ?? (kind === 'video' ? str(node.data.transcript_asset_id) : '');
            const job = await vectorize(boardId, {
              node_id: nodeId,
              ...(text !== undefined ? { text } : {}),
              ...(transcript ? { transcript_asset_id: transcript } : {}),
            });
            remember(boardId, nodeId, job.id);
            await pollJob(nodeId, job, startedAt);
            return;
          } catch (error) {
            // Too many jobs at once for this person: wait as the service says, then ask again.
            if (error instanceof ApiError && (error.status === 429 || error.unreachable)) {
              setJob(nodeId, { status: 'waiting', startedAt });
              await sleep(error.retryAfterMs ?? BUSY_RETRY_MS);
              continue;
            }
            setJob(nodeId, { status: 'failed', startedAt, error: (error as Error).message });
            return;
          }
        }
      } finally {
        freeSlot();
      }
    },
    [boardId, graph, typedText, flushNoteText, whenCreated, pollJob, setJob, takeSlot, freeSlot],
  );

  const dismissJob = useCallback(
    (nodeId: string) => {
      remember(boardId, nodeId, undefined);
      setJobs(({ [nodeId]: _dropped, ...rest }) => rest);
    },
    [boardId],
  );

  /** Someone's read of the node ended (a `document.completed`/`document.failed` event). */
  const remoteOutcome = useCallback((nodeId: string, outcome: { failed: boolean; error?: string }) => {
    setJobs((all) => {
      const mine = all[nodeId];
      // A read of this page's is followed by its own poll.
      if (mine && mine.status !== 'completed' && mine.status !== 'failed') return all;
      if (!outcome.failed) {
        if (mine?.status !== 'failed') return all;
        const { [nodeId]: _settled, ...rest } = all;
        return rest;
      }
      return { ...all, [nodeId]: { status: 'failed', startedAt: Date.now(), error: outcome.error ?? 'the job failed' } };
    });
  }, []);

  return { jobs, startVectorize, dismissJob, remoteOutcome };
}
