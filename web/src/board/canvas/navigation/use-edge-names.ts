// Connections named by their cards' titles for screen readers ("Connection from Plan to Budget"),
// instead of React Flow's default of their ids. Each named edge object is kept while its edge and
// the two names are unchanged, so React Flow does not take the edges in again as cards move.
import { useMemo, useRef } from 'react';
import type { Edge } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { labelFrom } from '../ui/use-canvas-selection';

export function edgeName(source: string, target: string, label: unknown): string {
  const named = `Connection from ${source} to ${target}`;
  return typeof label === 'string' && label.trim() ? `${named}: ${label}` : named;
}

export function useEdgeNames(edges: Edge[], nodes: BoardFlowNode[]): Edge[] {
  const cache = useRef(new WeakMap<Edge, Edge>());
  return useMemo(() => {
    const titles = new Map<string, string>();
    const title = (id: string) => {
      let name = titles.get(id);
      if (name === undefined) {
        const node = nodes.find((n) => n.id === id);
        name = node ? labelFrom(node.type, node.data) : 'a card';
        titles.set(id, name);
      }
      return name;
    };
    return edges.map((edge) => {
      const ariaLabel = edgeName(title(edge.source), title(edge.target), edge.label);
      const kept = cache.current.get(edge);
      if (kept?.ariaLabel === ariaLabel) return kept;
      const named = { ...edge, ariaLabel };
      cache.current.set(edge, named);
      return named;
    });
  }, [edges, nodes]);
}
