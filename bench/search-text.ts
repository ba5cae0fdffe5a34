// Synthetic documents for the search benchmarks, made from the SciFact abstracts with seeded word-
// bigram Markov chains, so any amount of text can be made with a real vocabulary and no two chunks
// are copies (SciFact claims then make sensible queries). Two kinds:
// - `topical` (default): a board of documents on topics, like real ones. Each document follows one
//   abstract's own chain (85% of steps; the rest through the whole corpus's chain) for about 15,000
//   characters, so its chunks are variations on that abstract's subject and the corpus has about
//   5,000 topics of ~20 chunks each.
// - `uniform`: every step through the whole corpus's chain: word salad with the corpus's
//   statistics, every chunk about everything. Near neighbours are barely nearer than the rest, the
//   hardest case for an approximate index (reported separately in BENCHMARKS.md).
import { prng } from './lib/prng.js';
import { loadCorpus } from './search-quality-data.js';

export type TextKind = 'topical' | 'uniform';

interface Chain {
  next: Map<string, string[]>;
  starts: string[];
}

function train(texts: string[]): Chain {
  const chain: Chain = { next: new Map(), starts: [] };
  for (const text of texts) {
    const words = text.split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      if (i === 0 || /[.!?]$/.test(words[i - 1]!)) chain.starts.push(words[i]!);
      if (i + 1 < words.length) {
        const list = chain.next.get(words[i]!);
        if (list) list.push(words[i + 1]!);
        else chain.next.set(words[i]!, [words[i + 1]!]);
      }
    }
  }
  return chain;
}

const DOCUMENT_CHARS = 15_000;
const TOPIC_STEP = 0.85;

export class TextGenerator {
  private readonly global: Chain;
  private readonly abstracts: string[];
  private readonly order: number[];
  private nextTopic = 0;
  private readonly random: () => number;

  constructor(
    seed = 42,
    private readonly kind: TextKind = 'topical',
  ) {
    this.random = prng(seed);
    this.abstracts = loadCorpus().map((doc) => `${doc.title}. ${doc.text}`);
    this.global = train(this.abstracts);
    // The topics in a seeded random order.
    this.order = this.abstracts.map((_, i) => i);
    for (let i = this.order.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [this.order[i], this.order[j]] = [this.order[j]!, this.order[i]!];
    }
  }

  private pick<T>(list: T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  private sentence(topic: Chain | undefined): string {
    let word = this.pick((topic ?? this.global).starts);
    const out = [word];
    while (!/[.!?]$/.test(word) && out.length < 40) {
      const local = topic?.next.get(word);
      const candidates = local && this.random() < TOPIC_STEP ? local : this.global.next.get(word);
      if (!candidates) break;
      word = this.pick(candidates);
      out.push(word);
    }
    const text = out.join(' ');
    return /[.!?]$/.test(text) ? text : `${text}.`;
  }

  private paragraph(topic: Chain | undefined): string {
    return Array.from({ length: 3 + Math.floor(this.random() * 5) }, () => this.sentence(topic)).join(' ');
  }

  /** Paragraphs up to `maxChars` characters: documents of about 15,000 characters, one topic each. */
  text(maxChars: number): string {
    const paragraphs: string[] = [];
    let length = 0;
    let topic: Chain | undefined;
    let topicChars = Infinity;
    for (;;) {
      if (this.kind === 'topical' && topicChars >= DOCUMENT_CHARS) {
        topic = train([this.abstracts[this.order[this.nextTopic++ % this.order.length]!]!]);
        topicChars = 0;
      }
      const paragraph = this.paragraph(topic);
      if (length + paragraph.length + 2 > maxChars) break;
      paragraphs.push(paragraph);
      length += paragraph.length + 2;
      topicChars += paragraph.length + 2;
    }
    return paragraphs.join('\n\n');
  }
}
