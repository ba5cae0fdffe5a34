// Bringing a node into view: a search result or a chat source centres the canvas on its node,
// selects it and highlights it until the pane is clicked or the node is deleted. A chat citation
// also names the passage: its card shows it (a note selects it, a video plays from its second).
import { useCallback, useState } from 'react';
import { type Edge, useReactFlow } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import type { CanvasGraph } from '../use-board-graph';
import type { Citation, FocusedPassage } from '../../citations';

export interface NodeFocus {
  /** The highlighted node's id. */
  highlight: string | undefined;
  /** The page of the highlighted pdf node a search hit or chat source named. */
  highlightPage: { nodeId: string; page: number } | undefined;
  focusNode(id: string, page?: number): void;
  /** The passage of the highlighted node a chat citation named. */
  passage: FocusedPassage | undefined;
  focusCitation(citation: Citation): void;
  clearHighlight(): void;
  /** Drops the highlight if its node is among `ids` (they were deleted). */
  forgetNodes(ids: Set<string>): void;
}

export function useNodeFocus(graph: CanvasGraph, notify: (message: string) => void): NodeFocus {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [highlight, setHighlight] = useState<string>();
  const [highlightPage, setHighlightPage] = useState<{ nodeId: string; page: number }>();
  const [passage, setPassage] = useState<FocusedPassage>();

  const focusNode = useCallback(
    (id: string, page?: number) => {
      // The canvas's own node: React Flow holds only the cards near the view (use-culling.ts).
      const node = graph.nodeById(id);
      if (!node) {
        notify('That node is no longer on the board.');
        return;
      }
      const width = node.measured?.width ?? 260;
      const height = node.measured?.height ?? 120;
      const at = node.position;
      void flow.setCenter(at.x + width / 2, at.y + height / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 450 });
      setHighlight(id);
      setHighlightPage(page === undefined ? undefined : { nodeId: id, page });
      setPassage(undefined);
      graph.selectOnly(id);
    },
    [flow, notify, graph],
  );

  const focusCitation = useCallback(
    (citation: Citation) => {
      if (!citation.node_id) {
        notify('That source is not a node of this board.');
        return;
      }
      focusNode(citation.node_id, citation.page);
      if (!graph.nodeById(citation.node_id)) return;
      setPassage({
        nodeId: citation.node_id,
        quote: citation.quote,
        start: citation.char_start,
        end: citation.char_end,
        seconds: citation.start_seconds,
        at: Date.now(),
      });
    },
    [graph, notify, focusNode],
  );

  const clearHighlight = useCallback(() => setHighlight(undefined), []);
  const forgetNodes = useCallback((ids: Set<string>) => setHighlight((id) => (id && ids.has(id) ? undefined : id)), []);

  return { highlight, highlightPage, focusNode, passage, focusCitation, clearHighlight, forgetNodes };
}
