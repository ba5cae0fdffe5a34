import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Board, BoardBody, BodyOf, DuplicateBody, EdgeList, Node, NodeInput, NodeList } from './helpers/api-types.js';
import { type Response, type TestUser, useServer } from './helpers/harness.js';
import { makePdf, PNG, uploadFile } from './helpers/assets.js';

const server = useServer();

type BatchBody = BodyOf<'/v1/boards/{boardId}/batch', 'post'>;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  alice = await server.user();
  bob = await server.user();
});

const NODES = 500;
const ROOTS = 100;
const EDGES = 1000;
/** Nodes made in one batch: a node's parent is one of an earlier batch's. */
const WAVE = 10;

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

const assets: Record<'pdf' | 'image', Record<string, unknown>> = { pdf: {}, image: {} };

function nodeBody(i: number): { type: NodeInput['type']; data: Record<string, unknown> } {
  const common = { idx: i, label: `node ${i}`, width: 100 + (i % 7) };
  switch (i % 6) {
    case 0:
      return { type: 'video', data: { ...common, url: `https://youtu.be/v${i}` } };
    case 1:
      return { type: 'url', data: { ...common, url: `https://example.com/${i}` } };
    case 2:
      return { type: 'note', data: { ...common, text: `note ${i}` } };
    case 3:
      return { type: 'document', data: { ...common, text: `doc ${i}`, url: `https://example.com/d${i}` } };
    // pdf and image nodes must name an asset of the board (uploaded in the test below).
    case 4:
      return { type: 'pdf', data: { ...common, ...assets.pdf } };
    default:
      return { type: 'image', data: { ...common, ...assets.image } };
  }
}

/** A board's React Flow document, as its owner reads it. */
type Flow = NonNullable<Board['flow_state']>;

async function flowOf(token: string, boardId: string): Promise<Flow> {
  const res = await server.request<BoardBody>('GET', `/v1/boards/${boardId}`, { token });
  assert.equal(res.status, 200);
  assert.ok(res.body.data.flow_state, 'the owner sees flow_state');
  return res.body.data.flow_state;
}

/** Every item of a node or edge list, over its pages. */
async function listAll<L extends NodeList | EdgeList>(token: string, path: string): Promise<L['data'][number][]> {
  const items: L['data'][number][] = [];
  let cursor: string | null = null;
  do {
    const res: Response<L> = await server.request<L>('GET', `${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
      token,
    });
    assert.equal(res.status, 200);
    items.push(...res.body.data);
    cursor = res.body.cursor;
  } while (cursor);
  return items;
}

/** Asserts that `copy` is `original` up to ids, and returns the old-to-new node id map. */
function assertSameGraph(original: Flow, copy: Flow): Map<string, string> {
  assert.equal(copy.viewMode, original.viewMode);
  assert.deepEqual(copy.viewport, original.viewport);
  assert.equal(copy.nodes.length, original.nodes.length);
  assert.equal(copy.edges.length, original.edges.length);
  // Map by the unique idx each node carries in its data (and check position agrees).
  const byIdx = new Map(copy.nodes.map((n) => [n.data.idx, n]));
  const idMap = new Map<string, string>();
  for (const n of original.nodes) {
    const twin = byIdx.get(n.data.idx);
    assert.ok(twin, `node ${String(n.data.idx)} was copied`);
    assert.notEqual(twin.id, n.id);
    assert.deepEqual(twin.position, n.position);
    idMap.set(n.id, twin.id);
  }
  assert.equal(new Set(idMap.values()).size, original.nodes.length);
  original.nodes.forEach((n, i) => {
    const c = copy.nodes[i]!;
    // same order, same content, parent remapped
    assert.equal(c.id, idMap.get(n.id), `node order at ${i}`);
    assert.equal(c.type, n.type);
    assert.deepEqual(c.data, n.data);
    assert.equal(c.parentId, n.parentId === undefined ? undefined : idMap.get(n.parentId));
  });
  const oldEdgeIds = new Set(original.edges.map((e) => e.id));
  original.edges.forEach((e, i) => {
    const c = copy.edges[i]!;
    assert.ok(!oldEdgeIds.has(c.id));
    assert.equal(c.source, idMap.get(e.source), `edge ${i} source`);
    assert.equal(c.target, idMap.get(e.target), `edge ${i} target`);
    assert.equal(c.type, e.type);
    assert.deepEqual(c.data, e.data);
  });
  return idMap;
}

test('duplicating a board of 500 nodes and 1,000 edges copies the graph exactly', async () => {
  const boardRes = await server.request<BoardBody>('POST', '/v1/boards', {
    token: alice.token,
    body: { name: 'Big', viewport_x: 12, viewport_y: -4, viewport_zoom: 0.75 },
  });
  const boardId: string = boardRes.body.data.id;
  assets.pdf = (await uploadFile(server, alice, boardId, await makePdf(2), 'paper.pdf', 'application/pdf')).nodeData;
  assets.image = (await uploadFile(server, alice, boardId, PNG, 'pixel.png', 'image/png')).nodeData;
  const rand = lcg(42);

  // Each wave of WAVE nodes (their parents from earlier waves), then the edges, in batches:
  // the graph is what is duplicated here, and making it one request a node or edge was most of this
  // file's time.
  const ids: string[] = [];
  const nodes: Node[] = [];
  for (let start = 0; start < NODES; start += WAVE) {
    const operations = Array.from({ length: Math.min(WAVE, NODES - start) }, (_, k) => {
      const i = start + k;
      const { type, data } = nodeBody(i);
      // After the first ROOTS nodes, most nodes get a parent from an earlier wave.
      const parent = i >= ROOTS && i % 5 !== 0 ? ids[rand(start)] : undefined;
      return { op: 'create_node', type, position: { x: i * 10, y: -i * 3.5 }, data, ...(parent ? { parent_node_id: parent } : {}) };
    });
    const res = await server.request<BatchBody>('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });
    assert.equal(res.status, 200, res.text);
    for (const [k, result] of res.body.data.results.entries()) {
      ids[start + k] = result.id;
      nodes.push(result.node!);
    }
  }
  assert.equal(nodes.length, NODES);
  const parented = nodes.filter((n) => n.parent_node_id !== null).length;
  assert.ok(parented > 250, `${parented} nodes have a parent`);

  const edges = Array.from({ length: EDGES }, (_, j) => ({
    op: 'create_edge',
    source_node_id: ids[rand(NODES)]!,
    target_node_id: ids[rand(NODES)]!,
    ...(j % 3 === 0 ? {} : { type: j % 2 === 0 ? 'smoothstep' : 'bezier' }),
    ...(j % 4 === 0 ? {} : { data: { weight: j / 10, label: `e${j}` } }),
  }));
  for (let start = 0; start < EDGES; start += 500) {
    const operations = edges.slice(start, start + 500);
    const res = await server.request<BatchBody>('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });
    assert.equal(res.status, 200, res.text);
  }

  const original = await flowOf(alice.token, boardId);
  assert.equal(original.nodes.length, NODES);
  assert.equal(original.edges.length, EDGES);
  assert.equal(original.nodes.filter((n) => n.parentId).length, parented);

  const dup = await server.request<DuplicateBody>('POST', `/v1/boards/${boardId}/duplicate`, { token: alice.token });
  assert.equal(dup.status, 201, dup.text);
  assert.equal(dup.body.data.name, 'Big (Copy)');
  assert.deepEqual([dup.body.data.viewport_x, dup.body.data.viewport_y, dup.body.data.viewport_zoom], [12, -4, 0.75]);
  const copyId: string = dup.body.data.id;
  const copy = await flowOf(alice.token, copyId);
  const idMap = assertSameGraph(original, copy);

  // The node and edge lists of the copy keep the original's order (newest first, over pages).
  const oldNodes = await listAll<NodeList>(alice.token, `/v1/boards/${boardId}/nodes`);
  const newNodes = await listAll<NodeList>(alice.token, `/v1/boards/${copyId}/nodes`);
  assert.equal(newNodes.length, NODES);
  assert.deepEqual(
    newNodes.map((n) => n.id),
    oldNodes.map((n) => idMap.get(n.id)),
  );
  assert.deepEqual(
    newNodes.map((n) => n.node_data.idx),
    oldNodes.map((n) => n.node_data.idx),
  );
  assert.deepEqual(
    newNodes.map((n) => n.node_type),
    oldNodes.map((n) => n.node_type),
  );
  const oldEdges = await listAll<EdgeList>(alice.token, `/v1/boards/${boardId}/edges`);
  const newEdges = await listAll<EdgeList>(alice.token, `/v1/boards/${copyId}/edges`);
  assert.deepEqual(
    newEdges.map((e) => [e.source_node_id, e.target_node_id, e.edge_type, e.edge_data]),
    oldEdges.map((e) => [idMap.get(e.source_node_id), idMap.get(e.target_node_id), e.edge_type, e.edge_data]),
  );
  assert.ok(newEdges.every((e) => e.board_id === copyId));

  // The copy is independent: deleting a node there leaves the original whole.
  const victim = newNodes[0]!.id;
  assert.equal((await server.request('DELETE', `/v1/boards/${copyId}/nodes/${victim}`, { token: alice.token })).status, 200);
  assert.deepEqual(await flowOf(alice.token, boardId), original);

  // Another user duplicates the board once it is public, and gets the same graph.
  assert.equal((await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: true } })).status, 200);
  const bobsDup = await server.request<DuplicateBody>('POST', `/v1/boards/${boardId}/duplicate`, { token: bob.token });
  assert.equal(bobsDup.status, 201);
  assertSameGraph(original, await flowOf(bob.token, bobsDup.body.data.id));
});
