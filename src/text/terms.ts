// How text becomes terms for search: chunks and queries (their sparse vectors and the term index,
// src/documents/lexical.ts). The relevance of board text to a chat question (relevance.ts) has
// word rules of its own, on purpose: with these, the local answerer quoted other sentences and its
// grounding on SciFact fell (BENCHMARKS.md, "Chat grounding"). Words are lower-cased, stripped of accents, English stop words
// (the stopword package's list) left out, and Porter-stemmed. What chunks store was computed with
// these terms: changing them changes what a query matches until every board is embedded again.
import { stemmer } from 'stemmer';
import { eng } from 'stopword';

const STOP = new Set(eng);

export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && w.length <= 40);
}

// Stemming is the costly part and text repeats its words: memoised, bounded, emptied when full.
const STEM_CACHE_MAX = 200_000;
const stems = new Map<string, string | null>();

/** The text's terms in order: Porter stems of its words, English stop words left out. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of tokenize(text)) {
    let stem = stems.get(word);
    if (stem === undefined) {
      stem = STOP.has(word) ? null : stemmer(word);
      if (stems.size >= STEM_CACHE_MAX) stems.clear();
      stems.set(word, stem);
    }
    if (stem !== null) out.push(stem);
  }
  return out;
}
