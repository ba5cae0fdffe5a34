// In-process cache of single-node reads, used only on the embedded database. There exactly one
// process can open the data (DATA_DIR is locked), so this service's own writes are the only
// changes, and invalidating a board's entries after each committed write keeps the cache exact.
//
// Races are closed by generations: a read notes its board's generation before it queries, and its
// result is only cached if no write to that board finished in the meantime.
import type { Db } from '../db/schema.js';
import type { NodeView } from './node-service.js';

const MAX_NODES = 50_000;
const MAX_BOARDS = 100_000;

interface BoardEntry {
  ownerId: string;
  isPublic: boolean;
  nodes: Map<string, NodeView>;
}

export class NodeReadCache {
  private readonly boards = new Map<string, BoardEntry>();
  private readonly generations = new Map<string, number>();
  private size = 0;

  generation(boardId: string): number {
    return this.generations.get(boardId) ?? 0;
  }

  /** A cached node, if the caller may see its board. */
  get(boardId: string, nodeId: string, userId: string): NodeView | undefined {
    const entry = this.boards.get(boardId);
    if (!entry || (entry.ownerId !== userId && !entry.isPublic)) return undefined;
    return entry.nodes.get(nodeId);
  }

  put(boardId: string, generation: number, board: { ownerId: string; isPublic: boolean }, node: NodeView): void {
    if (this.generation(boardId) !== generation) return;
    if (this.size >= MAX_NODES) this.clear();
    let entry = this.boards.get(boardId);
    if (!entry || entry.ownerId !== board.ownerId || entry.isPublic !== board.isPublic) {
      if (entry) this.size -= entry.nodes.size;
      entry = { ...board, nodes: new Map() };
      this.boards.set(boardId, entry);
    }
    if (!entry.nodes.has(node.id)) this.size++;
    entry.nodes.set(node.id, node);
  }

  /** Call after every committed (or failed) write that may change a board's nodes or visibility. */
  invalidate(boardId: string): void {
    const entry = this.boards.get(boardId);
    if (entry) {
      this.size -= entry.nodes.size;
      this.boards.delete(boardId);
    }
    if (this.generations.size >= MAX_BOARDS) this.generations.clear();
    this.generations.set(boardId, this.generation(boardId) + 1);
  }

  private clear(): void {
    this.boards.clear();
    this.size = 0;
  }
}

const caches = new WeakMap<Db, NodeReadCache>();

/** Turns the cache on for a database handle (the embedded one). */
export function enableNodeReadCache(db: Db): void {
  caches.set(db, new NodeReadCache());
}

export function nodeReadCacheFor(db: Db): NodeReadCache | undefined {
  return caches.get(db);
}

/** Runs a write to a board's content or settings and then invalidates the board's cached nodes. */
export async function invalidatingBoard<T>(db: Db, boardId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    caches.get(db)?.invalidate(boardId);
  }
}
