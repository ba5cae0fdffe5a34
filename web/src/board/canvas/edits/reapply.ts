// An undo or redo made on the board as it is now, not as it was: a recorded change of this person's
// (edit-history.ts; its inverse for an undo) is turned into a local change against the current
// state, or refused when someone else (a person or an API client) has changed the same thing since,
// so it never erases their later change. Text is reverted as a reverse patch on the current text
// (text-merge.ts); a move, resize, colour, title or label only if the field still holds what this
// person set. As in Excalidraw's history, the result is an ordinary local change, which
// use-board-edits.ts sends through the same save path as any edit. Creations and deletions are
// made as they are (undoing a create deletes; undoing a delete re-creates).
import type { XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import type { DataKeys, HistoryChange } from './edit-history';
import { revertText } from './text-merge';

/** The board as this person sees it now (ids are current ids). */
export interface CurrentBoard {
  node(id: string): BoardFlowNode | undefined;
  /** A note's text as shown now (typed here and not yet saved included). */
  noteText(id: string): string;
  edgeData(id: string): Record<string, unknown> | undefined;
  /** The id the node or edge recorded as `id` has now. */
  resolve(id: string): string;
}

/** What to do for one undo or redo. */
export type Step =
  /** Nothing is done: the message says why. */
  | { kind: 'refused'; message: string }
  /** `before`: the text as it was, for the entry the other stack gets (`entryAfter`). */
  | { kind: 'text'; id: string; text: string; before: string }
  | { kind: 'move'; moves: { id: string; to: XYPosition }[] }
  | { kind: 'data'; id: string; patch: DataKeys; position?: { from: XYPosition; to: XYPosition } }
  | { kind: 'edgeData'; id: string; patch: DataKeys }
  /** A creation or deletion, made as recorded. */
  | { kind: 'structure'; change: HistoryChange & { kind: 'create' | 'delete' } };

const same = (a: XYPosition, b: XYPosition) => Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1;

/** A data key's value as the API holds it (absent and null are the same). */
const keyIs = (data: Record<string, unknown>, key: string, value: unknown) =>
  JSON.stringify(data[key] ?? null) === JSON.stringify(value ?? null);

/**
 * The step that makes `change` (an inverse for an undo, the change itself for a redo) on the board
 * as it is now; `what` is "undone" or "redone", for the refusal's message.
 */
export function planStep(change: HistoryChange, board: CurrentBoard, what: 'undone' | 'redone'): Step {
  const gone: Step = { kind: 'refused', message: `This card is no longer on the board; nothing was ${what}.` };
  switch (change.kind) {
    case 'create':
    case 'delete':
      return { kind: 'structure', change };
    case 'text': {
      const id = board.resolve(change.id);
      if (!board.node(id)) return gone;
      // Making from → to on the current text is undoing to → from on it.
      const before = board.noteText(id);
      const text = revertText(change.to, change.from, before);
      if (text === null) return { kind: 'refused', message: `Someone else has changed these words since; nothing was ${what}.` };
      return { kind: 'text', id, text, before };
    }
    case 'move': {
      const moves: { id: string; to: XYPosition }[] = [];
      for (const m of change.moves) {
        const id = board.resolve(m.id);
        const node = board.node(id);
        if (!node) return gone;
        if (!same(node.position, m.from))
          return { kind: 'refused', message: `Someone else has moved this card since; nothing was ${what}.` };
        moves.push({ id, to: m.to });
      }
      return { kind: 'move', moves };
    }
    case 'data': {
      const id = board.resolve(change.id);
      const node = board.node(id);
      if (!node) return gone;
      const changed =
        Object.entries(change.from).some(([key, value]) => !keyIs(node.data, key, value)) ||
        (change.position !== undefined && !same(node.position, change.position.from));
      if (changed) return { kind: 'refused', message: `Someone else has changed this card since; nothing was ${what}.` };
      return { kind: 'data', id, patch: change.to, ...(change.position ? { position: change.position } : {}) };
    }
    case 'edgeData': {
      const id = board.resolve(change.id);
      const data = board.edgeData(id);
      if (!data) return { kind: 'refused', message: `This connection is no longer on the board; nothing was ${what}.` };
      if (Object.entries(change.from).some(([key, value]) => !keyIs(data, key, value))) {
        return { kind: 'refused', message: `Someone else has changed this connection since; nothing was ${what}.` };
      }
      return { kind: 'edgeData', id, patch: change.to };
    }
  }
}

/**
 * The entry the other stack gets once `step` was made for `entry` (taken from the undo stack when
 * `direction` is undo). For text it is the change as made on the current text, as Excalidraw's
 * history keeps the latest changes: a redo then reverts exactly what the undo did, even where
 * others typed meanwhile (the recorded change would no longer apply cleanly there).
 */
export function entryAfter(entry: HistoryChange, step: Step, direction: 'undo' | 'redo'): HistoryChange {
  if (entry.kind !== 'text' || step.kind !== 'text') return entry;
  return direction === 'undo' ? { ...entry, from: step.text, to: step.before } : { ...entry, from: step.before, to: step.text };
}
