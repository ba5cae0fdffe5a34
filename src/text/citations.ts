// Citations of a reply: the numbered passages (document chunks) a model may cite, the markers `[n]`
// in the reply's text, and the `metadata.citations` each marker resolves to. Every provider's text
// passes through one CitationMarkers filter while it streams: markers naming no passage are dropped,
// the others renumbered in the order they are first cited, so `[n]` in the stored content (and in
// the streamed deltas, which concatenate to it) refers to `metadata.sources[n-1]`. A citation's
// `quote` is always an exact substring of its chunk's content: the model's own quote when it is
// found there (Anthropic's cited_text, the local answerer's sentence), else the chunk's sentence
// closest to the claim the marker ends.
import type { Citation } from '../contract/chats.js';
import { rank, sentences } from './relevance.js';

/** A chunk placed in the prompt as passage number (index + 1). */
export interface CitablePassage {
  chunkId: string;
  nodeId: string | null;
  source: string;
  content: string;
  /** The chunk's stored metadata: char_start, page, sourceType, start_seconds when present. */
  metadata: Record<string, unknown>;
}

/**
 * `[1]`, `[2, 3]`: a marker group, unless it follows a letter, digit or underscore (`x[1]` is an
 * index in code, never a citation); anything else in brackets is plain text.
 */
const MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;
/** The tail of a text that may still become a marker when more text arrives (with the space before it). */
const PARTIAL = /\s*\[[\d,\s]{0,20}$/;

/**
 * Rewrites markers as the text streams. `push` returns the text that is safe to show now (a
 * possible marker is held back until it closes), `end` the rest.
 */
export class CitationMarkers {
  /** Prompt passage numbers in the order first cited (the reply's numbering). */
  readonly cited: number[] = [];
  /** For each prompt passage number: the text of the claim its first marker ends. */
  readonly claims = new Map<number, string>();
  private held = '';
  /** Shown text since the last marker, for the claim of the next one. */
  private claim = '';
  /** The last character shown, for a marker at the start of the next piece. */
  private last = '';

  constructor(private readonly count: number) {}

  push(text: string): string {
    const all = this.held + text;
    const partial = PARTIAL.exec(all);
    const ready = partial ? all.slice(0, partial.index) : all;
    this.held = partial ? all.slice(partial.index) : '';
    return this.rewrite(ready);
  }

  end(): string {
    const rest = this.rewrite(this.held);
    this.held = '';
    return rest;
  }

  private rewrite(text: string): string {
    let out = '';
    let last = 0;
    for (const match of text.matchAll(MARKER)) {
      const previous = match.index > 0 ? text[match.index - 1]! : this.last;
      if (/\w/.test(previous)) continue;
      const before = text.slice(last, match.index);
      out += before;
      this.claim += before;
      last = match.index + match[0].length;
      const numbers = match[1]!.split(',').map((s) => Number(s.trim()));
      const kept = numbers.filter((n) => n >= 1 && n <= this.count);
      if (kept.length === 0) {
        // A marker naming no passage goes, with the space before it.
        if (out.endsWith(' ')) out = out.slice(0, -1);
        continue;
      }
      const renumbered = [...new Set(kept)].map((n) => {
        if (!this.cited.includes(n)) {
          this.cited.push(n);
          this.claims.set(n, this.claim.slice(-600));
        }
        return this.cited.indexOf(n) + 1;
      });
      out += renumbered.map((n) => `[${n}]`).join('');
      this.claim = '';
    }
    const after = text.slice(last);
    this.claim += after;
    out += after;
    if (text) this.last = text.at(-1)!;
    return out;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where `quote` stands in `content`: exactly, else with any run of white space matching any other. */
export function locate(quote: string, content: string): { index: number; text: string } | undefined {
  const q = quote.trim();
  if (!q) return undefined;
  const exact = content.indexOf(q);
  if (exact >= 0) return { index: exact, text: q };
  const words = q.split(/\s+/).map(escapeRegExp);
  if (words.length > 200) return undefined;
  const found = new RegExp(words.join('\\s+')).exec(content);
  return found ? { index: found.index, text: found[0] } : undefined;
}

/** The chunk's sentence closest to the claim (its first sentence when none shares a word). */
function bestSentence(claim: string, content: string): string {
  const candidates = sentences(content).map((s) => ({ item: s, text: s }));
  return rank(claim, candidates)[0]?.item ?? candidates[0]?.item ?? content;
}

const integer = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/**
 * When the quote starting at `at` (a char_start) is spoken: the start of the last of the chunk's
 * cues starting at or before it, else the chunk's start_seconds (chunks read before cues were kept).
 */
function secondsAt(metadata: Record<string, unknown>, at: number | undefined): number | undefined {
  const chunkStart = metadata.start_seconds;
  let seconds = typeof chunkStart === 'number' && Number.isFinite(chunkStart) ? chunkStart : undefined;
  if (seconds === undefined || at === undefined || !Array.isArray(metadata.cues)) return seconds;
  for (const cue of metadata.cues as unknown[]) {
    if (!Array.isArray(cue) || typeof cue[0] !== 'number' || typeof cue[1] !== 'number' || !Number.isFinite(cue[1])) continue;
    if (cue[0] > at) break;
    seconds = cue[1];
  }
  return seconds;
}

/** One citation for passage `passage`, numbered `n` in the reply. */
export function citationOf(n: number, passage: CitablePassage, quote: string | undefined, claim: string): Citation {
  const content = passage.content;
  const spot = (quote && locate(quote, content)) || locate(bestSentence(claim, content), content) || { index: 0, text: content };
  const citation: Citation = { n, chunk_id: passage.chunkId, node_id: passage.nodeId, quote: spot.text };
  const start = integer(passage.metadata.char_start);
  if (start !== undefined) {
    citation.char_start = start + spot.index;
    citation.char_end = citation.char_start + spot.text.length;
  }
  const page = integer(passage.metadata.page);
  if (page !== undefined && passage.metadata.sourceType === 'pdf') citation.page = page;
  const seconds = secondsAt(passage.metadata, citation.char_start);
  if (seconds !== undefined) citation.start_seconds = seconds;
  return citation;
}

/** The reply's sources (chunk ids, in the reply's numbering) and their citations. */
export function resolveCitations(
  markers: CitationMarkers,
  citable: CitablePassage[],
  quotes: Map<number, string>,
): { sources: string[]; citations: Citation[] } {
  const citations = markers.cited.map((p, i) => citationOf(i + 1, citable[p - 1]!, quotes.get(p), markers.claims.get(p) ?? ''));
  return { sources: citations.map((c) => c.chunk_id), citations };
}
