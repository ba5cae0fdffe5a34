// Edges drawn between the nearest sides of their two nodes (wherever the nodes sit), rather
// than from a fixed bottom handle to a fixed top handle, which loops awkwardly for nodes placed
// side by side. The handles stay on the nodes for making connections. Its label, colour and tools
// are edge-label.tsx's.
import { BaseEdge, getBezierPath, Position, useInternalNode, type EdgeProps, type InternalNode } from '@xyflow/react';
import { EdgeAdornment } from './edge-label';
import { colorHex } from './nodes/card-style';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function centreOf(node: InternalNode): Box {
  const { x, y } = node.internals.positionAbsolute;
  const w = node.measured.width ?? 0;
  const h = node.measured.height ?? 0;
  return { x: x + w / 2, y: y + h / 2, w, h };
}

const rectOf = (c: Box) => ({ x: c.x - c.w / 2, y: c.y - c.h / 2, width: c.w, height: c.h });

/** Where the line from a's centre towards b's centre leaves a's rectangle, and on which side. */
function exitPoint(a: Box, b: Box): { x: number; y: number; side: Position } {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const sx = dx === 0 ? Infinity : a.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : a.h / 2 / Math.abs(dy);
  if (sx === Infinity && sy === Infinity) return { x: a.x, y: a.y - a.h / 2, side: Position.Top };
  const s = Math.min(sx, sy);
  const side = sx < sy ? (dx > 0 ? Position.Right : Position.Left) : dy > 0 ? Position.Bottom : Position.Top;
  return { x: a.x + dx * s, y: a.y + dy * s, side };
}

export function FloatingEdge({ id, source, target, markerEnd, style: given, data, selected, interactionWidth }: EdgeProps) {
  const from = useInternalNode(source);
  const to = useInternalNode(target);
  if (!from || !to) return null;
  const hex = colorHex(data?.color);
  const style = hex ? { ...given, stroke: hex } : given;
  const a = centreOf(from);
  const b = centreOf(to);
  if (source === target) {
    // A self-loop: out of the right side and back in.
    const x = a.x + a.w / 2;
    const path = `M ${x} ${a.y - 14} C ${x + 70} ${a.y - 60}, ${x + 70} ${a.y + 60}, ${x} ${a.y + 14}`;
    return (
      <>
        <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} interactionWidth={interactionWidth} />
        <EdgeAdornment id={id} x={x + 52} y={a.y} data={data} selected={selected} cards={[rectOf(a)]} />
      </>
    );
  }
  const start = exitPoint(a, b);
  const end = exitPoint(b, a);
  const [path, labelX, labelY] = getBezierPath({
    sourceX: start.x,
    sourceY: start.y,
    sourcePosition: start.side,
    targetX: end.x,
    targetY: end.y,
    targetPosition: end.side,
  });
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} interactionWidth={interactionWidth} />
      <EdgeAdornment id={id} x={labelX} y={labelY} data={data} selected={selected} cards={[rectOf(a), rectOf(b)]} />
    </>
  );
}
