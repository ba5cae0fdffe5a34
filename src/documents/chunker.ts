// Splits text into overlapping chunks for embedding. Boundaries follow the text's structure: a chunk
// ends at a paragraph break when it can, else at a sentence end, else at a word break, and only cuts
// a word that is longer than a whole chunk. Consecutive chunks share up to `overlap` characters
// (whole sentences where possible) so a thought cut at a boundary is still found. Chunks never span
// pages, so each carries the page it came from.

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
  chunkIndex: number;
  totalChunks: number;
}

interface Unit {
  text: string;
  /** Starts a paragraph: joined with a blank line rather than a space. */
  paragraph: boolean;
}

const SENTENCE_END = /(?<=[.!?…。！？]["'”’)\]]*)\s+/u;

/** One paragraph's units: the paragraph, else its sentences, else word runs, each at most `size`. */
function paragraphUnits(paragraph: string, size: number): Unit[] {
  const out: Unit[] = [];
  const clean = paragraph.replace(/\s+/g, ' ').trim();
  if (clean === '') return out;
  let first = true;
  const pieces = clean.length <= size ? [clean] : clean.split(SENTENCE_END);
  for (const sentence of pieces) {
    for (const piece of sentence.length <= size ? [sentence] : splitWords(sentence, size)) {
      out.push({ text: piece, paragraph: first });
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

/** Chunks one page; yields after each paragraph so a caller can pause between them. */
function* chunkPageSteps(text: string, { size, overlap }: ChunkOptions): Generator<void, string[]> {
  const chunks: string[] = [];
  let current: Unit[] = [];
  let fresh = 0; // units in `current` not carried over from the previous chunk
  for (const paragraph of text.split(/\n\s*\n/)) {
    for (const unit of paragraphUnits(paragraph, size)) {
      if (current.length > 0 && joinedLength([...current, unit]) > size) {
        chunks.push(join(current));
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
  if (fresh > 0) chunks.push(join(current));
  return chunks;
}

function* chunkSteps(pages: PageText[], options: ChunkOptions): Generator<void, TextChunk[]> {
  const flat: { content: string; page: number }[] = [];
  for (const { page, text } of pages) {
    for (const content of yield* chunkPageSteps(text, options)) flat.push({ content, page });
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
