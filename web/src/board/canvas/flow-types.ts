// What React Flow is told about the board's kinds of node and edge: the component drawing each
// canvas node type, the floating edge, how a new edge looks, and the minimap's colour per type
// (or the card's own colour).
import { type DefaultEdgeOptions, type EdgeTypes, MarkerType, type NodeTypes } from '@xyflow/react';
import { FloatingEdge } from '../floating-edge';
import { colorHex } from '../nodes/card-style';
import { ImageNode, PdfNode, UploadNode } from '../nodes/file-nodes';
import { DocumentNode, UrlNode, VideoNode } from '../nodes/link-nodes';
import { NoteNode } from '../nodes/note-node';

export const nodeTypes: NodeTypes = {
  noteNode: NoteNode,
  urlNode: UrlNode,
  videoNode: VideoNode,
  documentNode: DocumentNode,
  pdfNode: PdfNode,
  imageNode: ImageNode,
  uploadNode: UploadNode,
};

export const edgeTypes: EdgeTypes = { floating: FloatingEdge };

export const defaultEdgeOptions: DefaultEdgeOptions = {
  type: 'floating',
  markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 },
};

const MINIMAP_COLORS: Record<string, string> = {
  noteNode: '#facc15',
  urlNode: '#38bdf8',
  videoNode: '#f87171',
  documentNode: '#a78bfa',
  pdfNode: '#fb923c',
  imageNode: '#34d399',
  uploadNode: '#cbd5e1',
};

export const minimapColor = (node: { type?: string; data?: Record<string, unknown> }): string =>
  colorHex(node.data?.color) ?? MINIMAP_COLORS[node.type ?? ''] ?? '#94a3b8';
