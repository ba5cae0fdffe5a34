// The fairness benchmark's light user (bench/fairness.ts), in a worker thread of its own: its
// reads are timed on an event loop that does nothing else, as another user's client on another
// machine would be, not on the one that also parses the heavy user's 50 MB answers.
//
// workerData: { url, token, boardId, nodeIds, paceMs }. Reads until the parent posts 'stop', then
// posts { 'one node': number[], 'page of 20 nodes': number[] } (milliseconds) and ends.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';

export const LIGHT_READS = ['one node', 'page of 20 nodes'] as const;
export type LightRead = (typeof LIGHT_READS)[number];

export interface LightReadsJob {
  url: string;
  token: string;
  boardId: string;
  nodeIds: string[];
  paceMs: number;
}

async function run(job: LightReadsJob): Promise<void> {
  let stopped = false;
  parentPort?.once('message', () => {
    stopped = true;
  });
  const times: Record<LightRead, number[]> = { 'one node': [], 'page of 20 nodes': [] };
  for (let i = 0; !stopped; i++) {
    const read = LIGHT_READS[i % 2] as LightRead;
    const path =
      read === 'one node'
        ? `/v1/boards/${job.boardId}/nodes/${job.nodeIds[(i >> 1) % job.nodeIds.length]}`
        : `/v1/boards/${job.boardId}/nodes?limit=20`;
    const started = performance.now();
    const res = await fetch(`${job.url}${path}`, { headers: { authorization: `Bearer ${job.token}` } });
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`the light read ${path} answered ${res.status}`);
    times[read].push(ms);
    if (ms < job.paceMs) await sleep(job.paceMs - ms);
  }
  parentPort?.postMessage(times);
}

if (parentPort) await run(workerData as LightReadsJob);
