// A reference Okapi BM25 for the search-quality benchmark, deliberately independent of the service
// (nothing from src/): the figure the service's search modes are compared with, computed in the
// benchmark's own process over the same documents.
//   score(d, q) = sum over the distinct terms t of q of idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))
//   idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)),  k1 = 0.9, b = 0.4
// Analysis: lowercase, NFKD with the accents (combining marks) stripped, split on anything that is not
// a letter or a digit, English stop words (the `stopword` package's `eng` list) removed, Porter stems
// (the `stemmer` package).
import { stemmer } from 'stemmer';
import { eng } from 'stopword';

export const K1 = 0.9;
export const B = 0.4;

const STOP_WORDS = new Set(eng);

/** The terms of a text, in order, repeats kept. */
export function analyze(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '' && !STOP_WORDS.has(word))
    .map((word) => stemmer(word));
}

export class Bm25 {
  private readonly ids: string[];
  private readonly lengths: number[];
  private readonly averageLength: number;
  /** Term to the documents holding it (index into ids) with the term's frequency there. */
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();

  constructor(documents: { id: string; text: string }[]) {
    this.ids = documents.map((d) => d.id);
    this.lengths = documents.map((d, doc) => {
      const tf = new Map<string, number>();
      const terms = analyze(d.text);
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
      for (const [term, count] of tf) {
        const list = this.postings.get(term) ?? [];
        list.push({ doc, tf: count });
        this.postings.set(term, list);
      }
      return terms.length;
    });
    this.averageLength = this.lengths.reduce((sum, n) => sum + n, 0) / Math.max(1, documents.length);
  }

  idf(term: string): number {
    const n = this.ids.length;
    const df = this.postings.get(term)?.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** The ids of the k best-scoring documents holding a query term, best first (ties: corpus order). */
  search(query: string, k: number): string[] {
    const scores = new Map<number, number>();
    for (const term of new Set(analyze(query))) {
      const idf = this.idf(term);
      for (const { doc, tf } of this.postings.get(term) ?? []) {
        const norm = K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([doc]) => this.ids[doc]!);
  }
}
