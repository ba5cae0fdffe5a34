// What is selected on the canvas, and the labels the search box and chat panel show for nodes.
// Upload placeholders are not nodes of the board: never selected, labelled or counted.
import { useMemo } from 'react';
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { labelOf, str } from '../../nodes/node-frame';
import { noteTitle } from '../../nodes/note-node';

// As the card is titled: a note without a title by its first line.
const labelOfNode = (node: BoardFlowNode) =>
  labelOf(node.data, node.type === 'noteNode' ? noteTitle(str(node.data.text)) : (apiTypeOf(node.type) ?? 'Node'));

export function useCanvasSelection(nodes: BoardFlowNode[], edges: Edge[]) {
  const realNodes = nodes.filter((n) => n.type !== 'uploadNode');
  const selectedNodes = realNodes.filter((n) => n.selected);
  const selectedEdges = edges.filter((e) => e.selected);
  const selectedOne = selectedNodes.length === 1 ? selectedNodes[0]! : undefined;
  // The one selected node, for the chat panel (kept while its id and data stay the same).
  const selectedNode = useMemo(
    () => (selectedOne ? { id: selectedOne.id, label: labelOfNode(selectedOne) } : undefined),
    [selectedOne?.id, selectedOne?.data],
  );
  const nodeLabel = (id: string): string | undefined => {
    const node = realNodes.find((n) => n.id === id);
    return node ? labelOfNode(node) : undefined;
  };
  return { realNodes, selectedNodes, selectedEdges, selectedNode, nodeLabel };
}
