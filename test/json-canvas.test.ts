// JSON Canvas 1.0 export and import: a valid `.canvas` document out, the same board back in (up to
// ids), a canvas from another tool read by the format alone with what it could not keep reported,
// bad documents refused with the JSON pointer of the problem and nothing created.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { PDFDocument } from 'pdf-lib';
import { multipart, uploadFile } from './helpers/assets.js';
import type { BoardBody, EdgeList, NodeList } from './helpers/api-types.js';
import { isErrorEnvelope, startServer, useServer } from './helpers/harness.js';

const server = useServer();

// JSON Canvas 1.0 as its specification (jsoncanvas.org/spec/1.0) states it.
const color = { type: 'string', pattern: '^([1-6]|#[0-9a-fA-F]{6})$' };
const side = { enum: ['top', 'right', 'bottom', 'left'] };
const end = { enum: ['none', 'arrow'] };
const generic = {
  id: { type: 'string' },
  x: { type: 'integer' },
  y: { type: 'integer' },
  width: { type: 'integer' },
  height: { type: 'integer' },
  color,
};
const nodeOf = (type: string, extra: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  required: ['id', 'type', 'x', 'y', 'width', 'height', ...required],
  additionalProperties: false,
  properties: { ...generic, type: { const: type }, ...extra },
});
const SPEC_SCHEMA = {
  type: 'object',
  properties: {
    nodes: {
      type: 'array',
      items: {
        oneOf: [
          nodeOf('text', { text: { type: 'string' } }, ['text']),
          nodeOf('file', { file: { type: 'string' }, subpath: { type: 'string', pattern: '^#' } }, ['file']),
          nodeOf('link', { url: { type: 'string' } }, ['url']),
          nodeOf('group', {
            label: { type: 'string' },
            background: { type: 'string' },
            backgroundStyle: { enum: ['cover', 'ratio', 'repeat'] },
          }),
        ],
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'fromNode', 'toNode'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          fromNode: { type: 'string' },
          toNode: { type: 'string' },
          fromSide: side,
          toSide: side,
          fromEnd: end,
          toEnd: end,
          color,
          label: { type: 'string' },
        },
      },
    },
  },
};
const validCanvas = new Ajv2020({ strict: false }).compile(SPEC_SCHEMA);

interface Canvas {
  nodes: Record<string, unknown>[];
  edges: Record<string, unknown>[];
}
interface Imported {
  data: { board: { id: string; name: string }; nodes: number; edges: number; warnings: { path: string; message: string }[] };
}

async function boardContents(token: string, boardId: string) {
  const nodes = await server.request<NodeList>('GET', `/v1/boards/${boardId}/nodes?limit=100&order=asc`, { token });
  const edges = await server.request<EdgeList>('GET', `/v1/boards/${boardId}/edges?limit=100&order=asc`, { token });
  return { nodes: nodes.body.data, edges: edges.body.data };
}

test('export is valid JSON Canvas 1.0, and importing it gives the same board up to ids', async () => {
  const alice = await server.user();
  const boardId = await server.makeBoard(alice, { name: 'Research — 研究' });
  const group = await server.makeNode(alice, boardId, {
    position: { x: -20, y: -20 },
    data: { text: '', group: true, label: 'Sources', width: 900, height: 600, color: '4' },
  });
  const note = await server.makeNode(alice, boardId, {
    position: { x: 10.4, y: 20.6 },
    parent_node_id: group.id,
    data: { text: '# Findings\n\n- one\n- two', label: 'Findings', width: 320, height: 180, color: '#ff8800' },
  });
  const doc = await server.makeNode(alice, boardId, {
    type: 'document',
    position: { x: 400, y: 0 },
    data: { text: 'Long text', url: 'https://example.com/a' },
  });
  const link = await server.makeNode(alice, boardId, {
    type: 'url',
    position: { x: 0, y: 300 },
    data: { url: 'https://example.com/', label: 'Example' },
  });
  const video = await server.makeNode(alice, boardId, {
    type: 'video',
    position: { x: 300, y: 300 },
    data: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
  });
  const pdfBytes = Buffer.from(await (await PDFDocument.create()).save());
  const { nodeData } = await uploadFile(server, alice, boardId, pdfBytes, 'paper.pdf', 'application/pdf');
  const pdf = await server.makeNode(alice, boardId, { type: 'pdf', position: { x: 600, y: 300 }, data: { ...nodeData, label: 'Paper' } });
  await server.makeEdge(alice, boardId, note.id, doc.id, {
    data: { fromSide: 'right', toSide: 'left', toEnd: 'arrow', label: 'cites', color: '2', weight: 3 },
  });
  await server.makeEdge(alice, boardId, link.id, video.id, { type: 'custom', data: { fromEnd: 'arrow', toEnd: 'none' } });
  await server.makeEdge(alice, boardId, pdf.id, pdf.id);

  const res = await fetch(`${server.url}/v1/boards/${boardId}/export?format=jsoncanvas`, {
    headers: { authorization: `Bearer ${alice.token}` },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(
    res.headers.get('content-disposition') ?? '',
    /^attachment; filename="Research .+\.canvas"; filename\*=UTF-8''Research%20%E2%80%94%20%E7%A0%94%E7%A9%B6\.canvas$/,
  );
  const canvas = (await res.json()) as Canvas;
  assert.ok(validCanvas(canvas), JSON.stringify(validCanvas.errors));
  assert.equal(canvas.nodes[0]!.type, 'group', 'groups come first: later nodes are drawn on top');
  const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
  assert.deepEqual(byId.get(note.id), {
    id: note.id,
    x: 10,
    y: 21,
    width: 320,
    height: 180,
    color: '#ff8800',
    type: 'text',
    text: '# Findings\n\n- one\n- two',
  });
  assert.equal(byId.get(video.id)!.type, 'link');
  assert.deepEqual({ type: byId.get(pdf.id)!.type, file: byId.get(pdf.id)!.file }, { type: 'file', file: nodeData.storagePath });
  assert.deepEqual(
    canvas.edges.map(({ id: _id, ...rest }) => rest),
    [
      { fromNode: note.id, toNode: doc.id, fromSide: 'right', toSide: 'left', toEnd: 'arrow', color: '2', label: 'cites' },
      { fromNode: link.id, toNode: video.id, fromEnd: 'arrow', toEnd: 'none' },
      { fromNode: pdf.id, toNode: pdf.id },
    ],
  );

  const imported = await server.request<Imported>('POST', '/v1/boards/import', { token: alice.token, body: canvas });
  assert.equal(imported.status, 201, imported.text);
  assert.deepEqual(imported.body.data.warnings, []);
  assert.equal(imported.body.data.board.name, 'Research — 研究');
  assert.deepEqual([imported.body.data.nodes, imported.body.data.edges], [6, 3]);

  const before = await boardContents(alice.token, boardId);
  const after = await boardContents(alice.token, imported.body.data.board.id);
  const oldIndex = new Map(before.nodes.map((n, i) => [n.id, i]));
  const newIndex = new Map(after.nodes.map((n, i) => [n.id, i]));
  // Positions are whole pixels in the format.
  const shape = (nodes: typeof before.nodes, index: Map<string, number>) =>
    nodes.map((n) => ({
      type: n.node_type,
      x: Math.round(n.position_x),
      y: Math.round(n.position_y),
      parent: n.parent_node_id === null ? null : index.get(n.parent_node_id),
      data: Object.fromEntries(Object.entries(n.node_data).filter(([k]) => k !== 'storagePath' && k !== 'publicUrl')),
    }));
  assert.deepEqual(shape(after.nodes, newIndex), shape(before.nodes, oldIndex));
  const edgeShape = (edges: typeof before.edges, index: Map<string, number>) =>
    edges.map((e) => ({ from: index.get(e.source_node_id), to: index.get(e.target_node_id), type: e.edge_type, data: e.edge_data }));
  assert.deepEqual(edgeShape(after.edges, newIndex), edgeShape(before.edges, oldIndex));
  // The pdf's file was copied to the new board: the same bytes at a url of its own.
  const copied = after.nodes.find((n) => n.node_type === 'pdf')!.node_data as { storagePath: string; publicUrl: string };
  assert.ok(copied.storagePath.includes(imported.body.data.board.id));
  const file = await fetch(copied.publicUrl);
  assert.equal(file.status, 200);
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), pdfBytes);
});

test('a canvas from another tool: what the format says is kept, what cannot be is reported', async () => {
  const alice = await server.user();
  const canvas = {
    nodes: [
      { id: 'g', type: 'group', x: 0, y: 0, width: 1000, height: 800, label: 'Area', background: 'bg.png' },
      { id: 'inner', type: 'group', x: 50, y: 50, width: 400, height: 300, color: '1' },
      { id: 't', type: 'text', x: 100, y: 100, width: 200, height: 100, text: 'Inside **both**' },
      { id: 'f', type: 'file', x: 600, y: 100, width: 200, height: 200, file: 'attachments/photo.png' },
      { id: 'yt', type: 'link', x: 600, y: 400, width: 300, height: 200, url: 'https://youtu.be/dQw4w9WgXcQ' },
      { id: 'app', type: 'link', x: 1200, y: 0, width: 300, height: 100, url: 'obsidian://open?vault=x' },
    ],
    edges: [{ id: 'e1', fromNode: 't', toNode: 'yt', fromSide: 'bottom', toEnd: 'arrow', label: 'see' }],
    somethingElse: { kept: 'ignored' },
  };
  const imported = await server.request<Imported>('POST', '/v1/boards/import?name=From%20Obsidian', { token: alice.token, body: canvas });
  assert.equal(imported.status, 201, imported.text);
  assert.equal(imported.body.data.board.name, 'From Obsidian');
  assert.deepEqual(
    imported.body.data.warnings.map((w) => w.path),
    ['/nodes/0/background', '/nodes/3/file', '/nodes/5/url'],
  );
  const { nodes, edges } = await boardContents(alice.token, imported.body.data.board.id);
  const byLabel = (i: number) => nodes[i]!;
  assert.deepEqual(
    nodes.map((n) => n.node_type),
    ['note', 'note', 'note', 'note', 'video', 'note'],
  );
  assert.deepEqual(byLabel(0).node_data, { text: '', group: true, label: 'Area', width: 1000, height: 800 });
  // The smallest group containing a node is its parent.
  assert.equal(byLabel(1).parent_node_id, byLabel(0).id);
  assert.equal(byLabel(2).parent_node_id, byLabel(1).id);
  assert.equal(byLabel(3).parent_node_id, byLabel(0).id);
  assert.equal(byLabel(5).parent_node_id, null);
  assert.match(String(byLabel(3).node_data.text), /File not imported: attachments\/photo\.png/);
  assert.deepEqual(
    edges.map((e) => [e.source_node_id, e.target_node_id, e.edge_data]),
    [[byLabel(2).id, byLabel(4).id, { fromSide: 'bottom', toEnd: 'arrow', label: 'see' }]],
  );
});

test('a .canvas file as multipart/form-data, named after the file', async () => {
  const alice = await server.user();
  const canvas = { nodes: [{ id: 'a', type: 'text', x: 0, y: 0, width: 10, height: 10, text: 'hi' }] };
  const { body, contentType } = multipart([
    { filename: 'Weekly plan.canvas', type: 'application/json', data: Buffer.from(JSON.stringify(canvas)) },
  ]);
  const res = await server.request<Imported>('POST', '/v1/boards/import', {
    token: alice.token,
    raw: body,
    headers: { 'content-type': contentType },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.board.name, 'Weekly plan');
  const notJson = multipart([{ filename: 'x.canvas', type: 'application/json', data: Buffer.from('{nope') }]);
  const bad = await server.request('POST', '/v1/boards/import', {
    token: alice.token,
    raw: notJson.body,
    headers: { 'content-type': notJson.contentType },
  });
  assert.ok(isErrorEnvelope(bad.body, 400), bad.text);
});

test('bad documents: 400 naming where, and nothing created', async () => {
  const alice = await server.user();
  const boards = async () =>
    (await server.request<{ data: unknown[] }>('GET', '/v1/boards?limit=100', { token: alice.token })).body.data.length;
  const count = await boards();
  const text = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: 'text',
    x: 0,
    y: 0,
    width: 1,
    height: 1,
    text: 't',
    ...extra,
  });
  const cases: [unknown, RegExp][] = [
    [[], /at \/: /],
    [{ nodes: {} }, /at \/nodes: /],
    [{ nodes: [{ id: 'a', type: 'text', y: 0, width: 1, height: 1, text: 't' }] }, /at \/nodes\/0\/x/],
    [{ nodes: [text('a', { color: 'red' })] }, /at \/nodes\/0\/color/],
    [{ nodes: [{ ...text('a'), type: 'shape' }] }, /at \/nodes\/0\/type/],
    [{ nodes: [text('a'), text('a')] }, /at \/nodes\/1\/id: .*used twice/],
    [{ nodes: [text('a')], edges: [{ id: 'e', fromNode: 'a', toNode: 'b' }] }, /at \/edges\/0\/toNode/],
    [{ nodes: [text('a')], edges: [{ id: 'e', fromNode: 'a', toNode: 'a', toEnd: 'diamond' }] }, /at \/edges\/0\/toEnd/],
    [
      {
        nodes: [text('a'), text('b')],
        'x-board-workspace': {
          version: 1,
          board: { name: 'loop' },
          nodes: { a: { type: 'note', data: { text: 'a' }, parent: 'b' }, b: { type: 'note', data: { text: 'b' }, parent: 'a' } },
          edges: {},
        },
      },
      /at \/nodes\/0: its parents form a loop/,
    ],
    [{ nodes: [{ id: 'l', type: 'link', x: 0, y: 0, width: 1, height: 1, url: 'https://example.com', extra: 1 }] }, /./],
  ];
  for (const [document, message] of cases.slice(0, -1)) {
    const res = await server.request('POST', '/v1/boards/import', { token: alice.token, body: document });
    assert.ok(isErrorEnvelope(res.body, 400), `${JSON.stringify(document).slice(0, 80)}: ${res.text}`);
    assert.match(res.body.message, message);
  }
  // Keys the format does not name are other tools' own: accepted.
  const extra = await server.request('POST', '/v1/boards/import', { token: alice.token, body: cases.at(-1)![0] });
  assert.equal(extra.status, 201, extra.text);
  assert.equal(await boards(), count + 1);
});

test('who may export and import; the board bounds apply', async () => {
  const alice = await server.user();
  const bob = await server.user();
  const privateBoard = await server.makeBoard(alice);
  const publicBoard = await server.makeBoard(alice, { is_public: true });
  const hidden = await server.request('GET', `/v1/boards/${privateBoard}/export?format=jsoncanvas`, { token: bob.token });
  assert.ok(isErrorEnvelope(hidden.body, 404), hidden.text);
  assert.equal((await server.request('GET', `/v1/boards/${publicBoard}/export?format=jsoncanvas`, { token: bob.token })).status, 200);
  const noFormat = await server.request('GET', `/v1/boards/${publicBoard}/export`, { token: alice.token });
  assert.ok(isErrorEnvelope(noFormat.body, 400), noFormat.text);
  const readOnly = await alice.keyWith(['read']);
  const refused = await server.request('POST', '/v1/boards/import', { token: readOnly.raw_key, body: { nodes: [] } });
  assert.ok(isErrorEnvelope(refused.body, 403), refused.text);

  const small = await startServer({ BOARD_MAX_NODES: '3' });
  try {
    const carol = await small.user();
    const nodes = Array.from({ length: 4 }, (_, i) => ({ id: `n${i}`, type: 'text', x: i, y: 0, width: 1, height: 1, text: 't' }));
    const tooMany = await small.request('POST', '/v1/boards/import', { token: carol.token, body: { nodes } });
    assert.ok(isErrorEnvelope(tooMany.body, 409), tooMany.text);
    const list = await small.request<{ data: BoardBody['data'][] }>('GET', '/v1/boards', { token: carol.token });
    assert.equal(list.body.data.length, 0);
  } finally {
    await small.close();
  }
});
