// Lexical relevance of board text to a question: sentences, stemmed content words, and a BM25-style
// score. Used by the local answerer to pick what to quote, and to rank notes for the prompts of
// remote models. Pure functions; profiles are cached per text because a board's notes are scored
// again on every question.
//
// The local answerer ranks every sentence of every passage (5,000 notes are some 50,000 sentences).
// Per passage it keeps its sentences' profiles and, per word, how many of its sentences hold it, so a
// question reads the corpus statistics per passage and scores only the sentences of passages that
// hold one of its words: the same scores and order as ranking each sentence, without stemming the
// board again once its sentences outnumber a cache of sentences: a reply in about a seventh of the
// time on SciFact's 5,183 abstracts (BENCHMARKS.md, "Chat grounding").
//
// Its words are its own, not search's (terms.ts): search's stop words keep "does", "not", "no",
// "when", "why", "will" and the like, and single letters, and so weigh sentences differently. With
// search's terms (commit d9be6ae to the fix) the answerer chose other sentences for some questions,
// often ones that merely deny something ("X does not…" is how many SciFact claims read), away from
// the passage it then cites: hit@5 on SciFact fell below the code before (BENCHMARKS.md, "Chat
// grounding").
import { stemmer } from 'stemmer';

/** Words that carry no subject of a question: the usual function words, and asking words ("tell", "explain"). */
const CHAT_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our she he so than that the their them then there these they this those to was we ' +
    'were what when where which who whom why will with would you your about any all also just more most some such ' +
    'tell say says said please know give show explain describe board note notes'
  ).split(' '),
);

/** Stemmed content words of a text, in order (a single character only when it is a digit). */
function chatTerms(text: string): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (CHAT_STOPWORDS.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    out.push(/^[a-z]+$/.test(word) ? stemmer(word) : word);
  }
  return out;
}

/** What scoring needs of a text: its term frequencies and its length in terms. */
interface Profile {
  tf: Map<string, number>;
  length: number;
}

/** A passage's sentences with their profiles, and per word the number of its sentences holding it. */
interface SentenceSet {
  sentences: string[];
  profiles: Profile[];
  holding: Map<string, number>;
  length: number;
}

// Caches keyed by the text itself: a board's notes are scored again on every question, so their
// profiles and sentences are computed once. Bounded; cleared when full (texts are short).
const CACHE_MAX = 20_000;
const CACHEABLE = 4096;
const profileCache = new Map<string, Profile>();
const sentenceCache = new Map<string, string[]>();
const sentenceSetCache = new Map<string, SentenceSet>();

function remember<T>(cache: Map<string, T>, text: string, value: T): T {
  if (text.length < CACHEABLE) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(text, value);
  }
  return value;
}

function profileOf(text: string): Profile {
  const list = chatTerms(text);
  const tf = new Map<string, number>();
  for (const t of list) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { tf, length: list.length };
}

function profile(text: string): Profile {
  return profileCache.get(text) ?? remember(profileCache, text, profileOf(text));
}

function sentenceSet(text: string): SentenceSet {
  const hit = sentenceSetCache.get(text);
  if (hit) return hit;
  const list = sentences(text);
  const profiles = list.map(profileOf);
  const holding = new Map<string, number>();
  let length = 0;
  for (const p of profiles) {
    length += p.length;
    for (const term of p.tf.keys()) holding.set(term, (holding.get(term) ?? 0) + 1);
  }
  return remember(sentenceSetCache, text, { sentences: list, profiles, holding, length });
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
  const wanted = [...new Set(chatTerms(question))];
  if (wanted.length === 0) return [];
  const profiles = candidates.map((c) => profile(c.text));
  const df = new Array<number>(wanted.length).fill(0);
  let totalLength = 0;
  for (const p of profiles) {
    totalLength += p.length;
    for (let w = 0; w < wanted.length; w++) if (p.tf.has(wanted[w]!)) df[w]!++;
  }
  const score = scorer(wanted, df, candidates.length, totalLength);
  const scored: Scored<T>[] = [];
  candidates.forEach((c, i) => {
    const s = score(profiles[i]!);
    if (s > 0) scored.push({ item: c.item, text: c.text, score: s * (c.boost ?? 1) });
  });
  return scored.sort((a, b) => b.score - a.score);
}

/**
 * `rank` over every sentence of the passages (`sentences()`), in passage order: the same scores and
 * order, each sentence with its passage's item and its position among the passage's sentences. The
 * statistics come per passage, and only the sentences of a passage holding a word of the question
 * are scored (no other can score above 0).
 */
export function rankSentences<T>(
  question: string,
  passages: { item: T; text: string; boost?: number }[],
): (Scored<T> & { position: number })[] {
  const wanted = [...new Set(chatTerms(question))];
  if (wanted.length === 0) return [];
  const sets = passages.map((p) => sentenceSet(p.text));
  const df = new Array<number>(wanted.length).fill(0);
  let count = 0;
  let totalLength = 0;
  for (const set of sets) {
    count += set.profiles.length;
    totalLength += set.length;
    for (let w = 0; w < wanted.length; w++) df[w]! += set.holding.get(wanted[w]!) ?? 0;
  }
  const score = scorer(wanted, df, count, totalLength);
  const scored: (Scored<T> & { position: number })[] = [];
  sets.forEach((set, i) => {
    if (!wanted.some((w) => set.holding.has(w))) return;
    const { item, boost = 1 } = passages[i]!;
    set.profiles.forEach((p, position) => {
      const s = score(p);
      if (s > 0) scored.push({ item, position, text: set.sentences[position]!, score: s * boost });
    });
  });
  return scored.sort((a, b) => b.score - a.score);
}

/** BM25 (k1 1.2, b 0.75) of a profile for the question's words, given their counts over n texts. */
function scorer(wanted: string[], df: number[], n: number, totalLength: number): (p: Profile) => number {
  const avg = totalLength / Math.max(1, n) || 1;
  const idf = df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  return (p) => {
    let score = 0;
    for (let w = 0; w < wanted.length; w++) {
      const tf = p.tf.get(wanted[w]!);
      if (tf === undefined) continue;
      score += (idf[w]! * tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * (p.length / avg)));
    }
    return score;
  };
}
