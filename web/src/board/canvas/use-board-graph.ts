// The canvas's nodes and edges as React state, and the one set of functions that change them.
// React Flow's own changes (selecting, dragging, measuring, removing after a delete the service
// did) come in through onNodesChange/onEdgesChange; every other change goes through `graph`, so
// the state is changed in one place. Nothing here talks to the API: use-board-edits.ts sends a
// person's edits and then applies the service's answer here. Changes that do not come from this
// page (another user's edits, an undo) would be applied here too.
import { useMemo, useRef } from 'react';
import { type Edge, type OnEdgesChange, type OnNodesChange, useEdgesState, useNodesState } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';

export interface CanvasGraph {
  /** The node as of the last render (for callbacks that should not be rebuilt on every change). */
  nodeById(id: string): BoardFlowNode | undefined;
  /** Adds a node; with `select`, it becomes the only selected node. */
  addNode(node: BoardFlowNode, options?: { select?: boolean }): void;
  /** Adds `node`, or applies `update` to the node already there under its id. */
  addOrUpdateNode(node: BoardFlowNode, update: (existing: BoardFlowNode) => BoardFlowNode): void;
  patchNode(id: string, change: (node: BoardFlowNode) => BoardFlowNode): void;
  /** Puts `node` where the node `id` was (an upload's placeholder becoming the created node). */
  replaceNode(id: string, node: BoardFlowNode): void;
  removeNode(id: string): void;
  selectOnly(id: string): void;
  addEdge(edge: Edge): void;
}

export interface BoardGraphState {
  nodes: BoardFlowNode[];
  edges: Edge[];
  onNodesChange: OnNodesChange<BoardFlowNode>;
  onEdgesChange: OnEdgesChange<Edge>;
  /** Stable for the canvas's lifetime. */
  graph: CanvasGraph;
}

export function useBoardGraph(initialNodes: BoardFlowNode[], initialEdges: Edge[]): BoardGraphState {
  const [nodes, setNodes, onNodesChange] = useNodesState<BoardFlowNode>(initialNodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initialEdges);
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;

  const graph = useMemo<CanvasGraph>(
    () => ({
      nodeById: (id) => nodesRef.current.find((n) => n.id === id),
      addNode: (node, options) =>
        setNodes((list) =>
          options?.select
            ? [...list.map((n) => (n.selected ? { ...n, selected: false } : n)), { ...node, selected: true }]
            : [...list, node],
        ),
      addOrUpdateNode: (node, update) =>
        setNodes((list) => (list.some((n) => n.id === node.id) ? list.map((n) => (n.id === node.id ? update(n) : n)) : [...list, node])),
      patchNode: (id, change) => setNodes((list) => list.map((n) => (n.id === id ? change(n) : n))),
      replaceNode: (id, node) => setNodes((list) => list.map((n) => (n.id === id ? node : n))),
      removeNode: (id) => setNodes((list) => list.filter((n) => n.id !== id)),
      selectOnly: (id) => setNodes((list) => list.map((n) => (n.selected === (n.id === id) ? n : { ...n, selected: n.id === id }))),
      addEdge: (edge) => setEdges((list) => [...list, edge]),
    }),
    [setNodes, setEdges],
  );

  return { nodes, edges, onNodesChange, onEdgesChange, graph };
}
