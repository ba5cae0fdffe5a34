// Chat relevance (src/text/relevance.ts) and the local answerer's choice of quotes, as pure modules:
// words that only ask ("does", "not", "why"…) make no sentence relevant. Counted, they drew the
// answerer to a sentence that merely denies something, quoted beside the passage the question is
// about (SciFact's claims are often "X does not…"; BENCHMARKS.md, "Chat grounding").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GroundingPassage } from '../src/providers/llm/chat-model.js';
import { composeAnswer } from '../src/providers/llm/local.js';
import type { CitablePassage } from '../src/text/citations.js';
import { rank } from '../src/text/relevance.js';

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
});
