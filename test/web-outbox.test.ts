// The web app's outbox operations (web/src/board/canvas/sync/operations.ts) and caret mapping
// (caret.ts), case by case: which later edits fold into a waiting one, how waiting operations are
// put on a board loaded again, and where the caret goes when the text under it changes. The browser
// tests (test/e2e/outbox.test.ts) run the whole outbox against the real service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapCaret } from '../web/src/board/canvas/sync/caret.js';
import { coalesce, withPending } from '../web/src/board/canvas/sync/operations.js';

test('moves and data changes of one node fold into the waiting one; a text keeps the base it was typed on', () => {
  assert.deepEqual(
    coalesce({ op: 'update_node', id: 'n', position: { x: 1, y: 1 } }, { op: 'update_node', id: 'n', data: { color: '2' } }),
    { op: 'update_node', id: 'n', position: { x: 1, y: 1 }, data: { color: '2' } },
  );
  assert.deepEqual(coalesce({ op: 'text', id: 'n', text: 'a', base: '' }, { op: 'text', id: 'n', text: 'ab', base: 'a' }), {
    op: 'text',
    id: 'n',
    text: 'ab',
    base: '',
  });
  // Other targets, and creates or deletes, never fold.
  assert.equal(coalesce({ op: 'update_node', id: 'n', data: {} }, { op: 'update_node', id: 'm', data: {} }), undefined);
  assert.equal(coalesce({ op: 'delete_node', id: 'n' }, { op: 'delete_node', id: 'n' }), undefined);
  assert.equal(
    coalesce({ op: 'create_node', id: 'n', type: 'note', position: { x: 0, y: 0 }, data: {} }, { op: 'update_node', id: 'n', data: {} }),
    undefined,
  );
});

test('waiting operations are put on a board loaded again: creates, moves, data, deletions', () => {
  const nodes = [
    { id: 'a', type: 'noteNode', position: { x: 0, y: 0 }, data: { text: 'A', color: '1' } },
    { id: 'b', type: 'noteNode', position: { x: 9, y: 9 }, data: { text: 'B' } },
  ];
  const edges = [{ id: 'e', source: 'a', target: 'b', data: {} }];
  const out = withPending(nodes, edges, [
    { op: 'create_node', id: 'c', type: 'note', position: { x: 5, y: 5 }, data: { text: '' } },
    { op: 'create_edge', id: 'f', source: 'a', target: 'c', data: {} },
    { op: 'update_node', id: 'a', position: { x: 3, y: 4 }, data: { color: null, width: 300 } },
    { op: 'delete_node', id: 'b' },
    // Applied again after a reload whose board already has them: the same result.
    { op: 'create_node', id: 'a', type: 'note', position: { x: 0, y: 0 }, data: {} },
  ]);
  assert.deepEqual(
    out.nodes.map((n) => [n.id, n.position, n.data]),
    [
      ['a', { x: 3, y: 4 }, { text: 'A', width: 300 }],
      ['c', { x: 5, y: 5 }, { text: '' }],
    ],
  );
  assert.deepEqual(
    out.edges.map((e) => [e.id, e.source, e.target]),
    [['f', 'a', 'c']],
  );
});

test('the caret stays by the words it was by when the text under it changes', () => {
  // Someone inserted before the caret: it moves with its words.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Alice. Bob', 9), 16);
  // After the caret: it stays.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Bob and Alice', 5), 5);
  // Inside the changed words: to the end of the change.
  assert.equal(mapCaret('one two three', 'one 2 three', 6), 5);
});
