// Frames: a named, coloured area that holds cards, as in Figma, tldraw and JSON Canvas's `group`.
// A frame is a note whose data says `"group": true` (the service's JSON Canvas import and export
// already write groups so, docs/json-canvas.md), sized by its data's `width` and `height`. A card
// belongs to the smallest frame its centre lies in (its `parent_node_id`, set whenever the person
// drops it); moving a frame moves what belongs to it. Pure functions over the canvas's nodes.

// What this needs of a canvas node and a box, written out (not imported) so that the module stands
// alone: test/web-snapping.test.ts runs it under Node.
interface BoardFlowNode {
  id: string;
  type?: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
  measured?: { width?: number; height?: number };
  width?: number;
  height?: number;
}
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A frame is drawn under every card (React Flow adds 1000 to a selected node's z). */
export const FRAME_Z = -2000;
/** A new frame's margin around the cards it is made around, and the room for its title. */
const MARGIN = 40;
const TITLE = 36;

export const isFrameData = (data: Record<string, unknown> | undefined): boolean => data?.group === true;
export const isFrame = (node: BoardFlowNode): boolean => node.type === 'noteNode' && isFrameData(node.data);

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

/** A node's box on the canvas: its position and its measured (or stored) size. */
export function boxOf(node: BoardFlowNode, position = node.position): Box {
  const width = node.measured?.width ?? node.width ?? num(node.data.width) ?? (isFrame(node) ? 500 : 260);
  const height = node.measured?.height ?? node.height ?? num(node.data.height) ?? (isFrame(node) ? 400 : 120);
  return { x: position.x, y: position.y, width, height };
}

const area = (b: Box) => b.width * b.height;
const centreIn = (outer: Box, inner: Box) => {
  const cx = inner.x + inner.width / 2;
  const cy = inner.y + inner.height / 2;
  return cx >= outer.x && cx <= outer.x + outer.width && cy >= outer.y && cy <= outer.y + outer.height;
};

/** The frame `box` (of node `id`) belongs to: the smallest other frame, larger than it, its centre lies in. */
export function frameAt(id: string, box: Box, nodes: BoardFlowNode[], skip: Set<string> = new Set()): string | null {
  let best: { id: string; area: number } | undefined;
  for (const n of nodes) {
    if (n.id === id || skip.has(n.id) || !isFrame(n)) continue;
    const frame = boxOf(n);
    if (area(frame) <= area(box) || !centreIn(frame, box)) continue;
    if (!best || area(frame) < best.area) best = { id: n.id, area: area(frame) };
  }
  return best?.id ?? null;
}

/** What moves with the frames among `ids`: every node whose centre lies in one of them and is smaller. */
export function membersOf(ids: Set<string>, nodes: BoardFlowNode[]): BoardFlowNode[] {
  const frames = nodes.filter((n) => ids.has(n.id) && isFrame(n)).map((n) => boxOf(n));
  if (frames.length === 0) return [];
  return nodes.filter((n) => {
    if (ids.has(n.id) || n.type === 'uploadNode') return false;
    const box = boxOf(n);
    return frames.some((frame) => area(frame) > area(box) && centreIn(frame, box));
  });
}

/** Where a frame around `boxes` goes: their bounds with a margin and room for the title. */
export function frameAround(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((b) => b.x)) - MARGIN;
  const y = Math.min(...boxes.map((b) => b.y)) - MARGIN - TITLE;
  const right = Math.max(...boxes.map((b) => b.x + b.width)) + MARGIN;
  const bottom = Math.max(...boxes.map((b) => b.y + b.height)) + MARGIN;
  return { x: Math.round(x), y: Math.round(y), width: Math.round(right - x), height: Math.round(bottom - y) };
}
