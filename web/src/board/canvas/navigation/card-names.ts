// Cards named for screen readers (issue 30): each card in the page is announced by its title and
// its type ("Plan, note, card"), close up and far out alike, instead of React Flow's unnamed "node".
// Each named card object is kept while its card is unchanged, so React Flow is not given new nodes
// where nothing changed.
import type { BoardFlowNode } from '../../board-context';
import { isFrame } from '../layout/frames';
import { labelFrom } from '../ui/use-canvas-selection';

const KINDS: Record<string, string> = {
  noteNode: 'note',
  urlNode: 'link',
  videoNode: 'video',
  documentNode: 'document',
  pdfNode: 'PDF',
  imageNode: 'image',
};

/** What a card is called: its title and its type. */
export function cardName(node: BoardFlowNode): string {
  return `${labelFrom(node.type, node.data)}, ${isFrame(node) ? 'frame' : (KINDS[node.type ?? ''] ?? 'card')}`;
}

const DOM_ATTRIBUTES = { 'aria-roledescription': 'card' } as const;

const cache = new WeakMap<BoardFlowNode, BoardFlowNode>();

/** `node` with its name (an upload's placeholder, not yet a card, as it is). */
export function named(node: BoardFlowNode): BoardFlowNode {
  if (!KINDS[node.type ?? '']) return node;
  let out = cache.get(node);
  if (!out) {
    out = { ...node, ariaLabel: cardName(node), domAttributes: DOM_ATTRIBUTES };
    cache.set(node, out);
  }
  return out;
}
