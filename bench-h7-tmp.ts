// Measures a history snapshot of a 2,000-card board, and the write latency with and without the sweep.
import { startServer } from '/work/wt/h7/test/helpers/harness.js';
const server = await startServer({ HISTORY_SNAPSHOT_INTERVAL_SECONDS: '86400' });
const alice = await server.user();
const boardId = await server.makeBoard(alice);
for (let b = 0; b < 4; b++) {
  const operations = Array.from({ length: 500 }, (_, i) => ({ op: 'create_node', type: 'note', position: { x: (i % 50) * 300, y: (b * 10 + Math.floor(i / 50)) * 200 }, data: { text: `Card ${b * 500 + i}: some words about a topic, a plan, a list of things to do and a longer sentence for realism.` } }));
  const r = await server.request('POST', `/v1/boards/${boardId}/batch`, { token: alice.token, body: { operations } });
  if (r.status !== 200) throw new Error(r.text);
}
const history = server.built.services.history;
await server.database.db.deleteFrom('board_history').execute();
const times: number[] = [];
for (let i = 0; i < 5; i++) {
  await server.database.db.deleteFrom('board_history').execute();
  const t = performance.now();
  await history.sweep(50);
  times.push(performance.now() - t);
}
const v = await server.database.db.selectFrom('board_history').select(['size_bytes', 'node_count']).executeTakeFirstOrThrow();
const raw = await server.request<{ data: unknown }>('GET', `/v1/boards/${boardId}/history?limit=1`, { token: alice.token });
console.log('snapshot ms', times.map((t) => t.toFixed(1)).join(' '), 'stored bytes', v.size_bytes, 'nodes', v.node_count);
// Write latency: 200 PATCHes alone, then 200 PATCHes while a sweep snapshots the board in a loop.
const node = (await server.request<{ data: { id: string }[] }>('GET', `/v1/boards/${boardId}/nodes?limit=1`, { token: alice.token })).body.data[0]!.id;
async function writes(n: number) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await server.request('PATCH', `/v1/boards/${boardId}/nodes/${node}`, { token: alice.token, body: { position: { x: i, y: 0 } } });
    if (r.status !== 200) throw new Error(r.text);
    out.push(performance.now() - t);
  }
  out.sort((a, b) => a - b);
  return `p50 ${out[n / 2]!.toFixed(1)} p95 ${out[Math.floor(n * 0.95)]!.toFixed(1)}`;
}
console.log('writes alone', await writes(200));
let stop = false;
const loop = (async () => { while (!stop) { await server.database.db.deleteFrom('board_history').execute(); await history.sweep(50); } })();
console.log('writes during snapshots', await writes(200));
stop = true; await loop;
await server.close();
