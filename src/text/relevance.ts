// Lexical relevance of board text to a question: sentences, the text's terms (terms.ts, the same as
// search's, less the words of a question that name no subject), and a BM25-style score. Used by the
// local answerer to pick what to quote, and to rank notes for the prompts of remote models. Pure
// functions; profiles are cached per text because a board's notes are scored again on every question.
import { terms as searchTerms } from './terms.js';

/**
 * Words that ask rather than say ("does", "not", "why", "tell", "explain"…), which search's stop
 * words keep: a sentence sharing only these with the question is not about it. Counted, they drew
 * the local answerer to sentences that merely deny or ask something, away from the passage it then
 * cites (SciFact claims are often "X does not…"; BENCHMARKS.md, "Chat grounding").
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'does its no not she so when whom why will just tell say says please know give show explain describe board note notes'.split(' '),
);

/** The terms relevance scores: search's, without the question words. */
export function terms(text: string): string[] {
  return searchTerms(text, QUESTION_WORDS);
}

/** What scoring needs of a text: its term frequencies and its length in terms. */
interface Profile {
  tf: Map<string, number>;
  length: number;
}

// Caches keyed by the text itself: a board's notes are scored again on every question, so their
// profiles and sentences are computed once. Bounded; cleared when full (texts are short).
const CACHE_MAX = 20_000;
const CACHEABLE = 4096;
const profileCache = new Map<string, Profile>();
const sentenceCache = new Map<string, string[]>();

function remember<T>(cache: Map<string, T>, text: string, value: T): T {
  if (text.length < CACHEABLE) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(text, value);
  }
  return value;
}

function profile(text: string): Profile {
  const hit = profileCache.get(text);
  if (hit) return hit;
  const list = terms(text);
  const tf = new Map<string, number>();
  for (const t of list) tf.set(t, (tf.get(t) ?? 0) + 1);
  return remember(profileCache, text, { tf, length: list.length });
}

/** Sentences (and lines) of a text, trimmed, without empties. The array is shared: do not modify. */
export function sentences(text: string): string[] {
  const hit = sentenceCache.get(text);
  if (hit) return hit;
  const out = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 1);
  return remember(sentenceCache, text, out);
}

export interface Scored<T> {
  item: T;
  text: string;
  score: number;
}

/**
 * Scores each (item, text) pair against the question with BM25 (k1 1.2, b 0.75, idf over these
 * candidates); only pairs sharing a word score above 0. Costs one map lookup per question term and
 * candidate, since each text's term frequencies are cached.
 */
export function rank<T>(question: string, candidates: { item: T; text: string; boost?: number }[]): Scored<T>[] {
  const wanted = [...new Set(terms(question))];
  if (wanted.length === 0) return [];
  const profiles = candidates.map((c) => profile(c.text));
  const df = new Array<number>(wanted.length).fill(0);
  let totalLength = 0;
  for (const p of profiles) {
    totalLength += p.length;
    for (let w = 0; w < wanted.length; w++) if (p.tf.has(wanted[w]!)) df[w]!++;
  }
  const n = candidates.length;
  const avg = totalLength / Math.max(1, n) || 1;
  const idf = df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  const scored: Scored<T>[] = [];
  for (let i = 0; i < n; i++) {
    const p = profiles[i]!;
    let score = 0;
    for (let w = 0; w < wanted.length; w++) {
      const tf = p.tf.get(wanted[w]!);
      if (tf === undefined) continue;
      score += (idf[w]! * tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * (p.length / avg)));
    }
    const c = candidates[i]!;
    if (score > 0) scored.push({ item: c.item, text: c.text, score: score * (c.boost ?? 1) });
  }
  return scored.sort((a, b) => b.score - a.score);
}
