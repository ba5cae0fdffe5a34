// Synthetic documents for the search benchmarks: a seeded word-bigram Markov chain trained on the
// SciFact abstracts, so the text has a real vocabulary and word statistics (and SciFact claims make
// sensible queries), but any amount of it can be made and no two chunks are copies.
import { loadCorpus } from './search-quality-data.js';

/** mulberry32: a small seeded PRNG, so every run writes the same documents. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class TextGenerator {
  private readonly next = new Map<string, string[]>();
  private readonly starts: string[] = [];
  private readonly random: () => number;

  constructor(seed = 42) {
    this.random = prng(seed);
    for (const doc of loadCorpus()) {
      const words = `${doc.title}. ${doc.text}`.split(/\s+/).filter(Boolean);
      for (let i = 0; i < words.length; i++) {
        if (i === 0 || /[.!?]$/.test(words[i - 1]!)) this.starts.push(words[i]!);
        if (i + 1 < words.length) {
          const list = this.next.get(words[i]!);
          if (list) list.push(words[i + 1]!);
          else this.next.set(words[i]!, [words[i + 1]!]);
        }
      }
    }
  }

  private pick<T>(list: T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  sentence(): string {
    let word = this.pick(this.starts);
    const out = [word];
    while (!/[.!?]$/.test(word) && out.length < 40) {
      const candidates = this.next.get(word);
      if (!candidates) break;
      word = this.pick(candidates);
      out.push(word);
    }
    const text = out.join(' ');
    return /[.!?]$/.test(text) ? text : `${text}.`;
  }

  /** Paragraphs of 3 to 7 sentences, up to `maxChars` characters. */
  text(maxChars: number): string {
    const paragraphs: string[] = [];
    let length = 0;
    for (;;) {
      const paragraph = Array.from({ length: 3 + Math.floor(this.random() * 5) }, () => this.sentence()).join(' ');
      if (length + paragraph.length + 2 > maxChars) break;
      paragraphs.push(paragraph);
      length += paragraph.length + 2;
    }
    return paragraphs.join('\n\n');
  }
}
