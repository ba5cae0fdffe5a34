// Citations of a chat reply (metadata.citations, aligned with metadata.sources: the marker `[n]`
// in the reply cites citations[n - 1]) and finding a cited passage where it stands: in a note's
// or document's text at char_start..char_end when the text there is still the quote, else wherever
// the quote is now; a video at its second; a pdf at its page.
import { createContext } from 'react';
import type { Message } from './board-api';

export interface Citation {
  n: number;
  chunk_id: string;
  node_id: string | null;
  quote: string;
  char_start?: number;
  char_end?: number;
  page?: number;
  start_seconds?: number;
}

/** A passage to show in its card: set by a click on a citation, read by the note, document and video cards. */
export interface FocusedPassage {
  nodeId: string;
  quote: string;
  start?: number;
  end?: number;
  seconds?: number;
  /** Changes on every click, so the same citation clicked again shows it again. */
  at: number;
}

export const FocusPassageContext = createContext<FocusedPassage | undefined>(undefined);

export function citationsOf(message: Pick<Message, 'metadata'>): Citation[] {
  const list = (message.metadata as { citations?: unknown } | null)?.citations;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (c): c is Citation =>
      typeof c === 'object' && c !== null && typeof c.n === 'number' && typeof c.quote === 'string' && typeof c.chunk_id === 'string',
  );
}

/** A marker `[n]` is not one right after a letter, digit or underscore (`x[1]` is an index), as the service reads it. */
const isMarkerAt = (content: string, index: number) => index === 0 || !/\w/.test(content[index - 1]!);

/** The reply's text and its markers, in order: a string is text, a number a marker `[n]`. */
export function splitMarkers(content: string): (string | number)[] {
  const out: (string | number)[] = [];
  let last = 0;
  for (const match of content.matchAll(/\[(\d{1,3})\]/g)) {
    if (!isMarkerAt(content, match.index)) continue;
    if (match.index > last) out.push(content.slice(last, match.index));
    out.push(Number(match[1]));
    last = match.index + match[0].length;
  }
  if (last < content.length) out.push(content.slice(last));
  return out;
}

/** The reply as a note's text: its markers go (the note's edges name the sources instead). */
export const withoutMarkers = (content: string): string =>
  content.replace(/( ?)\[\d{1,3}\]/g, (marker, space: string, index: number) => (isMarkerAt(content, index + space.length) ? '' : marker));

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where the passage stands in `text` now: its recorded place if the quote is still there, else the quote found again. */
export function findPassage(
  text: string,
  passage: Pick<FocusedPassage, 'quote' | 'start' | 'end'>,
): { start: number; end: number } | undefined {
  const { quote, start, end } = passage;
  if (start !== undefined && end !== undefined && text.slice(start, end) === quote) return { start, end };
  const q = quote.trim();
  if (!q) return undefined;
  const exact = text.indexOf(q);
  if (exact >= 0) return { start: exact, end: exact + q.length };
  const words = q.split(/\s+/).slice(0, 200).map(escapeRegExp);
  const found = new RegExp(words.join('\\s+')).exec(text);
  return found ? { start: found.index, end: found.index + found[0].length } : undefined;
}

/** A video player's address starting at `seconds`: YouTube's `start`, Vimeo's `#t`. */
export function playerAt(embedUrl: string, provider: 'youtube' | 'vimeo', seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return embedUrl;
  const whole = Math.floor(seconds);
  return provider === 'youtube' ? `${embedUrl}&start=${whole}` : `${embedUrl}#t=${whole}s`;
}
