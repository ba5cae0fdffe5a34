// The local embedder: no network, no model file, deterministic. A text becomes a hashed bag of
// features (signed feature hashing into `dimensions` buckets), then L2-normalised:
// - word stems (Porter stemmer, English stop words removed), sublinear term frequency;
// - bigrams of consecutive stems, so phrases weigh more than scattered words;
// - character n-grams of each word, so subwords and spelling variants still meet.
// Work is cut into slices with a yield to the event loop between them, so embedding a large input
// does not stall HTTP requests.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';
import type { Embedder } from './embedder.js';

const STOP = new Set(eng);
const SLICE_MS = 8;

const UNIGRAM = 1.0;
const BIGRAM = 0.5;
const CHARGRAM = 0.25;

/** FNV-1a, 32 bits. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && w.length <= 40);
}

export class LocalEmbedder implements Embedder {
  readonly model: string;

  constructor(readonly dimensions: number) {
    this.model = `local-hash-v1-${dimensions}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    let sliceStart = Date.now();
    for (const text of texts) {
      if (Date.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        signal?.throwIfAborted();
        sliceStart = Date.now();
      }
      out.push(this.embedOne(text));
    }
    return out;
  }

  embedOne(text: string): number[] {
    const features = new Map<string, number>();
    const add = (key: string, weight: number) => features.set(key, (features.get(key) ?? 0) + weight);
    let previous: string | undefined;
    for (const word of tokenize(text)) {
      if (STOP.has(word)) {
        previous = undefined;
        continue;
      }
      const stem = stemmer(word);
      add(`w:${stem}`, UNIGRAM);
      if (previous !== undefined) add(`b:${previous} ${stem}`, BIGRAM);
      previous = stem;
      if (word.length >= 5 && !/^\d+$/.test(word)) {
        const padded = `<${word}>`;
        const grams: string[] = [];
        for (let i = 0; i + 4 <= padded.length; i++) grams.push(padded.slice(i, i + 4));
        for (const g of grams) add(`c:${g}`, CHARGRAM / grams.length);
      }
    }
    const vector = new Float64Array(this.dimensions);
    for (const [key, count] of features) {
      // Sublinear frequency: a word said ten times is not ten times as telling.
      const weight = key.startsWith('c:') ? count : 1 + Math.log(count);
      const h = hash(key);
      vector[h % this.dimensions]! += h & 0x80000000 ? -weight : weight;
    }
    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    const result = new Array<number>(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) result[i] = norm > 0 ? vector[i]! / norm : 0;
    return result;
  }
}
