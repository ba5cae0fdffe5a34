// Three-way merge of a note's text, for two people (or a person and an API client) who changed the
// same note from the same starting text, and for an undo applied to a text that others changed
// since. Each side's change from the base is diffed character by character (jsdiff's Myers diff)
// into edits of the base's ranges, each widened to the whole words it changes; edits to different
// ranges both apply; two insertions at one place are both kept, theirs first, unless this person's
// insertion goes on from their own last typing, which ends at that place (two people appending to
// one note each keep their sentence whole, however their typing was cut into sends); two edits of
// the same words cannot both be kept, so theirs wins and the caller keeps this person's text aside
// (a merge never drops either person's words in silence).
import { diffChars } from 'diff';

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
const MAX_EDITS = 20_000;
const DIFF_TIMEOUT_MS = 500;

/** How many characters `a` and `b` share at their start, and then at their end. */
export function commonEnds(a: string, b: string): { prefix: number; suffix: number } {
  const shortest = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < shortest && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}

/**
 * The character edits that turn `base` into `changed`, in order; null if the diff gave up. The
 * text the two share at their start and end is set aside first, so a long paste or deletion in one
 * place is one cheap step, not thousands of the diff's.
 */
function charEditsOf(base: string, changed: string): Edit[] | null {
  const { prefix, suffix } = commonEnds(base, changed);
  const removed = base.slice(prefix, base.length - suffix);
  const added = changed.slice(prefix, changed.length - suffix);
  if (removed === '' || added === '') return removed === added ? [] : [{ start: prefix, end: base.length - suffix, insert: added }];
  const parts = diffChars(removed, added, { maxEditLength: MAX_EDITS, timeout: DIFF_TIMEOUT_MS });
  if (!parts) return null;
  const edits: Edit[] = [];
  let at = prefix;
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

const inWord = (text: string, at: number) => at >= 0 && at < text.length && !/\s/.test(text[at]!);

/**
 * The edits that turn `base` into `changed`, in order; null if the diff gave up. An insertion
 * between words (typing goes on at a word's end, or a new word) stays where it is typed; any other
 * change takes in the whole words it touches, so two people's changes of one word meet as a clash
 * rather than as a mix of their letters.
 */
function editsOf(base: string, changed: string): Edit[] | null {
  const chars = charEditsOf(base, changed);
  if (!chars) return null;
  const edits: Edit[] = [];
  // Each edit in the making: its widened range and the character edits in it.
  let group: { start: number; end: number; parts: Edit[] } | undefined;
  const close = () => {
    if (!group) return;
    let insert = '';
    let at = group.start;
    for (const part of group.parts) {
      insert += base.slice(at, part.start) + part.insert;
      at = part.end;
    }
    edits.push({ start: group.start, end: group.end, insert: insert + base.slice(at, group.end) });
    group = undefined;
  };
  for (const edit of chars) {
    let { start, end } = edit;
    const between = start === end && !(inWord(base, start - 1) && inWord(base, start));
    if (!between) {
      while (inWord(base, start - 1)) start--;
      while (inWord(base, end)) end++;
    }
    if (group && start < group.end) {
      group.end = Math.max(group.end, end);
      group.parts.push(edit);
      continue;
    }
    close();
    group = { start, end, parts: [edit] };
  }
  close();
  return edits;
}

/**
 * Joins two insertions made at one place: on separate lines where they are lines (at a line's
 * start, or holding line breaks), else with a space.
 */
function joinInsertions(first: string, second: string, atLineStart: boolean): string {
  if (first === '' || second === '' || /\s$/.test(first) || /^\s/.test(second)) return first + second;
  return first + (atLineStart || /\n/.test(first + second) ? '\n' : ' ') + second;
}

const overlap = (a: Edit, b: Edit) =>
  // Ranges that share a character, or one inserting strictly inside the other's range.
  (a.start < b.end && b.start < a.end) ||
  (a.start === a.end && b.start < a.start && a.start < b.end) ||
  (b.start === b.end && a.start < b.start && b.start < a.end);

/**
 * What this person typed last, from `before` to `after` (their text as sent): the last insertion,
 * which the next merge keeps their typing attached to.
 */
export function lastTyped(before: string, after: string): string {
  const edits = charEditsOf(before, after) ?? [];
  for (let i = edits.length - 1; i >= 0; i--) if (edits[i]!.insert !== '') return edits[i]!.insert;
  return '';
}

/**
 * Merges `mine` and `theirs`, both changed from `base`. `typed` is what this person typed last
 * (lastTyped): where the base has it just before a place both insert at, their insertion goes first.
 */
export function mergeText(base: string, mine: string, theirs: string, typed = ''): TextMerge {
  return merge(base, mine, theirs, false, typed) as TextMerge;
}

/** With `strict`, any clash of the two changes (even two insertions at one place) gives null. */
function merge(base: string, mine: string, theirs: string, strict: boolean, typed: string): TextMerge | string | null {
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
      const atLineStart = base[a.start - 1] === '\n';
      const goesOn = typed !== '' && base.slice(0, a.start).endsWith(typed);
      const insert = goesOn ? joinInsertions(a.insert, b.insert, atLineStart) : joinInsertions(b.insert, a.insert, atLineStart);
      next = { start: a.start, end: a.start, insert };
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
  return merge(to, from, current, true, '') as string | null;
}
