// Pasting nodes into another board (web/src/board/canvas/edits/node-clipboard.ts): file nodes point
// at files of their own board, so a pdf becomes a link card to its file, and a document made from
// an uploaded file (issue 29) stays a document with its text, linking to the file, without the
// file's keys (which the service would refuse on another board). Within the same board nothing changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWebModule } from './helpers/web-module.js';

type Node = { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> };
type Operation = { op: string; type?: string; data?: Record<string, unknown> };

const { pasteOperations } = await loadWebModule<{
  pasteOperations(
    copy: { type: string; board_id: string; nodes: Node[]; edges: unknown[] },
    boardId: string,
    at: { x: number; y: number },
  ): { operations: Operation[]; linked: number };
}>('web/src/board/canvas/edits/node-clipboard.ts');

const file = { storagePath: 'u/b/1-notes.md', publicUrl: '/files/abc/1-notes.md', fileSize: 12, label: 'notes.md' };
const copy = {
  type: 'board-workspace/nodes',
  board_id: 'board-a',
  nodes: [
    {
      id: 'd',
      type: 'document',
      position: { x: 0, y: 0 },
      data: { ...file, text: 'Sea stars eat mussels.', read_at: '2026-01-01T00:00:00.000Z' },
    },
    { id: 'p', type: 'pdf', position: { x: 300, y: 0 }, data: { ...file, label: 'survey.pdf' } },
  ],
  edges: [],
};

test('into another board, a file-made document keeps its text and links to the file; a pdf becomes a link', () => {
  const { operations, linked } = pasteOperations(copy, 'board-b', { x: 0, y: 0 });
  assert.equal(linked, 1);
  assert.equal(operations[0]!.type, 'document');
  assert.deepEqual(operations[0]!.data, { label: 'notes.md', text: 'Sea stars eat mussels.', url: '/files/abc/1-notes.md' });
  assert.equal(operations[1]!.type, 'url');
});

test('within the same board, a file-made document is pasted as it is', () => {
  const { operations, linked } = pasteOperations(copy, 'board-a', { x: 0, y: 0 });
  assert.equal(linked, 0);
  assert.deepEqual(operations[0]!.data, copy.nodes[0]!.data);
});
