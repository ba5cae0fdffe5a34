// SciFact on a board, through the public API, as the search-quality and grounded-chat benchmarks
// use it: one note node per abstract (label = title, text = abstract), each vectorized by
// POST /v1/boards/{id}/documents with its node_id (the text: title, blank line, abstract), every
// document_process job waited for (a 429 of a full job queue is sent again a second later); and the
// map back from the service's chunks to abstracts.
import type { ApiClient } from './lib/api.js';
import { createBoard, runBounded } from './lib/api.js';
import { documentText, type Abstract } from './search-quality-data.js';

export interface ScifactBoard {
  boardId: string;
  /** Note node id to abstract id. */
  docOfNode: Map<string, string>;
  chunks: number;
  loadSeconds: number;
  /** The embedding model of the board's chunks (as GET /documents reports it). */
  model: string;
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  cursor: string | null;
}

/** Creates the board and loads every abstract (8 requests in flight), then waits for their jobs. */
export async function loadScifactBoard(api: ApiClient, corpus: Abstract[]): Promise<ScifactBoard> {
  const boardId = await createBoard(api, 'scifact');
  const docOfNode = new Map<string, string>();
  const started = performance.now();
  const jobIds = await runBounded(corpus.length, 8, async (i) => {
    const doc = corpus[i]!;
    const node = await api.call(
      'POST',
      `/v1/boards/${boardId}/nodes`,
      { type: 'note', position: { x: i, y: 0 }, data: { label: doc.title, text: doc.text } },
      201,
    );
    docOfNode.set(node.data.id, doc.id);
    // A full job queue (JOB_MAX_QUEUED_PER_USER) answers 429: wait a second and send it again.
    for (;;) {
      try {
        const job = await api.call('POST', `/v1/boards/${boardId}/documents`, { text: documentText(doc), node_id: node.data.id }, 202);
        return job.data.id as string;
      } catch (error) {
        if (!/got 429/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  });
  let chunks = 0;
  for (const id of jobIds) {
    for (;;) {
      const job = (await api.call('GET', `/v1/jobs/${id}`, undefined, 200)).data;
      if (job.status === 'completed') {
        chunks += job.result.chunks;
        break;
      }
      if (job.status === 'failed') throw new Error(`job ${id} failed: ${job.error}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const first = await api.call<Page<{ model: string }>>('GET', `/v1/boards/${boardId}/documents?limit=1`, undefined, 200);
  const model = first.data[0]?.model ?? 'none';
  console.log(`loaded ${corpus.length} abstracts as ${chunks} chunks in ${loadSeconds.toFixed(1)} s (embedding model ${model})`);
  return { boardId, docOfNode, chunks, loadSeconds, model };
}

/** The abstract a search hit or chunk belongs to, by its node; an unknown node is a bench error. */
export function abstractOfNode(board: ScifactBoard, nodeId: string | null): string {
  const doc = nodeId === null ? undefined : board.docOfNode.get(nodeId);
  if (doc === undefined) throw new Error(`chunk of an unknown node ${nodeId}`);
  return doc;
}

/** Chunk id to abstract id for every chunk on the board (GET /documents, 100 a page). */
export async function abstractOfChunks(api: ApiClient, board: ScifactBoard): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: Page<{ id: string; node_id: string | null }> = await api.call(
      'GET',
      `/v1/boards/${board.boardId}/documents?limit=100${query}`,
      undefined,
      200,
    );
    for (const chunk of page.data) out.set(chunk.id, abstractOfNode(board, chunk.node_id));
    cursor = page.has_more ? page.cursor : null;
  } while (cursor !== null);
  if (out.size !== board.chunks) throw new Error(`the board lists ${out.size} chunks, its jobs made ${board.chunks}`);
  return out;
}
