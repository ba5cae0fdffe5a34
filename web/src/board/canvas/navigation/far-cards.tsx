// Cards drawn plain far out (issue 30): below FARTHEST_ZOOM a card is a block of its size and colour
// (most of them are then on the far layer, far-layer.tsx; these are the ones brought into the page)
// with its connection points, instead of the card with its text, menu, badges and editor, so a board
// of 2,000 cards fitted in view mounts and pans quickly. The block keeps the card's measured size
// (or its stored size, else the CSS default), so edges and culling see the same box; zooming in
// draws the whole card again.
import type { ComponentType } from 'react';
import { Handle, type NodeProps, type NodeTypes, Position, useStore } from '@xyflow/react';
import { FARTHEST_ZOOM } from './use-canvas-navigation';
import { cardSize, FAR_CARD_TYPES } from './use-culling';
import { farFill } from './far-layer';
import type { BoardFlowNode } from '../../board-context';

function farCard(Card: ComponentType<NodeProps>): ComponentType<NodeProps> {
  function FarOrWhole(props: NodeProps) {
    const far = useStore((s) => s.transform[2] < FARTHEST_ZOOM);
    const measuredWidth = useStore((s) => s.nodeLookup.get(props.id)?.measured.width);
    const measuredHeight = useStore((s) => s.nodeLookup.get(props.id)?.measured.height);
    if (!far) return <Card {...props} />;
    const size = cardSize({ id: props.id, position: { x: 0, y: 0 }, data: props.data } as BoardFlowNode);
    const fill = farFill({ type: props.type, data: props.data });
    return (
      <div
        className={`bw-node bw-node--far${props.selected ? ' is-selected' : ''}`}
        data-testid={`node-${props.id}`}
        data-far="true"
        style={{ width: measuredWidth ?? size.width, height: measuredHeight ?? size.height, background: fill }}
      >
        <Handle type="target" position={Position.Top} className="bw-handle" />
        <Handle type="source" position={Position.Bottom} className="bw-handle" />
      </div>
    );
  }
  FarOrWhole.displayName = `Far(${Card.displayName ?? Card.name})`;
  return FarOrWhole;
}

/** `types` with the board's cards drawn plain far out. */
export function withFarCards(types: NodeTypes): NodeTypes {
  return Object.fromEntries(
    Object.entries(types).map(([type, Card]) => [type, FAR_CARD_TYPES.includes(type) ? farCard(Card as ComponentType<NodeProps>) : Card]),
  );
}
