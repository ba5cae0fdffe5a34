// Splits text into overlapping chunks for embedding. Boundaries follow the text's structure: a chunk
// ends at a paragraph break when it can, else at a sentence end, else at a word break, and only cuts
// a word that is longer than a whole chunk. Consecutive chunks share up to `overlap` characters
// (whole sentences where possible) so a thought cut at a boundary is still found. Chunks never span
// pages, so each carries the page it came from, and where it stands in its page's text: `charStart`
// and `charEnd` (UTF-16 offsets) bound the passage it was made from. Its content is that passage with
// each run of whitespace made one space, and a paragraph break (a blank line) made "\n\n".

import { setImmediate as yieldToLoop } from 'node:timers/promises';

const SLICE_MS = 8;

export interface ChunkOptions {
  /** Target maximum chunk length in characters. */
  size: number;
  /** Characters repeated from the end of one chunk at the start of the next. */
  overlap: number;
}

export interface PageText {
  page: number;
  text: string;
}

export interface TextChunk {
  content: string;
  page: number;
  /** Where the chunk's passage starts in its page's text (a UTF-16 index). */
  charStart: number;
  /** Where it ends (exclusive): `text.slice(charStart, charEnd)` is the passage. */
  charEnd: number;
  chunkIndex: number;
  totalChunks: number;
}

interface Unit {
  text: string;
  /** Starts a paragraph: joined with a blank line rather than a space. */
  paragraph: boolean;
  /** The unit's place in the page's text: its first character, and one past its last. */
  start: number;
  end: number;
}

const SENTENCE_END = /(?<=[.!?…。！？]["'”’)\]]*)\s+/u;

/**
 * One paragraph's units: the paragraph, else its sentences, else word runs, each at most `size`.
 * `at` is where the paragraph starts in the page's text: each unit's place there is found through
 * the words of the whitespace-collapsed paragraph, which keep their order and lengths.
 */
function paragraphUnits(paragraph: string, at: number, size: number): Unit[] {
  const out: Unit[] = [];
  const words = [...paragraph.matchAll(/\S+/g)];
  const clean = words.map((w) => w[0]).join(' ');
  if (clean === '') return out;
  // cleanStarts[k]: where word k starts in `clean`; its start in the paragraph is words[k].index.
  const cleanStarts: number[] = [];
  for (let k = 0, c = 0; k < words.length; c += words[k]![0].length + 1, k++) cleanStarts.push(c);
  const original = (c: number): number => {
    let lo = 0;
    let hi = cleanStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cleanStarts[mid]! <= c) lo = mid;
      else hi = mid - 1;
    }
    return at + words[lo]!.index + (c - cleanStarts[lo]!);
  };
  let first = true;
  let from = 0;
  const pieces = clean.length <= size ? [clean] : clean.split(SENTENCE_END);
  for (const sentence of pieces) {
    for (const piece of sentence.length <= size ? [sentence] : splitWords(sentence, size)) {
      // Pieces are consecutive in `clean`, apart by at most one space: the next match is this one.
      const begin = clean.indexOf(piece, from);
      from = begin + piece.length;
      out.push({ text: piece, paragraph: first, start: original(begin), end: original(from - 1) + 1 });
      first = false;
    }
  }
  return out;
}

/** Cuts an over-long sentence at spaces; a single word longer than `size` is cut hard. */
function splitWords(sentence: string, size: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of sentence.split(' ')) {
    for (let w = word; w.length > 0; ) {
      const room = current === '' ? size : size - current.length - 1;
      if (w.length <= room) {
        current = current === '' ? w : `${current} ${w}`;
        w = '';
      } else if (current !== '') {
        out.push(current);
        current = '';
      } else {
        out.push(w.slice(0, size));
        w = w.slice(size);
      }
    }
  }
  if (current !== '') out.push(current);
  return out;
}

const join = (parts: Unit[]) => parts.map((u, i) => (i === 0 ? u.text : (u.paragraph ? '\n\n' : ' ') + u.text)).join('');
const joinedLength = (parts: Unit[]) => parts.reduce((n, u, i) => n + u.text.length + (i === 0 ? 0 : u.paragraph ? 2 : 1), 0);

type PageChunk = Pick<TextChunk, 'content' | 'charStart' | 'charEnd'>;
const toChunk = (parts: Unit[]): PageChunk => ({ content: join(parts), charStart: parts[0]!.start, charEnd: parts.at(-1)!.end });

/** The page's paragraphs (split at blank lines) with where each starts in the text. */
function* paragraphs(text: string): Generator<{ paragraph: string; at: number }> {
  let at = 0;
  for (const gap of text.matchAll(/\n\s*\n/g)) {
    yield { paragraph: text.slice(at, gap.index), at };
    at = gap.index + gap[0].length;
  }
  yield { paragraph: text.slice(at), at };
}

/** Chunks one page; yields after each paragraph so a caller can pause between them. */
function* chunkPageSteps(text: string, { size, overlap }: ChunkOptions): Generator<void, PageChunk[]> {
  const chunks: PageChunk[] = [];
  let current: Unit[] = [];
  let fresh = 0; // units in `current` not carried over from the previous chunk
  for (const { paragraph, at } of paragraphs(text)) {
    for (const unit of paragraphUnits(paragraph, at, size)) {
      if (current.length > 0 && joinedLength([...current, unit]) > size) {
        chunks.push(toChunk(current));
        // Carry whole trailing units that fit in the overlap and leave room for the new unit.
        const carried: Unit[] = [];
        for (let i = current.length - 1; i >= 0; i--) {
          const candidate = [current[i]!, ...carried];
          if (joinedLength(candidate) > overlap || joinedLength([...candidate, unit]) > size) break;
          carried.unshift(current[i]!);
        }
        current = carried.map((u, i) => (i === 0 ? { ...u, paragraph: false } : u));
        fresh = 0;
      }
      current.push(unit);
      fresh++;
    }
    yield;
  }
  if (fresh > 0) chunks.push(toChunk(current));
  return chunks;
}

function* chunkSteps(pages: PageText[], options: ChunkOptions): Generator<void, TextChunk[]> {
  const flat: Omit<TextChunk, 'chunkIndex' | 'totalChunks'>[] = [];
  for (const { page, text } of pages) {
    for (const chunk of yield* chunkPageSteps(text, options)) flat.push({ ...chunk, page });
  }
  return flat.map((c, chunkIndex) => ({ ...c, chunkIndex, totalChunks: flat.length }));
}

export function chunkPages(pages: PageText[], options: ChunkOptions): TextChunk[] {
  const steps = chunkSteps(pages, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** chunkPages in slices of a few milliseconds, so chunking megabytes does not stall requests. */
export async function chunkPagesAsync(pages: PageText[], options: ChunkOptions, signal?: AbortSignal): Promise<TextChunk[]> {
  const steps = chunkSteps(pages, options);
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      signal?.throwIfAborted();
      sliceStart = performance.now();
    }
  }
}
