// Three-way merge of a note's text, for two people (or a person and an API client) who changed the
// same note from the same starting text, and for an undo applied to a text that others changed
// since. Each side's change from the base is diffed word by word (jsdiff's Myers diff: words, runs
// of spaces and punctuation kept as they are) into edits of the base's ranges; edits to different
// ranges both apply; two insertions at one place are both kept, theirs first; two edits of the same
// words cannot both be kept, so theirs wins and the caller keeps this person's text aside (a merge
// never drops either person's words in silence).
import { diffWordsWithSpace } from 'diff';

export type TextMerge =
  /** Both changes are in `text`. */
  | { text: string; clean: true }
  /** `text` holds theirs where the two changed the same words; `mine` is this person's whole text. */
  | { text: string; clean: false; mine: string };

/** The base's characters [start, end) replaced by `insert`. */
interface Edit {
  start: number;
  end: number;
  insert: string;
}

/** A diff longer than this many edits (or slower than this) is treated as one big change. */
const MAX_EDITS = 2_000;
const DIFF_TIMEOUT_MS = 500;

/** The edits that turn `base` into `changed`, in order; null if the diff gave up. */
function editsOf(base: string, changed: string): Edit[] | null {
  const parts = diffWordsWithSpace(base, changed, { maxEditLength: MAX_EDITS, timeout: DIFF_TIMEOUT_MS });
  if (!parts) return null;
  const edits: Edit[] = [];
  let at = 0;
  for (const part of parts) {
    if (!part.added && !part.removed) {
      at += part.value.length;
      continue;
    }
    let edit = edits.at(-1);
    if (!edit || edit.end !== at) {
      edit = { start: at, end: at, insert: '' };
      edits.push(edit);
    }
    if (part.removed) {
      at += part.value.length;
      edit.end = at;
    } else {
      edit.insert += part.value;
    }
  }
  return edits;
}

/**
 * Joins two insertions made at one place: on separate lines where they are lines (at a line's
 * start, or holding line breaks), else with a space.
 */
function joinInsertions(theirs: string, mine: string, atLineStart: boolean): string {
  if (theirs === '' || mine === '' || /\s$/.test(theirs) || /^\s/.test(mine)) return theirs + mine;
  return theirs + (atLineStart || /\n/.test(theirs + mine) ? '\n' : ' ') + mine;
}

const overlap = (a: Edit, b: Edit) =>
  // Ranges that share a character, or one inserting strictly inside the other's range.
  (a.start < b.end && b.start < a.end) ||
  (a.start === a.end && b.start < a.start && a.start < b.end) ||
  (b.start === b.end && a.start < b.start && b.start < a.end);

/**
 * Merges `mine` and `theirs`, both changed from `base`. With `strict`, any clash of the two
 * changes (even two insertions at one place) makes it return null instead of choosing.
 */
export function mergeText(base: string, mine: string, theirs: string): TextMerge;
export function mergeText(base: string, mine: string, theirs: string, strict: true): string | null;
export function mergeText(base: string, mine: string, theirs: string, strict = false): TextMerge | string | null {
  const done = (text: string) => (strict ? text : { text, clean: true as const });
  if (mine === base || mine === theirs) return done(theirs);
  if (theirs === base) return done(mine);
  const clash = () => (strict ? null : { text: theirs, clean: false as const, mine });
  const ours = editsOf(base, mine);
  const others = editsOf(base, theirs);
  if (!ours || !others) return clash();

  // Walk both lists in base order, copying the base between edits.
  let text = '';
  let at = 0;
  let i = 0;
  let j = 0;
  while (i < ours.length || j < others.length) {
    const a = ours[i];
    const b = others[j];
    let next: Edit;
    if (a && b && overlap(a, b)) return clash();
    if (a && b && a.start === b.start && a.start === a.end && b.start === b.end) {
      if (strict) return null;
      next = { start: a.start, end: a.start, insert: joinInsertions(b.insert, a.insert, base[a.start - 1] === '\n') };
      i++;
      j++;
    } else if (a && (!b || a.start < b.start || (a.start === b.start && a.start === a.end))) {
      // An insertion at the start of the other's range goes before it.
      next = a;
      i++;
    } else {
      next = b as Edit;
      j++;
    }
    text += base.slice(at, next.start) + next.insert;
    at = next.end;
  }
  text += base.slice(at);
  return done(text);
}

/**
 * An edit of a note's text (`from` → `to`) undone on the text as it is now, where others may have
 * changed other words since: null when they changed the words the edit changed (the undo would
 * erase their change, so it is refused).
 */
export function revertText(from: string, to: string, current: string): string | null {
  return mergeText(to, from, current, true);
}
