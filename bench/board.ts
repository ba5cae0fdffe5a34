// Goal 2: a large board. 10,000 nodes and 20,000 edges are created through the public API, then the
// owner's full GET /v1/boards/{id} (flow_state with every node and edge) is timed, then
// POST /v1/boards/{id}/duplicate, then the server's resident memory is read from /proc.
import { ApiClient, benchApiKey, createBoard, seedEdges, seedNodes } from './lib/api.js';
import { fmt, type Goal, goalsTable, median, table } from './lib/report.js';
import { startServerChild, type ServerOptions } from './lib/server.js';

export interface BoardBenchOptions {
  nodes: number;
  edges: number;
  reads: number;
  duplicates: number;
  /** Requests in flight while seeding. */
  concurrency: number;
  server?: ServerOptions;
}

export interface BoardResult {
  seedSeconds: { nodes: number; edges: number };
  readMs: number[];
  readBytes: number;
  duplicateMs: number[];
  memory: { atStart: number; afterSeed: number; afterReads: number; afterDuplicates: number; peak: number };
  goals: Goal[];
  markdown: string;
}

const seconds = (since: number) => (performance.now() - since) / 1000;

function countFlow(text: string): { nodes: number; edges: number } {
  const body = JSON.parse(text) as { data: { flow_state?: { nodes: unknown[]; edges: unknown[] } } };
  const flow = body.data.flow_state;
  if (!flow) throw new Error('the owner read has no flow_state');
  return { nodes: flow.nodes.length, edges: flow.edges.length };
}

export async function runBoardBench(options: BoardBenchOptions): Promise<BoardResult> {
  const server = await startServerChild(options.server);
  try {
    // What the server holds before any board exists: mostly PGlite (see BENCHMARKS.md).
    const atStart = server.memory().rssMiB;
    const api = new ApiClient(server.url, await benchApiKey(server.url, 'bench-board'));
    const boardId = await createBoard(api, 'Large board');

    let started = performance.now();
    const nodeIds = await seedNodes(api, boardId, options.nodes, options.concurrency);
    const nodeSeconds = seconds(started);
    console.log(`  seeded ${fmt(options.nodes)} nodes in ${nodeSeconds.toFixed(1)} s (${fmt(options.nodes / nodeSeconds)}/s)`);
    started = performance.now();
    await seedEdges(api, boardId, nodeIds, options.edges, options.concurrency);
    const edgeSeconds = seconds(started);
    console.log(`  seeded ${fmt(options.edges)} edges in ${edgeSeconds.toFixed(1)} s (${fmt(options.edges / edgeSeconds)}/s)`);
    const afterSeed = server.memory().rssMiB;

    // Two untimed reads warm the caches and the JIT, and check that everything is there.
    for (let i = 0; i < 2; i++) {
      const counts = countFlow((await api.timed('GET', `/v1/boards/${boardId}`, 200)).text);
      if (counts.nodes !== options.nodes || counts.edges !== options.edges)
        throw new Error(`the board reads back ${counts.nodes} nodes and ${counts.edges} edges`);
    }
    const readMs: number[] = [];
    let readBytes = 0;
    for (let i = 0; i < options.reads; i++) {
      const { ms, text } = await api.timed('GET', `/v1/boards/${boardId}`, 200);
      readMs.push(ms);
      readBytes = Buffer.byteLength(text);
    }
    const afterReads = server.memory().rssMiB;
    console.log(`  full read: median ${median(readMs).toFixed(0)} ms over ${options.reads} (${(readBytes / 2 ** 20).toFixed(1)} MiB each)`);

    const duplicateMs: number[] = [];
    for (let i = 0; i < options.duplicates; i++) {
      const { ms, text } = await api.timed('POST', `/v1/boards/${boardId}/duplicate`, 201);
      duplicateMs.push(ms);
      const copyId = (JSON.parse(text) as { data: { id: string } }).data.id;
      const counts = countFlow((await api.timed('GET', `/v1/boards/${copyId}`, 200)).text);
      if (counts.nodes !== options.nodes || counts.edges !== options.edges)
        throw new Error(`the copy has ${counts.nodes} nodes and ${counts.edges} edges`);
      console.log(`  duplicate ${i + 1}: ${ms.toFixed(0)} ms`);
    }
    const { rssMiB: afterDuplicates, peakMiB: peak } = server.memory();
    console.log(`  server RSS: ${afterDuplicates.toFixed(0)} MiB after the duplicates (peak ${peak.toFixed(0)} MiB)`);

    const readMedian = median(readMs);
    const duplicateMedian = median(duplicateMs);
    const goals: Goal[] = [
      {
        name: `full board read, median of ${options.reads}`,
        target: '< 300 ms',
        measured: `${readMedian.toFixed(0)} ms`,
        met: readMedian < 300,
      },
      {
        name: `duplicate, median of ${options.duplicates}`,
        target: '< 3 s',
        measured: `${(duplicateMedian / 1000).toFixed(2)} s`,
        met: duplicateMedian < 3000,
      },
      {
        name: 'server RSS afterwards',
        target: '< 300 MB',
        measured: `${fmt(afterDuplicates * 1.048576)} MB (${fmt(afterDuplicates)} MiB)`,
        met: afterDuplicates * 1.048576 < 300,
      },
    ];
    const sorted = [...readMs].sort((a, b) => a - b);
    const markdown = [
      table(
        ['measure', 'value'],
        [
          [
            'board',
            `${fmt(options.nodes)} nodes, ${fmt(options.edges)} edges, seeded through the API with ${options.concurrency} requests in flight`,
          ],
          ['seeding nodes', `${nodeSeconds.toFixed(1)} s (${fmt(options.nodes / nodeSeconds)} creates/s)`],
          ['seeding edges', `${edgeSeconds.toFixed(1)} s (${fmt(options.edges / edgeSeconds)} creates/s)`],
          [
            'full `GET /v1/boards/{id}` (owner, flow_state)',
            `median ${readMedian.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)} over ${options.reads} sequential reads; ${(readBytes / 2 ** 20).toFixed(1)} MiB body`,
          ],
          ['`POST /v1/boards/{id}/duplicate`', duplicateMs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')],
          [
            'server RSS (VmRSS)',
            `at start (empty database) ${fmt(atStart)} MiB, after seeding ${fmt(afterSeed)} MiB, after reads ${fmt(afterReads)} MiB, after duplicates ${fmt(afterDuplicates)} MiB; peak (VmHWM) ${fmt(peak)} MiB`,
          ],
        ],
      ),
      '',
      goalsTable(goals),
    ].join('\n');
    return {
      seedSeconds: { nodes: nodeSeconds, edges: edgeSeconds },
      readMs,
      readBytes,
      duplicateMs,
      memory: { atStart, afterSeed, afterReads, afterDuplicates, peak },
      goals,
      markdown,
    };
  } finally {
    await server.stop();
  }
}
