// Keeps the board as this person sees it in IndexedDB (store.ts), a second after it last changed,
// so a reload while the service is down opens it as last seen (board-page.tsx), with the outbox's
// waiting changes put on it again (harmless: each is made the same way twice). Once the board is
// gone from this person (deleted, or their access removed) the copy is forgotten and never written again.
import { useEffect } from 'react';
import type { Edge } from '@xyflow/react';
import type { Board } from '../../board-api';
import type { BoardFlowNode } from '../../board-context';
import { forgetLastSeen, writeLastSeen } from './store';

const SAVE_AFTER_MS = 1_000;

/**
 * `complete`: the whole board is on the canvas (a board still arriving is not kept half). `gone`:
 * deleted, or this person's access removed: the copy is forgotten.
 */
export function useLastSeen(
  board: Board,
  nodes: BoardFlowNode[],
  edges: Edge[],
  isOwner: boolean,
  canEdit: boolean,
  { complete, gone }: { complete: boolean; gone: boolean },
): void {
  useEffect(() => {
    if (gone) {
      void forgetLastSeen(board.id);
      return;
    }
    if (!complete) return;
    const timer = setTimeout(
      () => void writeLastSeen({ id: board.id, board, nodes, edges, isOwner, canEdit, savedAt: Date.now() }),
      SAVE_AFTER_MS,
    );
    return () => clearTimeout(timer);
  }, [board, nodes, edges, isOwner, canEdit, complete, gone]);
}
