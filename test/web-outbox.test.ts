// Where a note's caret goes when the text under it changes by someone else's hand
// (web/src/board/canvas/sync/caret.ts), case by case; how waiting operations of one target fold
// into one (operations.ts). The browser tests (test/e2e/outbox.test.ts)
// run the whole outbox against the real service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapCaret } from '../web/src/board/canvas/sync/caret.js';
import { loadWebModule } from './helpers/web-module.js';

test('the caret stays by the words it was by when the text under it changes', () => {
  // Someone inserted before the caret: it moves with its words.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Alice. Bob', 9), 16);
  // After the caret: it stays.
  assert.equal(mapCaret('Plan: Bob', 'Plan: Bob and Alice', 5), 5);
  // Inside the changed words: to the end of the change.
  assert.equal(mapCaret('one two three', 'one 2 three', 6), 5);
});

test("two waiting changes of one connection's keys are sent as one holding both, and a reload shows them on the loaded edge", async () => {
  type Op = { op: string; id: string; data?: Record<string, unknown> };
  const { coalesce, withPending } = await loadWebModule<{
    coalesce(earlier: Op, later: Op): Op | undefined;
    withPending(
      nodes: unknown[],
      edges: { id: string; data?: Record<string, unknown> }[],
      ops: Op[],
    ): { edges: { data?: unknown; label?: string }[] };
  }>('web/src/board/canvas/sync/operations.ts');
  const label = { op: 'update_edge', id: 'e1', data: { label: 'leads to' } };
  const colour = { op: 'update_edge', id: 'e1', data: { color: '5', note: null } };
  assert.deepEqual(coalesce(label, colour), { op: 'update_edge', id: 'e1', data: { label: 'leads to', color: '5', note: null } });
  const loaded = [{ id: 'e1', source: 'a', target: 'b', data: { weight: 2, note: 'x' } }];
  const [shown] = withPending([], loaded, [label, colour]).edges;
  assert.deepEqual(shown?.data, { weight: 2, label: 'leads to', color: '5' });
  assert.equal(shown?.label, 'leads to');
});
