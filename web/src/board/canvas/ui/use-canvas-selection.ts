// What is selected on the canvas, and the labels the search box and chat panel show for nodes.
// Upload placeholders are not nodes of the board: never selected, labelled or counted.
import { useMemo } from 'react';
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { apiTypeOf } from '../../flow-mapping';
import { labelOf, str } from '../../nodes/node-frame';
import { noteTitle } from '../../nodes/note-node';
import { fileNameOf } from '../../nodes/file-nodes';
import { addressParts } from '../../nodes/web-links';

// As the card is titled (also the name of its connections, navigation/use-edge-names.ts): a note without a title by its first line, a link by its page's title
// (once read) or its site, a file by its name.
export const labelFrom = (type: string | undefined, data: BoardFlowNode['data']) => labelOf(data, untitled(apiTypeOf(type), data));

function untitled(kind: string | undefined, data: BoardFlowNode['data']): string {
  switch (kind) {
    case 'note':
      return noteTitle(str(data.text));
    case 'url':
      return str(data.title).trim() || addressParts(str(data.url)).host || 'Link';
    case 'video':
      return 'Video';
    case 'document':
      return 'Document';
    case 'pdf':
    case 'image':
      return fileNameOf(str(data.storagePath));
    default:
      return kind ?? 'Node';
  }
}
const labelOfNode = (node: BoardFlowNode) => labelFrom(node.type, node.data);

export function useCanvasSelection(nodes: BoardFlowNode[], edges: Edge[]) {
  const realNodes = nodes.filter((n) => n.type !== 'uploadNode');
  const selectedNodes = realNodes.filter((n) => n.selected);
  const selectedEdges = edges.filter((e) => e.selected);
  const selectedOne = selectedNodes.length === 1 ? selectedNodes[0]! : undefined;
  // The one selected node, for the chat panel (kept while its id and data stay the same).
  const selectedId = selectedOne?.id;
  const selectedType = selectedOne?.type;
  const selectedData = selectedOne?.data;
  const selectedNode = useMemo(
    () => (selectedId !== undefined && selectedData ? { id: selectedId, label: labelFrom(selectedType, selectedData) } : undefined),
    [selectedId, selectedType, selectedData],
  );
  const nodeLabel = (id: string): string | undefined => {
    const node = realNodes.find((n) => n.id === id);
    return node ? labelOfNode(node) : undefined;
  };
  return { realNodes, selectedNodes, selectedEdges, selectedNode, nodeLabel };
}
