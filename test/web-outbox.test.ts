// Where a note's caret goes when the text under it changes by someone else's hand
// (web/src/board/canvas/sync/caret.ts), case by case. The browser tests (test/e2e/outbox.test.ts)
// run the whole outbox against the real service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapCaret } from '../web/src/board/canvas/sync/caret.js';

test('the caret stays by the words it was by when the text under it changes', () => {
  // Someone inserted before the caret: it moves with its words.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Alice. Bob', 9), 16);
  // After the caret: it stays.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Bob and Alice', 5), 5);
  // Inside the changed words: to the end of the change.
  assert.equal(mapCaret('one two three', 'one 2 three', 6), 5);
});
