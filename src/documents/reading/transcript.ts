// A video's transcript from an uploaded WebVTT (.vtt) or SubRip (.srt) file, parsed by
// @plussub/srt-vtt-parser. The transcript's text is its cues' text, one cue a line (markup such as
// <v Speaker>, <i> or {\an8} removed); each cue keeps where it stands in that text, so a chunk's
// char_start/char_end give the time it starts and ends, and each cue's start (chunkTimes).
import { parse } from '@plussub/srt-vtt-parser';
import { JobError } from '../../jobs/worker.js';

export interface Cue {
  startSeconds: number;
  endSeconds: number;
  /** Where the cue's text stands in the transcript's text. */
  charStart: number;
  charEnd: number;
}

export interface Transcript {
  text: string;
  cues: Cue[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', lrm: '', rlm: '' };

/** A cue's words: tags and styling codes removed, entities read, lines joined. */
const cueText = (raw: string): string =>
  raw
    .replace(/<[^>]*>/g, '')
    .replace(/\{\\[^}]*\}/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|lrm|rlm);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();

export function parseTranscript(file: string): Transcript {
  const source = file.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n');
  let entries: { from: number; to: number; text: string }[];
  try {
    entries = parse(source).entries;
  } catch {
    throw new JobError('The transcript could not be read as WebVTT or SubRip');
  }
  const cues: Cue[] = [];
  let text = '';
  for (const entry of entries) {
    const words = cueText(entry.text);
    if (words === '') continue;
    if (text !== '') text += '\n';
    cues.push({
      startSeconds: entry.from / 1000,
      endSeconds: entry.to / 1000,
      charStart: text.length,
      charEnd: text.length + words.length,
    });
    text += words;
  }
  if (cues.length === 0) throw new JobError('The transcript has no cues with text (is it a WebVTT or SubRip file?)');
  return { text, cues };
}

/** The index of the last cue starting at or before `at`. */
function cueAt(cues: Cue[], at: number): number {
  let lo = 0;
  let hi = cues.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cues[mid]!.charStart <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * When a passage of the transcript (char_start..char_end) is spoken: its first cue's start, its last
 * cue's end, and where each of its cues starts (`cues`: [char offset in the transcript, seconds]),
 * so a citation of a sentence inside the passage starts at its own cue.
 */
export function chunkTimes(
  cues: Cue[],
  charStart: number,
  charEnd: number,
): { start_seconds: number; end_seconds: number; cues: [number, number][] } {
  const first = cueAt(cues, charStart);
  const last = cueAt(cues, Math.max(charStart, charEnd - 1));
  return {
    start_seconds: cues[first]!.startSeconds,
    end_seconds: cues[last]!.endSeconds,
    cues: cues.slice(first, last + 1).map((cue) => [Math.max(cue.charStart, charStart), cue.startSeconds]),
  };
}
