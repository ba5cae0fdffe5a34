// Making a node searchable: starts its vectorize job and follows it until it completes or fails,
// keeping each node's job state for its card (JobsContext). Polling backs off to every 2 s, a few
// failed polls in a row end the watch with the reason, and it stops when the canvas goes away.
import { useCallback, useEffect, useRef, useState } from 'react';
import { getJob, type Job, vectorize } from '../../board-api';
import type { JobState } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { str } from '../../nodes/node-frame';
import type { CanvasGraph } from '../use-board-graph';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface VectorizeJobsOptions {
  boardId: string;
  graph: CanvasGraph;
  /** The note's text as typed on this page, if it was. */
  typedText(nodeId: string): string | undefined;
  /** Sends the note's waiting text save now. */
  flushNoteText(nodeId: string): Promise<void>;
  /** Told when a node's job completed (the index changed). */
  onCompleted?(nodeId: string): void;
}

export function useVectorizeJobs({ boardId, graph, typedText, flushNoteText, onCompleted }: VectorizeJobsOptions) {
  const completed = useRef(onCompleted);
  completed.current = onCompleted;
  const [jobs, setJobs] = useState<Record<string, JobState>>({});
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

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
    if (job.status === 'completed') completed.current?.(nodeId);
  }, []);

  const startVectorize = useCallback(
    async (nodeId: string) => {
      const node = graph.nodeById(nodeId);
      if (!node) return;
      const kind = apiTypeOf(node.type);
      const startedAt = Date.now();
      setJobs((all) => ({ ...all, [nodeId]: { status: 'starting', startedAt } }));
      try {
        // The text as typed: a waiting save goes first, so what is searched is what is stored.
        await flushNoteText(nodeId);
        let text: string | undefined;
        if (kind === 'note' || kind === 'document') {
          text = typedText(nodeId) ?? str(node.data.text);
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
    [boardId, graph, typedText, flushNoteText, pollJob],
  );

  const dismissJob = useCallback(
    (nodeId: string) =>
      setJobs((all) => {
        const { [nodeId]: _dropped, ...rest } = all;
        return rest;
      }),
    [],
  );

  return { jobs, startVectorize, dismissJob };
}
