// Splits text into overlapping chunks for embedding. Boundaries follow the text's structure: a chunk
// ends at a paragraph break when it can, else at a sentence end, else at a word break, and only cuts
// a word that is longer than a whole chunk. Consecutive chunks share up to `overlap` characters
// (whole sentences where possible) so a thought cut at a boundary is still found. Chunks never span
// pages, so each carries the page it came from.

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

/** Paragraphs, then sentences, then word runs, each at most `size` characters. */
function units(text: string, size: number): Unit[] {
  const out: Unit[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const clean = paragraph.replace(/\s+/g, ' ').trim();
    if (clean === '') continue;
    let first = true;
    const pieces = clean.length <= size ? [clean] : clean.split(SENTENCE_END);
    for (const sentence of pieces) {
      for (const piece of sentence.length <= size ? [sentence] : splitWords(sentence, size)) {
        out.push({ text: piece, paragraph: first });
        first = false;
      }
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

function chunkPage(text: string, { size, overlap }: ChunkOptions): string[] {
  const all = units(text, size);
  const chunks: string[] = [];
  let current: Unit[] = [];
  let fresh = 0; // units in `current` not carried over from the previous chunk
  for (const unit of all) {
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
  if (fresh > 0) chunks.push(join(current));
  return chunks;
}

export function chunkPages(pages: PageText[], options: ChunkOptions): TextChunk[] {
  const flat = pages.flatMap(({ page, text }) => chunkPage(text, options).map((content) => ({ content, page })));
  return flat.map((c, chunkIndex) => ({ ...c, chunkIndex, totalChunks: flat.length }));
}
