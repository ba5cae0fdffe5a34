// A board's bounds (BOARD_MAX_NODES, BOARD_MAX_EDGES, BOARD_MAX_DATA_BYTES, BOARD_MAX_ASSET_BYTES): a write that would go
// past one answers 409 conflict naming the limit and the board's figure, and writes nothing;
// concurrent writes cannot both slip past; a duplicate stays within the bounds; the totals the
// bounds are checked against follow every write, cascades included.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { newId, now } from '../src/lib/ids.js';
import { PNG, postParts } from './helpers/assets.js';
import type { AssetList, BoardBody, DuplicateBody, EdgeBody, EdgeList, ErrorBody, NodeBody, NodeList } from './helpers/api-types.js';
import { isErrorEnvelope, type Response, type TestUser, useServer } from './helpers/harness.js';

const server = useServer({
  BOARD_MAX_NODES: '3',
  BOARD_MAX_EDGES: '2',
  BOARD_MAX_DATA_BYTES: '4096',
  BOARD_MAX_ASSET_BYTES: String(PNG.length * 2 + 10),
});
let user: TestUser;

before(async () => {
  user = await server.user();
});

const note = (text = 'n') => ({ type: 'note', position: { x: 0, y: 0 }, data: { text } });

/** A note made through the harness (asserting 201), for a test that only needs it to exist. */
async function makeNote(board: string, text = 'n'): Promise<string> {
  return (await server.makeNode(user, board, { data: { text } })).id;
}

async function addNode(board: string, text?: string) {
  return server.request<NodeBody>('POST', `/v1/boards/${board}/nodes`, { token: user.token, body: note(text) });
}

async function addEdge(board: string, source: string, target: string, data: Record<string, unknown> = {}) {
  return server.request<EdgeBody>('POST', `/v1/boards/${board}/edges`, {
    token: user.token,
    body: { source_node_id: source, target_node_id: target, data },
  });
}

/** The board's stored totals beside what its rows add up to. */
async function totals(board: string) {
  const db = server.database.db;
  const row = await db
    .selectFrom('boards')
    .select(['node_count', 'edge_count', 'data_bytes'])
    .where('id', '=', board)
    .executeTakeFirstOrThrow();
  const nodes = await db.selectFrom('nodes').select('data_bytes').where('board_id', '=', board).execute();
  const edges = await db.selectFrom('edges').select('data_bytes').where('board_id', '=', board).execute();
  const sum = (rows: { data_bytes: number }[]) => rows.reduce((total, r) => total + r.data_bytes, 0);
  return {
    stored: { node_count: row.node_count, edge_count: row.edge_count, data_bytes: Number(row.data_bytes) },
    actual: { node_count: nodes.length, edge_count: edges.length, data_bytes: sum(nodes) + sum(edges) },
  };
}

function assertRefused(res: Response<unknown>, pattern: RegExp) {
  assert.equal(res.status, 409, res.text);
  assert.ok(isErrorEnvelope(res.body, 409));
  assert.equal(res.body.code, 'conflict');
  assert.match(res.body.message, pattern);
}

describe('board bounds', () => {
  test('past BOARD_MAX_NODES a node create is 409 and writes nothing; deleting one makes room', async () => {
    const board = await server.makeBoard(user);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await addNode(board);
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.data.id);
    }
    const before = await server.request<BoardBody>('GET', `/v1/boards/${board}`, { token: user.token });
    assertRefused(await addNode(board), /at most 3 nodes; this board has 3 and this write would make it 4/);
    const list = await server.request<NodeList>('GET', `/v1/boards/${board}/nodes?limit=100`, { token: user.token });
    assert.equal(list.body.data.length, 3);
    const afterRefusal = await server.request<BoardBody>('GET', `/v1/boards/${board}`, { token: user.token });
    assert.equal(afterRefusal.body.data.updated_at, before.body.data.updated_at, 'the refused write left no trace');
    await server.request('DELETE', `/v1/boards/${board}/nodes/${ids[0]}`, { token: user.token });
    assert.equal((await addNode(board)).status, 201);
  });

  test('concurrent node creates cannot both slip past the bound', async () => {
    const board = await server.makeBoard(user);
    const results = await Promise.all(Array.from({ length: 8 }, () => addNode(board)));
    assert.equal(results.filter((r) => r.status === 201).length, 3);
    for (const res of results.filter((r) => r.status !== 201)) assertRefused(res, /at most 3 nodes/);
    const { stored, actual } = await totals(board);
    assert.equal(actual.node_count, 3);
    assert.deepEqual(stored, actual);
  });

  test('past BOARD_MAX_EDGES an edge create is 409 and writes nothing', async () => {
    const board = await server.makeBoard(user);
    const a = await makeNote(board);
    const b = await makeNote(board);
    assert.equal((await addEdge(board, a, b)).status, 201);
    assert.equal((await addEdge(board, b, a)).status, 201);
    assertRefused(await addEdge(board, a, a), /at most 2 edges; this board has 2 and this write would make it 3/);
    const list = await server.request<EdgeList>('GET', `/v1/boards/${board}/edges?limit=100`, { token: user.token });
    assert.equal(list.body.data.length, 2);
  });

  test('past BOARD_MAX_DATA_BYTES a node create, a node update or an edge create is 409 and writes nothing', async () => {
    const board = await server.makeBoard(user);
    const first = await addNode(board, 'x'.repeat(1500));
    const second = await addNode(board, 'y'.repeat(1500));
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    const { stored } = await totals(board);
    assertRefused(
      await addNode(board, 'z'.repeat(1500)),
      new RegExp(`at most 4096 bytes of node and edge data; this board has ${stored.data_bytes} and this write would make it \\d+`),
    );
    const grown = await server.request<ErrorBody>('PATCH', `/v1/boards/${board}/nodes/${first.body.data.id}`, {
      token: user.token,
      body: { data: { text: 'x'.repeat(3000) } },
    });
    assertRefused(grown, /bytes of node and edge data/);
    const unchanged = await server.request<NodeBody>('GET', `/v1/boards/${board}/nodes/${first.body.data.id}`, { token: user.token });
    assert.equal((unchanged.body.data.node_data.text as string).length, 1500);
    assertRefused(await addEdge(board, first.body.data.id, second.body.data.id, { note: 'e'.repeat(1500) }), /bytes of node and edge data/);
    // Moving a node or shrinking its data is always allowed.
    const moved = await server.request('PATCH', `/v1/boards/${board}/nodes/${first.body.data.id}`, {
      token: user.token,
      body: { position: { x: 5, y: 5 }, data: { text: 'short' } },
    });
    assert.equal(moved.status, 200, moved.text);
    const { stored: now, actual } = await totals(board);
    assert.deepEqual(now, actual);
    assert.equal(actual.node_count, 2);
    assert.equal(actual.edge_count, 0);
  });

  test('the totals follow every write: updates, deleting a node with its edges, deleting an edge', async () => {
    const board = await server.makeBoard(user);
    const a = await makeNote(board, 'first');
    const b = await makeNote(board, 'second');
    const c = await makeNote(board, 'third');
    const ab = (await server.makeEdge(user, board, a, b, { data: { label: 'ab' } })).id;
    await server.makeEdge(user, board, b, c, { data: { label: 'bc' } });
    await server.request('PATCH', `/v1/boards/${board}/nodes/${c}`, { token: user.token, body: { parent_node_id: b } });
    await server.request('PATCH', `/v1/boards/${board}/edges/${ab}`, { token: user.token, body: { data: { label: 'a longer label' } } });
    let { stored, actual } = await totals(board);
    assert.deepEqual(stored, actual);
    assert.deepEqual([actual.node_count, actual.edge_count], [3, 2]);
    // Deleting b removes both edges by cascade and detaches c.
    await server.request('DELETE', `/v1/boards/${board}/nodes/${b}`, { token: user.token });
    ({ stored, actual } = await totals(board));
    assert.deepEqual(stored, actual);
    assert.deepEqual([actual.node_count, actual.edge_count], [2, 0]);
  });

  test('a duplicate of a board within the bounds is made; one over a bound lowered since is 409 and creates no board', async () => {
    const board = await server.makeBoard(user);
    const a = await makeNote(board);
    const b = await makeNote(board);
    await makeNote(board);
    await server.makeEdge(user, board, a, b, { data: {} });
    await server.makeEdge(user, board, b, a, { data: {} });
    const copy = await server.request<DuplicateBody>('POST', `/v1/boards/${board}/duplicate`, { token: user.token });
    assert.equal(copy.status, 201, copy.text);
    const copied = await totals(copy.body.data.id);
    assert.deepEqual(copied.stored, copied.actual);
    assert.deepEqual(copied.stored, (await totals(board)).stored);

    // A board written before the bound was lowered: a fourth node written directly.
    const at = now();
    await server.database.db
      .insertInto('nodes')
      .values({
        id: newId(),
        board_id: board,
        node_type: 'note',
        position_x: 0,
        position_y: 0,
        node_data: JSON.stringify({ text: 'old' }),
        parent_node_id: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const boards = async () =>
      (await server.database.db.selectFrom('boards').select('id').where('owner_id', '=', user.userId).execute()).length;
    const count = await boards();
    assertRefused(
      await server.request<ErrorBody>('POST', `/v1/boards/${board}/duplicate`, { token: user.token }),
      /at most 3 nodes; this board has 4, too many to copy/,
    );
    assert.equal(await boards(), count, 'no board was created');
    // The board itself stays usable: deleting brings it back within its bounds.
    assert.equal((await server.request('DELETE', `/v1/boards/${board}/nodes/${a}`, { token: user.token })).status, 200);
  });

  test('past BOARD_MAX_ASSET_BYTES an upload is 409 and stores nothing', async () => {
    const board = await server.makeBoard(user);
    const upload = () => postParts(server, user.token, board, [{ filename: 'dot.png', type: 'image/png', data: PNG }]);
    const max = PNG.length * 2 + 10;
    assert.equal((await upload()).status, 201);
    assert.equal((await upload()).status, 201);
    // Room left, but less than the file: refused once its size is known.
    assertRefused(
      await upload(),
      new RegExp(`at most ${max} bytes of asset files; this board has ${PNG.length * 2} and this file would make it ${PNG.length * 3}`),
    );
    const stored = async () =>
      (await server.database.db.selectFrom('assets').select('size').where('board_id', '=', board).execute()).length;
    assert.equal(await stored(), 2, 'no row, not even a reservation, is left');
    const list = await server.request<AssetList>('GET', `/v1/boards/${board}/assets`, { token: user.token });
    assert.equal(list.body.data.length, 2);
    // A board whose files fill the bound (one lowered since) is refused before the file is read.
    const full = await server.makeBoard(user);
    await server.database.db
      .insertInto('assets')
      .values({
        storage_path: `${user.userId}/${full}/1-big.png`,
        board_id: full,
        user_id: user.userId,
        filename: '1-big.png',
        content_type: 'image/png',
        size: max,
        access_token: 'token',
        created_at: now(),
      })
      .execute();
    assertRefused(
      await postParts(server, user.token, full, [{ filename: 'dot.png', type: 'image/png', data: PNG }]),
      new RegExp(`at most ${max} bytes of asset files; this board has ${max}, no room for another file`),
    );
  });

  test('the full board read streams the whole board as one JSON document', async () => {
    const board = await server.makeBoard(user);
    const a = await makeNote(board, 'one');
    const b = await makeNote(board, 'two');
    await server.makeEdge(user, board, a, b, { data: {} });
    const res = await server.request<BoardBody>('GET', `/v1/boards/${board}`, { token: user.token });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(
      res.body.data.flow_state?.nodes.map((n) => n.id),
      [a, b],
    );
    assert.equal(res.body.data.flow_state?.edges.length, 1);
  });

  test('the bounds are settings checked at start', () => {
    assert.deepEqual(loadConfig({}).boardBounds, {
      maxNodes: 10_000,
      maxEdges: 20_000,
      maxDataBytes: 50 * 1024 * 1024,
      maxAssetBytes: 1024 * 1024 * 1024,
      owner: { maxBoards: 1000, maxStoredBytes: 5 * 1024 ** 3 },
    });
    assert.throws(() => loadConfig({ BOARD_MAX_NODES: '0' }), /BOARD_MAX_NODES must be between 1 and 1000000, got 0/);
    assert.throws(() => loadConfig({ BOARD_MAX_EDGES: 'lots' }), /BOARD_MAX_EDGES must be a whole number/);
    assert.throws(() => loadConfig({ BOARD_MAX_DATA_BYTES: '10' }), /BOARD_MAX_DATA_BYTES must be between 1024/);
  });
});
