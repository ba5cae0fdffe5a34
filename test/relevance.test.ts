// Chat relevance (src/text/relevance.ts) and the local answerer's choice of quotes, as pure modules:
// words that only ask ("does", "not", "why"…) make no sentence relevant. Counted, they drew the
// answerer to a sentence that merely denies something, quoted beside the passage the question is
// about (SciFact's claims are often "X does not…"; BENCHMARKS.md, "Chat grounding").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GroundingPassage } from '../src/providers/llm/chat-model.js';
import { composeAnswer } from '../src/providers/llm/local.js';
import type { CitablePassage } from '../src/text/citations.js';
import { rank, rankSentences, sentences } from '../src/text/relevance.js';

const QUESTION = 'Does aspirin not prevent strokes?';
const ABOUT = 'Aspirin prevents strokes in older adults.';
const DENIAL = 'This does not hold.';

describe('chat relevance', () => {
  test('a sentence sharing only question words with the question scores nothing', () => {
    const ranked = rank(QUESTION, [
      { item: 'about', text: ABOUT },
      { item: 'denial', text: DENIAL },
    ]);
    assert.deepEqual(
      ranked.map((r) => r.item),
      ['about'],
    );
  });

  test('the local answerer quotes and cites the passage the question is about, not a denial elsewhere', () => {
    const chunk: GroundingPassage = { chunkId: 'chunk-1', nodeId: 'node-1', source: 'Trial', text: ABOUT, primary: false };
    const note: GroundingPassage = { chunkId: null, nodeId: 'node-2', source: 'Memo', text: DENIAL, primary: false };
    const citable: CitablePassage[] = [{ chunkId: 'chunk-1', nodeId: 'node-1', source: 'Trial', content: ABOUT, metadata: {} }];
    const answer = composeAnswer(QUESTION, [chunk, note], citable);
    assert.equal(answer.text, `From the board:\n- "${ABOUT}" (Trial) [1]\n\nSources: Trial.`);
    assert.deepEqual(answer.sources, ['chunk-1']);
    assert.deepEqual([...answer.quotes], [[1, ABOUT]]);
  });

  test('ranking the sentences per passage gives every sentence ranked one by one: the same scores, in the same order', () => {
    // A seeded corpus: 300 passages of 1 to 12 sentences over a small vocabulary (so words repeat
    // across sentences and passages), some passages repeated, some boosted; 60 questions.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const vocabulary = (
      'aspirin stroke strokes prevent prevents cell cells tumour growth protein proteins gene genes trial trials ' +
      'mouse mice dose doses risk heart blood pressure insulin 2019 7 does not the of in and why'
    ).split(' ');
    const sentence = () =>
      `${Array.from({ length: 1 + next(14) }, () => vocabulary[next(vocabulary.length)]).join(' ')}${['.', '!', '?', '\n'][next(4)]}`;
    const texts = Array.from({ length: 300 }, () => Array.from({ length: 1 + next(12) }, sentence).join(' '));
    const passages = texts.map((text, index) => ({
      item: index,
      text: next(5) === 0 ? texts[next(index + 1)]! : text,
      boost: next(3) === 0 ? 1.5 : 1,
    }));
    for (let q = 0; q < 60; q++) {
      const question = Array.from({ length: 1 + next(6) }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const one = rank(
        question,
        passages.flatMap((p) => sentences(p.text).map((text, position) => ({ item: { item: p.item, position }, text, boost: p.boost }))),
      );
      const per = rankSentences(question, passages);
      assert.deepEqual(
        per.map((r) => ({ item: { item: r.item, position: r.position }, text: r.text, score: r.score })),
        one,
        question,
      );
    }
  });
});
