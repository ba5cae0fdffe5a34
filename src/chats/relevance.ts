// Lexical relevance of board text to a question: sentences, stemmed content words, and a
// BM25-style score. Used by the local answerer to pick what to quote, and to rank notes for the
// prompts of remote models. Pure functions; term lists are cached per text because a board's notes
// are scored again on every question.
import { stemmer } from 'stemmer';

const STOPWORDS = new Set((
  'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
  'me my no not of on or our she he so than that the their them then there these they this those to was we ' +
  'were what when where which who whom why will with would you your about any all also just more most some such ' +
  'tell say says said please know give show explain describe board note notes'
).split(' '));

const cache = new Map<string, string[]>();
const CACHE_MAX = 50_000;

/** Stemmed content words of a text, in order. */
export function terms(text: string): string[] {
  const hit = cache.get(text);
  if (hit) return hit;
  const out: string[] = [];
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOPWORDS.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    out.push(/^[a-z]+$/.test(word) ? stemmer(word) : word);
  }
  if (text.length < 4096) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(text, out);
  }
  return out;
}

/** Sentences (and lines) of a text, trimmed, without empties. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 1);
}

export interface Scored<T> {
  item: T;
  text: string;
  score: number;
}

/** Scores each (item, text) pair against the question; only pairs sharing a word score above 0. */
export function rank<T>(question: string, candidates: { item: T; text: string; boost?: number }[]): Scored<T>[] {
  const wanted = [...new Set(terms(question))];
  if (wanted.length === 0) return [];
  const termLists = candidates.map((c) => terms(c.text));
  const df = new Map<string, number>(wanted.map((t) => [t, 0]));
  let totalLength = 0;
  for (const list of termLists) {
    totalLength += list.length;
    const seen = new Set(list);
    for (const t of wanted) if (seen.has(t)) df.set(t, df.get(t)! + 1);
  }
  const n = candidates.length;
  const avg = totalLength / Math.max(1, n) || 1;
  const scored: Scored<T>[] = [];
  candidates.forEach((c, i) => {
    const list = termLists[i]!;
    let score = 0;
    for (const t of wanted) {
      let tf = 0;
      for (const x of list) if (x === t) tf++;
      if (tf === 0) continue;
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * (list.length / avg)));
    }
    if (score > 0) scored.push({ item: c.item, text: c.text, score: score * (c.boost ?? 1) });
  });
  return scored.sort((a, b) => b.score - a.score);
}
