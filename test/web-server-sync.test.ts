// The web app's meeting of the service's states and this person's changes in flight
// (web/src/board/canvas/sync/server-sync.ts), for edges: while a change of an edge's data (label,
// colour) waits or its echo has not come, the stream's states of that edge are held, not shown,
// so a late echo of an earlier save never becomes the base of the person's next change (two redos
// in a row; a label and then a colour). The browser tests (test/e2e/cards.test.ts) run it whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWebModule } from './helpers/web-module.js';

interface EdgeRecord {
  id: string;
  board_id: string;
  source_node_id: string;
  target_node_id: string;
  edge_data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
interface FlowEdge {
  id: string;
  data?: Record<string, unknown>;
}
interface ServerSync {
  start(): () => void;
  edge(record: EdgeRecord): void;
  savedEdge(record: EdgeRecord): void;
  edgeDeleted(id: string): void;
}
const { ServerSync } = await loadWebModule<{
  ServerSync: new (graph: unknown, tracker: unknown) => ServerSync;
}>('web/src/board/canvas/sync/server-sync.ts');

const EDGE = 'e1';
const at = (second: number) => new Date(Date.UTC(2026, 11, 6, 12, 0, second)).toISOString();
const record = (data: Record<string, unknown>, second: number): EdgeRecord => ({
  id: EDGE,
  board_id: 'b1',
  source_node_id: 'n1',
  target_node_id: 'n2',
  edge_data: data,
  created_at: at(0),
  updated_at: at(second),
});

/** A canvas that keeps the edge as last applied, and an outbox whose waiting keys the test sets. */
function setUp() {
  const shown: Record<string, unknown>[] = [];
  const graph = {
    applyEdge: (edge: FlowEdge) => shown.push(edge.data ?? {}),
    removeEdge: () => shown.push({ removed: true }),
  };
  const pending = new Set<string>();
  const listeners = new Set<() => void>();
  const tracker = {
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    isPending: (key: string) => pending.has(key),
    cancel: (key: string) => pending.delete(key),
    isPendingCreate: () => false,
  };
  const sync = new ServerSync(graph, tracker);
  const stop = sync.start();
  /** This person changes the edge here: shown at once, its save waiting in the outbox. */
  const change = (data: Record<string, unknown>) => {
    shown.push(data);
    pending.add(`edge:${EDGE}`);
  };
  /** The outbox's save is answered with `answer`. */
  const answered = (answer: EdgeRecord) => {
    sync.savedEdge(answer);
    pending.delete(`edge:${EDGE}`);
    for (const listener of listeners) listener();
  };
  const current = () => shown.at(-1);
  return { sync, stop, change, answered, current, shown };
}

test("a late echo of the person's earlier save is not shown over their newer change", () => {
  const { sync, stop, change, answered, current } = setUp();
  try {
    // The label was undone (saved at :02, its echo not yet here); now it is redone.
    change({ label: 'leads to' });
    // The echo of the undo comes now: the edge without its label.
    sync.edge(record({}, 2));
    assert.deepEqual(current(), { label: 'leads to' }, 'the older state is held, the redo stays shown');
    // The redo's save is answered at :03; its echo is still to come: the answer is not shown over
    // what is shown (the same data), and nothing older comes back.
    answered(record({ label: 'leads to' }, 3));
    assert.deepEqual(current(), { label: 'leads to' });
    sync.edge(record({ label: 'leads to' }, 3));
    assert.deepEqual(current(), { label: 'leads to' }, 'the echo settles the edge on the saved state');
    // Nothing waits now: another person's change shows at once.
    sync.edge(record({ label: 'leads to', color: '2' }, 4));
    assert.deepEqual(current(), { label: 'leads to', color: '2' });
  } finally {
    stop();
  }
});

test('another person changes the edge after the save: their newer state is shown once the save is answered', () => {
  const { sync, stop, change, answered, current } = setUp();
  try {
    change({ color: '5' });
    // The echo of the save, then someone else's newer change, both before the answer.
    sync.edge(record({ color: '5' }, 3));
    sync.edge(record({ color: '5', label: 'theirs' }, 4));
    assert.deepEqual(current(), { color: '5' }, 'held while the save is unanswered');
    answered(record({ color: '5' }, 3));
    assert.deepEqual(current(), { color: '5', label: 'theirs' }, 'the newest state wins');
  } finally {
    stop();
  }
});

test('an edge deleted while its states are held is not brought back by them', () => {
  const { sync, stop, change, answered, shown } = setUp();
  try {
    change({ label: 'x' });
    sync.edge(record({}, 2));
    sync.edgeDeleted(EDGE);
    answered(record({ label: 'x' }, 3));
    sync.edge(record({ label: 'x' }, 3));
    assert.deepEqual(shown.at(-1), { removed: true });
  } finally {
    stop();
  }
});
