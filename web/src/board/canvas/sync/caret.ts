// Where the caret goes when the text under it changes by someone else's hand (a merge of their
// typing): it stays by the words it was by. Text before the change keeps its offsets, text after
// it moves by the change's length, and a caret inside the changed part goes to its end.

// With its extension: the service's tests import this module too (the root project's node16 resolution).
import { commonEnds } from '../edits/text-merge.js';

/** `position` in `before`, mapped into `after`. */
export function mapCaret(before: string, after: string, position: number): number {
  const { prefix, suffix } = commonEnds(before, after);
  if (position <= prefix) return position;
  if (position >= before.length - suffix) return position + after.length - before.length;
  return after.length - suffix;
}
