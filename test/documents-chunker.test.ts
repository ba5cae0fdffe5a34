// Chunking: boundaries follow paragraphs and sentences, size and overlap hold, pages are kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { chunkPages, type PageText, type TextChunk } from '../src/documents/chunker.js';

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i}.`;

describe('chunkPages', () => {
  test('short text is one chunk, whitespace tidied', () => {
    const chunks = chunkPages([{ page: 1, text: '  Hello   world.\n\n\nSecond  paragraph. ' }], { size: 1000, overlap: 100 });
    assert.deepEqual(chunks, [
      { content: 'Hello world.\n\nSecond paragraph.', page: 1, charStart: 2, charEnd: 37, chunkIndex: 0, totalChunks: 1 },
    ]);
  });

  test('blank text gives no chunks', () => {
    assert.deepEqual(chunkPages([{ page: 1, text: ' \n\n \t' }], { size: 200, overlap: 20 }), []);
  });

  test('chunks end at sentence ends, stay within size and overlap by whole sentences', () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkPages([{ page: 1, text }], { size: 200, overlap: 60 });
    assert.ok(chunks.length > 5);
    for (const [i, c] of chunks.entries()) {
      assert.ok(c.content.length <= 200, `chunk ${i} is ${c.content.length} long`);
      assert.match(c.content, /^Sentence number \d+ .*\.$/, `chunk ${i} starts and ends on sentence boundaries`);
      assert.equal(c.chunkIndex, i);
      assert.equal(c.totalChunks, chunks.length);
    }
    // Each chunk after the first starts with the last sentence of the previous one (the overlap).
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1]!.content.split(/(?<=\.) /).pop()!;
      assert.ok(chunks[i]!.content.startsWith(lastOfPrevious), `chunk ${i} repeats "${lastOfPrevious}"`);
    }
    // Nothing is lost: every sentence appears somewhere.
    const all = chunks.map((c) => c.content).join(' ');
    for (let i = 0; i < 40; i++) assert.ok(all.includes(sentence(i)));
  });

  test('no overlap means each sentence appears exactly once', () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkPages([{ page: 1, text }], { size: 150, overlap: 0 });
    assert.equal(chunks.map((c) => c.content).join(' '), text);
  });

  test('paragraph breaks are preferred boundaries', () => {
    const para = (p: number) => Array.from({ length: 3 }, (_, i) => `Para ${p} line ${i}.`).join(' ');
    const text = [para(1), para(2), para(3)].join('\n\n');
    const chunks = chunkPages([{ page: 1, text }], { size: 60, overlap: 0 });
    assert.deepEqual(
      chunks.map((c) => c.content),
      [para(1), para(2), para(3)],
    );
  });

  test('a word longer than a chunk is cut hard, nothing is lost', () => {
    const long = 'x'.repeat(450);
    const chunks = chunkPages([{ page: 1, text: `start ${long} end` }], { size: 100, overlap: 0 });
    assert.ok(chunks.every((c) => c.content.length <= 100));
    assert.equal(
      chunks
        .map((c) => c.content)
        .join('')
        .replace(/ /g, ''),
      `start${long}end`,
    );
  });

  test('chunks keep their page and never span pages; indexes run across pages', () => {
    const pages = [1, 2, 3].map((page) => ({ page, text: Array.from({ length: 10 }, (_, i) => `Page ${page} sentence ${i}.`).join(' ') }));
    const chunks = chunkPages(pages, { size: 120, overlap: 30 });
    for (const c of chunks)
      assert.ok(
        c.content.split(/(?<=\.) /).every((s) => s.startsWith(`Page ${c.page} `)),
        c.content,
      );
    assert.deepEqual([...new Set(chunks.map((c) => c.page))], [1, 2, 3]);
    assert.deepEqual(
      chunks.map((c) => c.chunkIndex),
      chunks.map((_, i) => i),
    );
  });

  test('each chunk is the passage between its char_start and char_end, whitespace collapsed', () => {
    const text = `Intro  line.\n\n\tFirst sentence here.  Second one!\nThird?\n \nLast paragraph with ${'y'.repeat(70)} tail.`;
    const chunks = chunkPages([{ page: 1, text }], { size: 30, overlap: 12 });
    assert.ok(chunks.length > 4);
    for (const c of chunks) assertPassage([{ page: 1, text }], c);
    assert.equal(text.slice(chunks[0]!.charStart, chunks[0]!.charEnd), 'Intro  line.');
  });

  test('offsets hold for any text: pages, paragraphs, odd whitespace, long words, astral characters', () => {
    const word = fc.stringMatching(/^[a-zé😀.!?]{1,40}$/u);
    const gap = fc.constantFrom(' ', '  ', '\n', '\n\n', ' \n \n\t', '\u00a0', '. ');
    const pageText = fc.array(fc.tuple(word, gap), { maxLength: 60 }).map((parts) => parts.map(([w, g]) => w + g).join(''));
    fc.assert(
      fc.property(fc.array(pageText, { minLength: 1, maxLength: 3 }), fc.integer({ min: 20, max: 120 }), (texts, size) => {
        const pages = texts.map((text, i) => ({ page: i + 1, text }));
        for (const c of chunkPages(pages, { size, overlap: Math.floor(size / 3) })) assertPassage(pages, c);
      }),
    );
  });
});

/** The chunk's passage, its whitespace runs collapsed, is the chunk's content with paragraph breaks as spaces. */
function assertPassage(pages: PageText[], c: TextChunk): void {
  const text = pages.find((p) => p.page === c.page)!.text;
  const passage = text.slice(c.charStart, c.charEnd);
  assert.equal(passage.replace(/\s+/g, ' '), c.content.replace(/\s+/g, ' '), JSON.stringify({ text, c }));
  assert.equal(passage, passage.trim());
}
