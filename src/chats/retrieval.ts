// Retrieval of document chunks for a question, through the board's semantic search (the same
// search as the documents endpoint). A failing embedder costs the reply its chunks, never the reply.
import type { Db } from '../db/schema.js';
import { searchBoardChunks } from '../documents/search-service.js';
import type { Embedder } from '../providers/embeddings/embedder.js';

export interface RetrievedChunk {
  id: string;
  content: string;
  node_id: string | null;
  source: string;
  score: number;
  /** The chunk's stored metadata (char_start, page, start_seconds… when present), for its citation. */
  metadata: Record<string, unknown>;
}

export type RetrievalStatus = 'ok' | 'unavailable';

export interface Retriever {
  search(boardId: string, query: string, options: { limit: number; nodeIds?: string[] }): Promise<RetrievedChunk[]>;
}

export function boardRetriever(db: Db, embedder: Embedder): Retriever {
  return {
    async search(boardId, query, options) {
      // (buildContext skips retrieval on a board without chunks, so the question is never embedded there.)
      // `vector`: with the local model it ranked best of the three modes on SciFact (BENCHMARKS.md).
      const hits = await searchBoardChunks({ db, embedder }, boardId, query, {
        mode: 'vector',
        limit: options.limit,
        nodeIds: options.nodeIds,
      });
      return hits.map((h) => ({
        id: h.id,
        content: h.content,
        node_id: h.node_id,
        source: h.metadata.source,
        score: h.score,
        metadata: h.metadata,
      }));
    },
  };
}

/**
 * Best chunks for the question, the chat's node's own chunks first; with `scope` (the nodes a chat
 * or a message is limited to), only chunks of those nodes. Never throws.
 */
export async function retrieve(
  retriever: Retriever,
  boardId: string,
  question: string,
  nodeId: string | null,
  limit: number,
  scope?: string[],
): Promise<{ chunks: RetrievedChunk[]; status: RetrievalStatus }> {
  const query = question.slice(0, 2000);
  try {
    const own =
      nodeId && (!scope || scope.includes(nodeId))
        ? await retriever.search(boardId, query, { limit: Math.ceil(limit / 2), nodeIds: [nodeId] })
        : [];
    const all = await retriever.search(boardId, query, { limit, nodeIds: scope });
    const seen = new Set<string>();
    const chunks = [...own, ...all].filter((c) => !seen.has(c.id) && seen.add(c.id)).slice(0, limit);
    return { chunks, status: 'ok' };
  } catch {
    return { chunks: [], status: 'unavailable' };
  }
}
