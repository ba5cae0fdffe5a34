// Between the API's records and React Flow's: a node's canvas type is its API type plus `Node`
// (note -> noteNode), as in the board's flow_state (DECISIONS), and its `data` is the node_data.
import { type Edge, type EdgeMarker, MarkerType } from '@xyflow/react';
import type { ApiNodeType, EdgeRecord, FlowState, NodeRecord } from './board-api';
import type { BoardFlowNode } from './flow-node';
import { colorHex } from './nodes/card-style';
import { FRAME_Z } from './canvas/layout/frames';

const API_TYPES: ApiNodeType[] = ['note', 'url', 'video', 'document', 'pdf', 'image'];

export function apiTypeOf(canvasType: string | undefined): ApiNodeType | undefined {
  return API_TYPES.find((t) => `${t}Node` === canvasType);
}

function canvasTypeOf(apiType: string): string {
  return apiType === 'youtube' ? 'videoNode' : `${apiType}Node`;
}

/** A frame (a note whose data says `"group": true`) is drawn under the cards: canvas/layout/frames.ts. */
const frameZ = (data: Record<string, unknown>) => (data?.group === true ? { zIndex: FRAME_Z } : {});

export function toFlowNode(record: NodeRecord): BoardFlowNode {
  return {
    id: record.id,
    type: canvasTypeOf(record.node_type),
    position: { x: record.position_x, y: record.position_y },
    data: record.node_data,
    ...frameZ(record.node_data),
  };
}

export function fromFlowState(node: FlowState['nodes'][number]): BoardFlowNode {
  // parentId is not used for layout: positions are stored as absolute canvas coordinates.
  return { id: node.id, type: node.type, position: node.position, data: node.data, ...frameZ(node.data) };
}

/** An edge's arrow, in the edge's colour (edge_data.color) when it has one. */
export function edgeMarker(data: Record<string, unknown>): EdgeMarker {
  const color = colorHex(data.color);
  return { type: MarkerType.ArrowClosed, width: 18, height: 18, ...(color ? { color } : {}) };
}

function edge(id: string, source: string, target: string, data: Record<string, unknown>): Edge {
  return { id, source, target, data, markerEnd: edgeMarker(data), ...(typeof data.label === 'string' ? { label: data.label } : {}) };
}

export function toFlowEdge(record: EdgeRecord): Edge {
  return edge(record.id, record.source_node_id, record.target_node_id, record.edge_data);
}

export function fromFlowStateEdge(e: FlowState['edges'][number]): Edge {
  return edge(e.id, e.source, e.target, e.data);
}
