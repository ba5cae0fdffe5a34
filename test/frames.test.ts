// Frames through the API as the web app writes them (issue 30; docs/api.md "Nodes and edges"): a
// frame is a note with `group: true`; a batch moves it with its cards and sets the cards'
// parent_node_id; a card dragged out is given null; a bad parent is refused and changes nothing;
// deleting the frame leaves its cards with no parent; an export writes it as a JSON Canvas group
// holding them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isErrorEnvelope, useServer } from './helpers/harness.js';

const server = useServer();

interface NodeBody {
  data: { id: string; position_x: number; position_y: number; parent_node_id: string | null; node_data: Record<string, unknown> };
}

test('a frame and its cards: moved in one batch, joined and left by parent_node_id, exported as a group', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice);
  const frame = await server.makeNode(alice, boardId, {
    type: 'note',
    position: { x: -40, y: -76 },
    data: { text: '', group: true, label: 'Sprint', width: 660, height: 276, color: '4' },
  });
  const a = await server.makeNode(alice, boardId, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Alpha' } });
  const b = await server.makeNode(alice, boardId, { type: 'note', position: { x: 320, y: 0 }, data: { text: 'Beta' } });
  const get = async (id: string) =>
    (await server.request<NodeBody>('GET', `/v1/boards/${boardId}/nodes/${id}`, { token: alice.token })).body.data;
  const batch = (operations: unknown[]) =>
    server.request('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });

  // Framing: the cards join the frame (what "Frame selection" sends).
  let res = await batch([
    { op: 'update_node', id: a.id, parent_node_id: frame.id },
    { op: 'update_node', id: b.id, parent_node_id: frame.id },
  ]);
  assert.equal(res.status, 200, res.text);
  assert.equal((await get(a.id)).parent_node_id, frame.id);

  // Moving the frame: its cards are moved by the same step in the same batch (positions stay absolute).
  res = await batch([
    { op: 'update_node', id: frame.id, position: { x: 60, y: 124 } },
    { op: 'update_node', id: a.id, position: { x: 100, y: 200 }, parent_node_id: frame.id },
    { op: 'update_node', id: b.id, position: { x: 420, y: 200 }, parent_node_id: frame.id },
  ]);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([(await get(b.id)).position_x, (await get(b.id)).position_y, (await get(b.id)).parent_node_id], [420, 200, frame.id]);

  // A parent that is not a node of the board is refused, and nothing of the batch is written.
  res = await batch([
    { op: 'update_node', id: a.id, position: { x: 999, y: 999 }, parent_node_id: null },
    { op: 'update_node', id: b.id, parent_node_id: '00000000-0000-4000-8000-000000000000' },
  ]);
  assert.equal(res.status, 400, res.text);
  assert.ok(isErrorEnvelope(res.body, 400));
  assert.deepEqual([(await get(a.id)).position_x, (await get(a.id)).parent_node_id], [100, frame.id]);

  // Dragged out: no parent.
  res = await batch([{ op: 'update_node', id: a.id, position: { x: 100, y: 700 }, parent_node_id: null }]);
  assert.equal(res.status, 200, res.text);
  assert.equal((await get(a.id)).parent_node_id, null);

  // The export writes the frame as a group, first, with its name, colour and size; the card in it inside it.
  const exported = await server.request<{ nodes: Record<string, unknown>[] }>('GET', `/v1/boards/${boardId}/export?format=jsoncanvas`, {
    token: alice.token,
  });
  assert.equal(exported.status, 200, exported.text);
  const group = exported.body.nodes[0]!;
  assert.deepEqual([group.type, group.label, group.color, group.width, group.height], ['group', 'Sprint', '4', 660, 276]);
  const beta = exported.body.nodes.find((n) => n.text === 'Beta')!;
  assert.ok((beta.x as number) >= (group.x as number) && (beta.y as number) >= (group.y as number), 'Beta lies inside the group');

  // Deleting the frame leaves its cards, with no parent.
  const deleted = await server.request('DELETE', `/v1/boards/${boardId}/nodes/${frame.id}`, { token: alice.token });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await get(b.id)).parent_node_id, null);
});
