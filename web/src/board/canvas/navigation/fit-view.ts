// How "fit the view" pads the cards (the opening fit, the Fit View button, Shift+1 and Shift+2),
// by the screen's size: on a wide screen clear of the zoom controls (bottom left) and the minimap
// (bottom right, 150 x 100 at 15 px from the edges); on a phone, which has no minimap, a narrow
// margin, so two notes open at a readable zoom instead of the zoom floor. Culled cards count
// (use-culling.ts gives them their size).
import type { FitViewOptions } from '@xyflow/react';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query';
import type { BoardFlowNode } from '../../board-context';

const WIDE: FitViewOptions<BoardFlowNode> = {
  maxZoom: 1,
  includeHiddenNodes: true,
  padding: { top: '32px', left: '72px', right: '190px', bottom: '130px' },
};

const PHONE: FitViewOptions<BoardFlowNode> = {
  maxZoom: 1,
  includeHiddenNodes: true,
  padding: { top: '16px', left: '52px', right: '16px', bottom: '24px' },
};

export function useFitViewOptions(): FitViewOptions<BoardFlowNode> {
  return useMediaQuery(PHONE_QUERY) ? PHONE : WIDE;
}
