// The web app's undo and redo made on the board as it is now (web/src/board/canvas/edits/reapply.ts):
// each kind of change undone when what this person set is still there, and refused (nothing done)
// when someone else changed it since. The browser tests (test/e2e/undo-drag.test.ts) do it with two
// people; these are the cases one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWebModule } from './helpers/web-module.js';

// The web app's modules are loaded through esbuild (test/helpers/web-module.ts), typed here by what
// the test uses: the root project's type check cannot follow the web app's extensionless imports.
type XY = { x: number; y: number };
type HistoryChange = { kind: string; [key: string]: unknown };
type Step = { kind: string; [key: string]: unknown };
interface CurrentBoard {
  node(id: string): { id: string; position: XY; data: Record<string, unknown> } | undefined;
  noteText(id: string): string;
  edgeData(id: string): Record<string, unknown> | undefined;
  resolve(id: string): string;
}
const { planStep, entryAfter } = await loadWebModule<{
  planStep(change: HistoryChange, board: CurrentBoard, what: 'undone' | 'redone'): Step;
  entryAfter(entry: HistoryChange, step: Step, direction: 'undo' | 'redo'): HistoryChange;
}>('web/src/board/canvas/edits/reapply.ts');
const { invert } = await loadWebModule<{ invert(change: HistoryChange): HistoryChange }>('web/src/board/canvas/edits/edit-history.ts');

/** A board of notes `{ id: [x, y, data] }` and edges `{ id: data }`; `renamed` maps recorded ids to current ones. */
function boardOf(
  nodes: Record<string, { x: number; y: number; data: Record<string, unknown> }>,
  edges: Record<string, Record<string, unknown>> = {},
  renamed: Record<string, string> = {},
): CurrentBoard {
  return {
    node: (id) => {
      const n = nodes[id];
      return n && { id, position: { x: n.x, y: n.y }, data: n.data };
    },
    noteText: (id) => String(nodes[id]?.data.text ?? ''),
    edgeData: (id) => edges[id],
    resolve: (id) => renamed[id] ?? id,
  };
}

const undo = (change: HistoryChange, board: CurrentBoard) => planStep(invert(change), board, 'undone');

test("undoing typing takes out this person's words and keeps the words typed after them", () => {
  const typed: HistoryChange = { kind: 'text', id: 'n', from: 'Plan:', to: 'Plan: Alice wrote this.' };
  const both = 'Plan: Alice wrote this. Bob added more.';
  const board = boardOf({ n: { x: 0, y: 0, data: { text: both } } });
  const undone = undo(typed, board);
  assert.deepEqual(undone, { kind: 'text', id: 'n', text: 'Plan: Bob added more.', before: both });
  // Redo puts the words back where they were, into the text as it is then (Bob's words since kept).
  const redoEntry = entryAfter(typed, undone, 'undo');
  const later = boardOf({ n: { x: 0, y: 0, data: { text: 'Plan: Bob added more. Carol too.' } } });
  const redone = planStep(redoEntry, later, 'redone');
  assert.deepEqual(redone, {
    kind: 'text',
    id: 'n',
    text: 'Plan: Alice wrote this. Bob added more. Carol too.',
    before: 'Plan: Bob added more. Carol too.',
  });
  // And undo again takes them out again.
  const again = entryAfter(redoEntry, redone, 'redo');
  const now = boardOf({ n: { x: 0, y: 0, data: { text: 'Plan: Alice wrote this. Bob added more. Carol too.' } } });
  assert.equal(undo(again, now).text, 'Plan: Bob added more. Carol too.');
});

test('undoing typing whose words someone else changed since is refused', () => {
  const typed: HistoryChange = { kind: 'text', id: 'n', from: 'The quick brown fox', to: 'The slow brown fox' };
  const board = boardOf({ n: { x: 0, y: 0, data: { text: 'The fast brown fox' } } });
  const step = undo(typed, board);
  assert.equal(step.kind, 'refused');
  assert.match(String(step.message), /Someone else has changed these words since; nothing was undone/);
});

test('a move is undone only while the card is where this person left it', () => {
  const moved: HistoryChange = { kind: 'move', moves: [{ id: 'n', from: { x: 0, y: 0 }, to: { x: 150, y: 60 } }] };
  const still = boardOf({ n: { x: 150, y: 60, data: {} } });
  assert.deepEqual(undo(moved, still), { kind: 'move', moves: [{ id: 'n', to: { x: 0, y: 0 } }] });
  const movedOn = boardOf({ n: { x: 270, y: 180, data: {} } });
  const step = undo(moved, movedOn);
  assert.equal(step.kind, 'refused');
  assert.match(String(step.message), /Someone else has moved this card since; nothing was undone/);
  // A multi-card move is all or nothing.
  const two: HistoryChange = {
    kind: 'move',
    moves: [
      { id: 'n', from: { x: 0, y: 0 }, to: { x: 10, y: 0 } },
      { id: 'm', from: { x: 0, y: 100 }, to: { x: 10, y: 100 } },
    ],
  };
  assert.equal(undo(two, boardOf({ n: { x: 10, y: 0, data: {} }, m: { x: 99, y: 100, data: {} } })).kind, 'refused');
});

test('a colour, title or size is undone only while it holds what this person set; a resize also checks its position', () => {
  const coloured: HistoryChange = { kind: 'data', id: 'n', from: { color: null }, to: { color: '3' } };
  assert.deepEqual(undo(coloured, boardOf({ n: { x: 0, y: 0, data: { color: '3' } } })), {
    kind: 'data',
    id: 'n',
    patch: { color: null },
  });
  assert.equal(undo(coloured, boardOf({ n: { x: 0, y: 0, data: { color: '5' } } })).kind, 'refused');
  const resized: HistoryChange = {
    kind: 'data',
    id: 'n',
    from: { width: 260, height: 140 },
    to: { width: 300, height: 200 },
    position: { from: { x: 0, y: 0 }, to: { x: -40, y: -60 } },
  };
  assert.deepEqual(undo(resized, boardOf({ n: { x: -40, y: -60, data: { width: 300, height: 200 } } })), {
    kind: 'data',
    id: 'n',
    patch: { width: 260, height: 140 },
    position: { from: { x: -40, y: -60 }, to: { x: 0, y: 0 } },
  });
  assert.equal(undo(resized, boardOf({ n: { x: 5, y: -60, data: { width: 300, height: 200 } } })).kind, 'refused');
  assert.equal(undo(resized, boardOf({ n: { x: -40, y: -60, data: { width: 320, height: 200 } } })).kind, 'refused');
});

test("a connection's label is undone only while it holds what this person set", () => {
  const labelled: HistoryChange = { kind: 'edgeData', id: 'e', from: { label: null }, to: { label: 'leads to' } };
  const board = (label: string) => boardOf({}, { e: { label } });
  assert.deepEqual(undo(labelled, board('leads to')), { kind: 'edgeData', id: 'e', patch: { label: null } });
  assert.equal(undo(labelled, board('blocks')).kind, 'refused');
  assert.equal(undo(labelled, boardOf({})).kind, 'refused', 'a deleted connection');
});

test('a card deleted since, or re-created under a new id, is followed', () => {
  const typed: HistoryChange = { kind: 'text', id: 'old', from: '', to: 'Hi' };
  assert.equal(undo(typed, boardOf({})).kind, 'refused');
  assert.deepEqual(undo(typed, boardOf({ now: { x: 0, y: 0, data: { text: 'Hi' } } }, {}, { old: 'now' })), {
    kind: 'text',
    id: 'now',
    text: '',
    before: 'Hi',
  });
});

test('creations and deletions are made as recorded', () => {
  const created: HistoryChange = { kind: 'create', nodes: [], edges: [{ id: 'e', source: 'a', target: 'b', data: {} }] };
  const step = undo(created, boardOf({}));
  assert.equal(step.kind, 'structure');
  assert.equal((step.change as HistoryChange).kind, 'delete');
});
