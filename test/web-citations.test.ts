// The web app's reading of citations (web/src/board/citations.ts): markers split out of a reply's
// text (an index after a word is not one), a reply made a note's text, a cited passage found where
// it stands or, after the text changed, wherever its quote is now, and a video player's start time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWebModule } from './helpers/web-module.js';

type Passage = { quote: string; start?: number; end?: number };
const web = await loadWebModule<{
  splitMarkers(content: string): (string | number)[];
  withoutMarkers(content: string): string;
  findPassage(text: string, passage: Passage): { start: number; end: number } | undefined;
  playerAt(embedUrl: string, provider: 'youtube' | 'vimeo', seconds: number | undefined): string;
}>('web/src/board/citations.ts');

test('markers split out of the text; x[1] stays text', () => {
  assert.deepEqual(web.splitMarkers('Tides rise [1][2]. See a[3].'), ['Tides rise ', 1, 2, '. See a[3].']);
  assert.equal(web.withoutMarkers('Tides rise [1][2]. See a[3].'), 'Tides rise. See a[3].');
});

test('a passage at its recorded place, else found again, else nothing', () => {
  const text = 'Intro.\nSea anemones eat plankton.';
  assert.deepEqual(web.findPassage(text, { quote: 'Sea anemones eat plankton.', start: 7, end: 33 }), { start: 7, end: 33 });
  const moved = `New line.\n${text}`;
  assert.deepEqual(web.findPassage(moved, { quote: 'Sea anemones eat plankton.', start: 7, end: 33 }), { start: 17, end: 43 });
  assert.deepEqual(web.findPassage('Sea  anemones\neat plankton.', { quote: 'Sea anemones eat plankton.' }), { start: 0, end: 27 });
  assert.equal(web.findPassage('Nothing here.', { quote: 'Sea anemones eat plankton.' }), undefined);
});

test("a video plays from the cited second (YouTube's start, Vimeo's #t)", () => {
  assert.equal(
    web.playerAt('https://www.youtube-nocookie.com/embed/abc?autoplay=1&rel=0', 'youtube', 62.7),
    'https://www.youtube-nocookie.com/embed/abc?autoplay=1&rel=0&start=62',
  );
  assert.equal(
    web.playerAt('https://player.vimeo.com/video/1?dnt=1&autoplay=1', 'vimeo', 90),
    'https://player.vimeo.com/video/1?dnt=1&autoplay=1#t=90s',
  );
  assert.equal(web.playerAt('https://x/embed', 'youtube', undefined), 'https://x/embed');
});
