// A canvas node's type, on its own so that the outbox, the mapping to and from the API and the
// context the cards share can all name it without importing one another.
import type { Node } from '@xyflow/react';

/** A canvas node: React Flow's node whose `data` is the API node's `node_data`. */
export type BoardFlowNode = Node<Record<string, unknown>>;
