// The canvas's nodes and edges as React state, and the one set of functions that change them.
// React Flow's own changes (selecting, dragging, measuring, removing after a delete the service
// did) come in through onNodesChange/onEdgesChange; every other change goes through `graph`, so
// the state is changed in one place. Nothing here talks to the API: use-board-edits.ts sends a
// person's edits and then applies the service's answer here. The service's state (other people's
// changes from the event stream, a reload after a lost stream) comes in through applyNode,
// applyEdge, removeNodes and removeEdge, which are idempotent: applying a node that is already
// there updates it, removing one that is gone does nothing (server-sync.ts decides when).
import { useMemo, useRef } from 'react';
import { type Edge, type OnEdgesChange, type OnNodesChange, useEdgesState, useNodesState } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';

export interface CanvasGraph {
  /** The node as of the last render (for callbacks that should not be rebuilt on every change). */
  nodeById(id: string): BoardFlowNode | undefined;
  /** Every node as of the last render (React Flow holds only those in the page: use-culling.ts). */
  nodes(): BoardFlowNode[];
  /** The edge as of the last render (React Flow holds only those with both ends in the page). */
  edgeById(id: string): Edge | undefined;
  /** Every edge as of the last render. */
  edges(): Edge[];
  /** Ids of the nodes and edges as of the last render. */
  ids(): { nodes: string[]; edges: string[] };
  /** Adds a node; with `select`, it becomes the only selected node. A node already there (the
   * event stream was quicker than the API's answer) is kept as it is, only selected. */
  addNode(node: BoardFlowNode, options?: { select?: boolean }): void;
  /** Adds `node`, or applies `update` to the node already there under its id. */
  addOrUpdateNode(node: BoardFlowNode, update: (existing: BoardFlowNode) => BoardFlowNode): void;
  patchNode(id: string, change: (node: BoardFlowNode) => BoardFlowNode): void;
  /** Puts `node` where the node `id` was (an upload's placeholder becoming the created node). */
  replaceNode(id: string, node: BoardFlowNode): void;
  removeNode(id: string): void;
  selectOnly(id: string): void;
  /** Makes exactly these nodes the selection (edges unselected). */
  select(ids: string[]): void;
  addEdge(edge: Edge): void;
  /** The service's state of a node: added, or its type, position and data replaced (what React
   * Flow keeps on it, such as selection and size, stays). */
  applyNode(node: BoardFlowNode): void;
  /** Removes nodes and the edges attached to them. */
  removeNodes(ids: string[]): void;
  /** The service's state of an edge: added, or its ends and data replaced. */
  applyEdge(edge: Edge): void;
  removeEdge(id: string): void;
  /** Adds the nodes and edges whose ids are not there yet (the rest of the board arriving). */
  addAbsent(nodes: BoardFlowNode[], edges: Edge[]): void;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Of `items`, those whose id is not in `list` (nor twice in `items`). */
function absent<T extends { id: string }>(list: T[], items: T[]): T[] {
  const there = new Set(list.map((item) => item.id));
  const out: T[] = [];
  for (const item of items) {
    if (there.has(item.id)) continue;
    there.add(item.id);
    out.push(item);
  }
  return out;
}

function mergeNode(existing: BoardFlowNode, node: BoardFlowNode): BoardFlowNode {
  const samePosition = existing.position.x === node.position.x && existing.position.y === node.position.y;
  if (samePosition && existing.type === node.type && sameJson(existing.data, node.data)) return existing;
  return { ...existing, type: node.type, position: samePosition ? existing.position : node.position, data: node.data };
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
  const edgesRef = useRef(edges);
  edgesRef.current = edges;

  const graph = useMemo<CanvasGraph>(
    () => ({
      nodeById: (id) => nodesRef.current.find((n) => n.id === id),
      nodes: () => nodesRef.current,
      edgeById: (id) => edgesRef.current.find((e) => e.id === id),
      edges: () => edgesRef.current,
      ids: () => ({ nodes: nodesRef.current.map((n) => n.id), edges: edgesRef.current.map((e) => e.id) }),
      addNode: (node, options) =>
        setNodes((list) => {
          const there = list.some((n) => n.id === node.id);
          if (!options?.select) return there ? list : [...list, node];
          const others = list.map((n) => (n.selected && n.id !== node.id ? { ...n, selected: false } : n));
          return there ? others.map((n) => (n.id === node.id ? { ...n, selected: true } : n)) : [...others, { ...node, selected: true }];
        }),
      addOrUpdateNode: (node, update) =>
        setNodes((list) => (list.some((n) => n.id === node.id) ? list.map((n) => (n.id === node.id ? update(n) : n)) : [...list, node])),
      patchNode: (id, change) => setNodes((list) => list.map((n) => (n.id === id ? change(n) : n))),
      replaceNode: (id, node) =>
        setNodes((list) =>
          // The event stream may have added the created node already: the placeholder just goes.
          list.some((n) => n.id === node.id) ? list.filter((n) => n.id !== id) : list.map((n) => (n.id === id ? node : n)),
        ),
      removeNode: (id) => setNodes((list) => list.filter((n) => n.id !== id)),
      selectOnly: (id) => setNodes((list) => list.map((n) => (n.selected === (n.id === id) ? n : { ...n, selected: n.id === id }))),
      select: (ids) => {
        const chosen = new Set(ids);
        setNodes((list) => list.map((n) => (!!n.selected === chosen.has(n.id) ? n : { ...n, selected: chosen.has(n.id) })));
        setEdges((list) => (list.some((e) => e.selected) ? list.map((e) => (e.selected ? { ...e, selected: false } : e)) : list));
      },
      addEdge: (edge) => setEdges((list) => (list.some((e) => e.id === edge.id) ? list : [...list, edge])),
      applyNode: (node) =>
        setNodes((list) =>
          list.some((n) => n.id === node.id) ? list.map((n) => (n.id === node.id ? mergeNode(n, node) : n)) : [...list, node],
        ),
      removeNodes: (ids) => {
        const gone = new Set(ids);
        setNodes((list) => (list.some((n) => gone.has(n.id)) ? list.filter((n) => !gone.has(n.id)) : list));
        setEdges((list) =>
          list.some((e) => gone.has(e.source) || gone.has(e.target))
            ? list.filter((e) => !gone.has(e.source) && !gone.has(e.target))
            : list,
        );
      },
      applyEdge: (edge) =>
        setEdges((list) =>
          list.some((e) => e.id === edge.id)
            ? list.map((e) =>
                e.id !== edge.id || (e.source === edge.source && e.target === edge.target && sameJson(e.data, edge.data))
                  ? e
                  : { ...e, ...edge, label: edge.label, selected: e.selected },
              )
            : [...list, edge],
        ),
      removeEdge: (id) => setEdges((list) => (list.some((e) => e.id === id) ? list.filter((e) => e.id !== id) : list)),
      addAbsent: (nodes, edges) => {
        if (nodes.length > 0) setNodes((list) => [...list, ...absent(list, nodes)]);
        if (edges.length > 0) setEdges((list) => [...list, ...absent(list, edges)]);
      },
    }),
    [setNodes, setEdges],
  );

  return { nodes, edges, onNodesChange, onEdgesChange, graph };
}
