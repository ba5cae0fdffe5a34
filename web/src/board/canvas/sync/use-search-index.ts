// What is searchable on the board, as the service says (GET …/documents/nodes: each vectorized
// node with when it was read and the SHA-256 of the text indexed), so a card's "Searchable"
// survives a reload, says when the node was read, and says when its index is behind the text.
// Reads that end elsewhere arrive as `document.completed` events, which ask again (refresh).
import { useCallback, useEffect, useMemo, useState } from 'react';
import { listNodeIndexes, type NodeIndex } from '../../board-api';
import type { BoardFlowNode, IndexState } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { str } from '../../nodes/node-frame';

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
}

export function useSearchIndex({ boardId, nodes }: SearchIndexOptions) {
  const [indexes, setIndexes] = useState<Map<string, NodeIndex>>(new Map());
  /** The first answer has come (until then no node is known to be unread). */
  const [loaded, setLoaded] = useState(false);
  // The hash of each indexed node's saved text, with the text it was computed from.
  const [hashes, setHashes] = useState<Record<string, { text: string; hash?: string }>>({});

  const refresh = useCallback(async () => {
    try {
      const list = await listNodeIndexes(boardId);
      setIndexes(new Map(list.map((index) => [index.node_id, index])));
      setLoaded(true);
    } catch {
      // The badges stay as they were; the next completed job asks again.
    }
  }, [boardId]);

  useEffect(() => {
    void refresh();
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

  const states = useMemo(() => {
    const out: Record<string, IndexState> = {};
    for (const [id, index] of indexes) {
      const saved = hashes[id];
      const behind = index.text_sha256 !== null && saved?.hash !== undefined && saved.hash !== index.text_sha256;
      out[id] = { chunks: index.chunks, indexedAt: index.indexed_at, behind };
    }
    return out;
  }, [indexes, hashes]);

  return { states, loaded, refresh };
}
