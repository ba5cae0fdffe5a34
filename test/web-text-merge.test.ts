// The web app's merge of a note's text (web/src/board/canvas/edits/text-merge.ts): two people's
// changes from one starting text, and an undo applied to a text others changed since. The browser
// tests (test/e2e/editing.test.ts) type into one note from two pages; these are the cases one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastTyped, mergeText, revertText } from '../web/src/board/canvas/edits/text-merge.js';

test('changes to different words both survive', () => {
  const base = 'The quick brown fox jumps over the lazy dog.';
  const mine = 'The quick red fox jumps over the lazy dog.';
  const theirs = 'The quick brown fox jumps over the sleepy dog.';
  assert.deepEqual(mergeText(base, mine, theirs), { text: 'The quick red fox jumps over the sleepy dog.', clean: true });
});

test('two sentences typed at one place are both kept, theirs first', () => {
  assert.deepEqual(mergeText('', 'Alice wrote this.', 'Bob wrote that.'), {
    text: 'Bob wrote that. Alice wrote this.',
    clean: true,
  });
  assert.deepEqual(mergeText('Notes:', 'Notes: first', 'Notes: second'), { text: 'Notes: second first', clean: true });
  assert.deepEqual(mergeText('List\n', 'List\n- mine', 'List\n- theirs'), {
    text: 'List\n- theirs\n- mine',
    clean: true,
  });
});

test("a person's typing sent in two parts stays whole when another person's sentence came between the parts", () => {
  // Alice's first part is on the service; Bob's sentence (typed at the end of "Plan:") was merged
  // after it; Alice's second part goes on from her first, not after Bob's sentence.
  const typed = lastTyped('Plan:', 'Plan: Alice brings the');
  assert.equal(typed, ' Alice brings the');
  const base = 'Plan: Alice brings the';
  const mine = 'Plan: Alice brings the maps.';
  const theirs = 'Plan: Alice brings the Bob brings the food.';
  assert.deepEqual(mergeText(base, mine, theirs, typed), { text: 'Plan: Alice brings the maps. Bob brings the food.', clean: true });
  // Without knowing what this person typed last, theirs goes first (the order two people starting
  // at one place get).
  assert.equal(mergeText(base, mine, theirs).text, 'Plan: Alice brings the Bob brings the food. maps.');
  // What this person typed last is elsewhere: theirs first.
  assert.equal(mergeText(base, mine, theirs, ' Carol').text, 'Plan: Alice brings the Bob brings the food. maps.');
  // A send that ended inside a word: the rest of the word goes on from it.
  assert.deepEqual(
    mergeText('Plan: Alice brings th', 'Plan: Alice brings the maps.', 'Plan: Alice brings th Bob brings the food.', ' Alice brings th'),
    {
      text: 'Plan: Alice brings the maps. Bob brings the food.',
      clean: true,
    },
  );
  assert.equal(lastTyped('a b c', 'a x b c y'), ' y');
  assert.equal(lastTyped('a b c', 'a c'), '');
});

test('a long paste merges with a change elsewhere (not given up as too big a diff)', () => {
  const base = `Intro line.\n${'word '.repeat(4000)}\nEnd.`;
  const paste = 'pasted text '.repeat(1000);
  const mine = base.replace('Intro line.', `Intro line. ${paste}`);
  const theirs = base.replace('End.', 'The end.');
  assert.deepEqual(mergeText(base, mine, theirs), { text: mine.replace('End.', 'The end.'), clean: true });
});

test('one side unchanged, or both the same: no merge needed', () => {
  assert.deepEqual(mergeText('a b', 'a b', 'a c'), { text: 'a c', clean: true });
  assert.deepEqual(mergeText('a b', 'a c', 'a b'), { text: 'a c', clean: true });
  assert.deepEqual(mergeText('a b', 'a c', 'a c'), { text: 'a c', clean: true });
});

test('the same words changed two ways: theirs wins and mine is handed back whole', () => {
  const merged = mergeText('Meet at noon.', 'Meet at one.', 'Meet at two.');
  assert.deepEqual(merged, { text: 'Meet at two.', clean: false, mine: 'Meet at one.' });
});

test('a word changed two ways is not merged letter by letter', () => {
  // All three share "Meet at t", but the merge sees whole words: "two", "ten" and "three" clash.
  const merged = mergeText('Meet at two', 'Meet at ten', 'Meet at three');
  assert.equal(merged.clean, false);
  assert.equal(merged.text, 'Meet at three');
});

test('long texts with far-apart edits merge', () => {
  const paragraph = (n: number) => `Paragraph ${n} says something about item ${n}.`;
  const base = Array.from({ length: 2_000 }, (_, i) => paragraph(i)).join('\n');
  const mine = base.replace('item 10.', 'item ten.');
  const theirs = base.replace('item 1990.', 'item nineteen ninety.');
  const merged = mergeText(base, mine, theirs);
  assert.equal(merged.clean, true);
  assert.match(merged.text, /item ten\./);
  assert.match(merged.text, /item nineteen ninety\./);
  assert.equal(merged.text.length, base.length + 'ten'.length - 2 + 'nineteen ninety'.length - 4);
});

test('an undo reverts only its own edit, on top of what others wrote since', () => {
  // I typed " by Alice"; Bob then added a second sentence.
  const from = 'Plan the launch.';
  const to = 'Plan the launch by Friday.';
  const current = 'Plan the launch by Friday. Bob will book the room.';
  assert.equal(revertText(from, to, current), 'Plan the launch. Bob will book the room.');
});

test('an undo whose words someone changed since is refused', () => {
  // I changed "noon" to "one"; Bob then changed it to "two": undoing mine would erase his.
  assert.equal(revertText('Meet at noon.', 'Meet at one.', 'Meet at two.'), null);
  // Nobody changed anything since: the undo is the edit's own start.
  assert.equal(revertText('Meet at noon.', 'Meet at one.', 'Meet at one.'), 'Meet at noon.');
});
