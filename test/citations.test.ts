// The citation markers filter and the quote's place (src/text/citations.ts), as a pure module:
// markers split across deltas, markers naming no passage dropped, renumbering in first-cited order,
// and a quote's character offsets from the chunk's char_start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CitablePassage, CitationMarkers, citationOf, locate, resolveCitations } from '../src/text/citations.js';

const passage = (content: string, metadata: Record<string, unknown> = {}, n = 1): CitablePassage => ({
  chunkId: `chunk-${n}`,
  nodeId: `node-${n}`,
  source: `source ${n}`,
  content,
  metadata,
});

function run(count: number, pieces: string[]): { text: string; shown: string[]; markers: CitationMarkers } {
  const markers = new CitationMarkers(count);
  const shown = pieces.map((p) => markers.push(p));
  shown.push(markers.end());
  return { text: shown.join(''), shown, markers };
}

describe('citation markers', () => {
  test('markers are renumbered in the order first cited; a marker naming no passage goes', () => {
    const { text, markers } = run(3, ['Mice sleep [3]. Cats', ' hunt [1][3]. Dogs bark [7].']);
    assert.equal(text, 'Mice sleep [1]. Cats hunt [2][1]. Dogs bark.');
    assert.deepEqual(markers.cited, [3, 1]);
    assert.equal(markers.claims.get(3), 'Mice sleep ');
    assert.equal(markers.claims.get(1), '. Cats hunt ');
  });

  test('a marker split across deltas is held back until it closes, never shown half', () => {
    const { text, shown } = run(2, ['It is so [', '2', '] and [1', ', 2] but [a] stays [', '10', '0] end [']);
    assert.equal(text, 'It is so [1] and [2][1] but [a] stays end [');
    assert.ok(!shown.slice(0, -1).some((s) => /\[\d*$/.test(s)), 'no piece ends inside a marker');
  });

  test('a reply without markers (an index after a word is not one) passes through unchanged', () => {
    const { text, markers } = run(2, ['Arrays [like this] and x[i] ', 'and a', '[1] are plain.']);
    assert.equal(text, 'Arrays [like this] and x[i] and a[1] are plain.');
    assert.deepEqual(markers.cited, []);
  });
});

describe('quotes', () => {
  test('locate finds a quote exactly, or with its white space normalised', () => {
    assert.deepEqual(locate('beta gamma', 'alpha beta gamma'), { index: 6, text: 'beta gamma' });
    assert.deepEqual(locate('beta gamma', 'alpha beta\n  gamma'), { index: 6, text: 'beta\n  gamma' });
    assert.equal(locate('delta', 'alpha beta'), undefined);
  });

  test("a citation's quote is a substring of its chunk, its offsets the chunk's char_start plus the quote's index", () => {
    const content = 'Zinc helps. Vitamin C shortens colds in athletes.\nSleep matters.';
    const c = citationOf(
      2,
      passage(content, { char_start: 100, page: 4, sourceType: 'pdf', start_seconds: 12.5 }),
      undefined,
      'colds athletes',
    );
    assert.equal(c.quote, 'Vitamin C shortens colds in athletes.');
    assert.equal(content.indexOf(c.quote), 12);
    assert.equal(c.char_start, 112);
    assert.equal(c.char_end, 112 + c.quote.length);
    assert.equal(c.page, 4);
    assert.equal(c.start_seconds, 12.5);
    assert.equal(c.n, 2);
  });

  test("a transcript chunk's citation starts at the cue its quote stands in, else at the chunk's start", () => {
    // Two cues in one chunk (char_start 40 in the transcript): the second starts at offset 61, 72 s.
    const content = 'Welcome to the reef.\nA parrotfish makes white sand.';
    const metadata = {
      char_start: 40,
      start_seconds: 5,
      end_seconds: 76,
      cues: [
        [40, 5],
        [61, 72],
      ],
    };
    const c = citationOf(1, passage(content, metadata), undefined, 'parrotfish sand');
    assert.equal(c.quote, 'A parrotfish makes white sand.');
    assert.equal(c.char_start, 61);
    assert.equal(c.start_seconds, 72);
    assert.equal(citationOf(1, passage(content, metadata), undefined, 'welcome reef').start_seconds, 5);
    const { cues: _, ...older } = metadata;
    assert.equal(citationOf(1, passage(content, older), undefined, 'parrotfish sand').start_seconds, 5);
  });

  test("the model's own quote is used when the chunk holds it; chunks without offsets give none", () => {
    const c = citationOf(1, passage('One two three. Four five six.'), 'Four  five six.', 'one');
    assert.equal(c.quote, 'Four five six.');
    assert.equal(c.char_start, undefined);
    assert.equal(c.page, undefined, 'page only for pdf chunks');
  });

  test('resolveCitations aligns sources and citations with the markers', () => {
    const markers = new CitationMarkers(2);
    markers.push('Sleep matters [2]. Zinc helps [1].');
    markers.end();
    const citable = [passage('Zinc helps colds.', {}, 1), passage('Sleep matters most.', { char_start: 0 }, 2)];
    const { sources, citations } = resolveCitations(markers, citable, new Map());
    assert.deepEqual(sources, ['chunk-2', 'chunk-1']);
    assert.deepEqual(
      citations.map((c) => [c.n, c.chunk_id, c.quote]),
      [
        [1, 'chunk-2', 'Sleep matters most.'],
        [2, 'chunk-1', 'Zinc helps colds.'],
      ],
    );
  });
});
