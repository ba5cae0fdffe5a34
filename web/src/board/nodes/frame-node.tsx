// A frame (canvas/layout/frames.ts): a named, coloured area drawn under the cards it holds. It is
// a note whose data says `"group": true`, so it has a card's title (renamed in place or from its
// menu), colour and size, and nothing to read.
import type { NodeProps } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';
import { labelOf, NodeFrame } from './node-frame';

export function FrameIcon() {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
      <path d="M4 1v14M12 1v14M1 4h14M1 12h14" />
    </svg>
  );
}

export function FrameNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  return (
    <NodeFrame id={id} kind="frame" icon={<FrameIcon />} title={labelOf(data, 'Frame')} selected={selected}>
      <div className="bw-frame__area" />
    </NodeFrame>
  );
}
