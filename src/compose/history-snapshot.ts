// What a board version holds and how it is stored: the board's fields, nodes and edges as the API
// answers them, as JSON compressed with gzip (zlib runs on libuv's thread pool, so compressing a
// large board does not hold the event loop). A 2,000-card board is a few hundred KiB of JSON and a
// few tens of KiB stored.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { fieldsOf } from '../contract/common.js';
import { Edge } from '../contract/edges.js';
import type { VersionBoard } from '../contract/history.js';
import { Node } from '../contract/nodes.js';
import type { Executor } from '../db/schema.js';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

export const nodeColumns = fieldsOf(Node);
export const edgeColumns = fieldsOf(Edge);

/** A board as a version keeps it. */
export interface Snapshot {
  board: VersionBoard;
  nodes: Node[];
  edges: Edge[];
}

/** The board's nodes and edges as they are in `trx` (read in the order of their ids, so equal boards give equal snapshots). */
export async function readContent(trx: Executor, boardId: string): Promise<Pick<Snapshot, 'nodes' | 'edges'>> {
  const nodes = await trx.selectFrom('nodes').select(nodeColumns).where('board_id', '=', boardId).orderBy('id').execute();
  const edges = await trx.selectFrom('edges').select(edgeColumns).where('board_id', '=', boardId).orderBy('id').execute();
  return { nodes, edges };
}

export async function encodeSnapshot(snapshot: Snapshot): Promise<Buffer> {
  return zip(Buffer.from(JSON.stringify(snapshot)), { level: 6 });
}

const revive = <T extends { created_at: Date; updated_at: Date }>(row: T): T => ({
  ...row,
  created_at: new Date(row.created_at),
  updated_at: new Date(row.updated_at),
});

export async function decodeSnapshot(stored: Buffer): Promise<Snapshot> {
  const parsed = JSON.parse((await unzip(stored)).toString('utf8')) as Snapshot;
  return {
    board: parsed.board,
    nodes: parsed.nodes.map(revive),
    edges: parsed.edges.map(revive),
  };
}
