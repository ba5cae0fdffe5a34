// In-process cache of single-node reads, used only on the embedded database. There exactly one
// process can open the data (DATA_DIR is locked), so this service's own writes are the only
// changes, and invalidating a board's entries after each committed write keeps the cache exact.
//
// Races are closed by generations: a read notes its board's generation before it queries, and its
// result is only cached if no write to that board finished in the meantime.
import type { Principal } from '../auth/principal.js';
import { canSeeBoard, type BoardRow } from '../access/board-access.js';
import type { Db } from '../db/schema.js';
import type { Node } from '../contract/nodes.js';

const MAX_NODES = 50_000;
const MAX_BOARDS = 100_000;

/** What the visibility rule reads of a board (canSeeBoard), with the board's cached nodes. */
type BoardAccess = Pick<BoardRow, 'owner_id' | 'is_public'>;
interface BoardEntry extends BoardAccess {
  nodes: Map<string, Node>;
}

export class NodeReadCache {
  private readonly boards = new Map<string, BoardEntry>();
  private readonly generations = new Map<string, number>();
  private size = 0;

  generation(boardId: string): number {
    return this.generations.get(boardId) ?? 0;
  }

  /** A cached node, if the caller may see its board. */
  get(boardId: string, nodeId: string, principal: Principal): Node | undefined {
    const entry = this.boards.get(boardId);
    if (!entry || !canSeeBoard(entry, principal)) return undefined;
    return entry.nodes.get(nodeId);
  }

  put(boardId: string, generation: number, board: BoardAccess, node: Node): void {
    if (this.generation(boardId) !== generation) return;
    if (this.size >= MAX_NODES) this.clear();
    let entry = this.boards.get(boardId);
    if (!entry || entry.owner_id !== board.owner_id || entry.is_public !== board.is_public) {
      if (entry) this.size -= entry.nodes.size;
      entry = { owner_id: board.owner_id, is_public: board.is_public, nodes: new Map() };
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

/** What reads and writes of nodes need: the database, and the app's cache when it has one. */
export interface NodeStore {
  db: Db;
  /** Only on the embedded database (see the top of this file); one per app, built by the app factory. */
  nodeCache?: NodeReadCache;
}

/** Runs a write to a board's content or settings and then invalidates the board's cached nodes. */
export async function invalidatingBoard<T>(store: NodeStore, boardId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    store.nodeCache?.invalidate(boardId);
  }
}
