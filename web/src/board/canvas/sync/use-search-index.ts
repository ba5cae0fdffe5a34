// What is searchable on the board, as the service says (GET …/documents/nodes: each vectorized
// node with the SHA-256 of the text indexed), so a card's "Searchable" survives a reload and says
// when its index is behind the text. A note this person edits that is searchable is vectorized
// again once the typing has settled (REINDEX_MS after the last edit, through the same job), so
// search keeps finding its new words. Others' re-indexing arrives as `document.completed` events.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { listNodeIndexes, type NodeIndex } from '../../board-api';
import type { BoardFlowNode, IndexState, JobState } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { str } from '../../nodes/node-frame';

/** How long after the last edit a searchable note is vectorized again. */
export const REINDEX_MS = 2000;

/** Hex SHA-256 of the UTF-8 text; undefined where the browser has no Web Crypto (not a secure origin). */
async function sha256(text: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const TEXT_KINDS = new Set<string | undefined>(['note', 'document']);

export interface SearchIndexOptions {
  boardId: string;
  nodes: BoardFlowNode[];
  /** This person may vectorize (re-indexing after their own edits). */
  canVectorize: boolean;
  jobs: Record<string, JobState>;
  startVectorize(nodeId: string): void;
}

export function useSearchIndex({ boardId, nodes, canVectorize, jobs, startVectorize }: SearchIndexOptions) {
  const [indexes, setIndexes] = useState<Map<string, NodeIndex>>(new Map());
  // The hash of each indexed node's saved text, with the text it was computed from.
  const [hashes, setHashes] = useState<Record<string, { text: string; hash?: string }>>({});
  // Notes edited here whose re-indexing is waiting for the typing to settle.
  const [waiting, setWaiting] = useState<Set<string>>(new Set());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const latest = useRef({ indexes, jobs, startVectorize, canVectorize });
  latest.current = { indexes, jobs, startVectorize, canVectorize };

  const refresh = useCallback(async () => {
    try {
      const list = await listNodeIndexes(boardId);
      setIndexes(new Map(list.map((index) => [index.node_id, index])));
    } catch {
      // The badges stay as they were; the next completed job asks again.
    }
  }, [boardId]);

  useEffect(() => {
    void refresh();
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, [refresh]);

  // Hash the saved text of indexed notes and documents whenever it changes.
  useEffect(() => {
    for (const node of nodes) {
      if (!indexes.has(node.id) || !TEXT_KINDS.has(apiTypeOf(node.type))) continue;
      const text = str(node.data.text);
      if (hashes[node.id]?.text === text) continue;
      void sha256(text).then((hash) =>
        setHashes((all) => (all[node.id]?.text === text && all[node.id]?.hash === hash ? all : { ...all, [node.id]: { text, hash } })),
      );
    }
  }, [nodes, indexes, hashes]);

  /** A note's text was edited here: once the typing settles, its index (if it has one) is redone. */
  const noteEdited = useCallback((nodeId: string) => {
    const { canVectorize, indexes, jobs } = latest.current;
    // Indexed, or being made searchable right now (typing goes on while the first job runs).
    const job = jobs[nodeId];
    const searchable = indexes.has(nodeId) || (job !== undefined && job.status !== 'failed');
    if (!canVectorize || !searchable) return;
    setWaiting((all) => (all.has(nodeId) ? all : new Set(all).add(nodeId)));
    const run = () => {
      const running = latest.current.jobs[nodeId];
      // One job at a time per node: try again once the running one is done.
      if (running && (running.status === 'starting' || running.status === 'processing')) {
        timers.current.set(nodeId, setTimeout(run, REINDEX_MS));
        return;
      }
      timers.current.delete(nodeId);
      setWaiting((all) => {
        const next = new Set(all);
        next.delete(nodeId);
        return next;
      });
      latest.current.startVectorize(nodeId);
    };
    clearTimeout(timers.current.get(nodeId));
    timers.current.set(nodeId, setTimeout(run, REINDEX_MS));
  }, []);

  const states = useMemo(() => {
    const out: Record<string, IndexState> = {};
    for (const [id, index] of indexes) {
      const saved = hashes[id];
      const behind = waiting.has(id) || (index.text_sha256 !== null && saved?.hash !== undefined && saved.hash !== index.text_sha256);
      out[id] = { chunks: index.chunks, behind };
    }
    return out;
  }, [indexes, hashes, waiting]);

  return { states, refresh, noteEdited };
}
