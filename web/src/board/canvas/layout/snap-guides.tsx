// The alignment guides of a drag (use-canvas-drag.ts), drawn in canvas coordinates over the cards.
import { useStore, ViewportPortal } from '@xyflow/react';
import type { Guide } from './snapping';
import './layout.css';

export function SnapGuides({ guides }: { guides: Guide[] }) {
  const zoom = useStore((s) => s.transform[2]);
  if (guides.length === 0) return null;
  const thick = 1 / zoom;
  return (
    <ViewportPortal>
      {guides.map((g) => (
        <div
          key={`${g.axis}${g.at}`}
          className="bw-snap-guide"
          data-axis={g.axis}
          style={
            g.axis === 'x'
              ? { left: g.at - thick / 2, top: g.from, width: thick, height: g.to - g.from }
              : { top: g.at - thick / 2, left: g.from, height: thick, width: g.to - g.from }
          }
        />
      ))}
    </ViewportPortal>
  );
}
