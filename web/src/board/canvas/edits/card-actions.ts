// What a card and a connection can change about themselves (size, colour, title, an edge's label),
// shared with the node and edge components as the `cards` of board-context's actions, and which
// edge's label is being edited (a double-click on an edge opens it). The writes themselves are
// use-board-edits.ts's (resizeNode, updateNodeData, updateEdgeData).
import { useContext, useMemo, useState } from 'react';
import type { Edge, EdgeMouseHandler } from '@xyflow/react';
import { ActionsContext, type CardActions } from '../../board-context';

export type { CardActions, PositionMove } from '../../board-context';

const READ_ONLY: CardActions = {
  canEdit: false,
  resizeNode: () => {},
  updateNodeData: () => {},
  updateEdgeData: () => {},
  editEdgeLabel: () => {},
};

export const useCardActions = (): CardActions => useContext(ActionsContext)?.cards ?? READ_ONLY;

export interface CardEdits {
  resizeNode: CardActions['resizeNode'];
  updateNodeData: CardActions['updateNodeData'];
  updateEdgeData: CardActions['updateEdgeData'];
}

/** The context's value for the canvas, and the handler that opens an edge's label on double-click. */
export function useCardActionsValue(canEdit: boolean, edits: CardEdits) {
  const [editingEdge, setEditingEdge] = useState<string>();
  const { resizeNode, updateNodeData, updateEdgeData } = edits;
  const value = useMemo<CardActions>(
    () => ({ canEdit, resizeNode, updateNodeData, updateEdgeData, editingEdge, editEdgeLabel: setEditingEdge }),
    [canEdit, resizeNode, updateNodeData, updateEdgeData, editingEdge],
  );
  const onEdgeDoubleClick: EdgeMouseHandler<Edge> | undefined = canEdit ? (_event, edge) => setEditingEdge(edge.id) : undefined;
  return { value, onEdgeDoubleClick };
}
