// Where the caret goes when the text under it changes by someone else's hand (a merge of their
// typing): it stays by the words it was by. Text before the change keeps its offsets, text after
// it moves by the change's length, and a caret inside the changed part goes to its end.

/** `position` in `before`, mapped into `after`. */
export function mapCaret(before: string, after: string, position: number): number {
  const shortest = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shortest && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  if (position <= prefix) return position;
  if (position >= before.length - suffix) return position + after.length - before.length;
  return after.length - suffix;
}
