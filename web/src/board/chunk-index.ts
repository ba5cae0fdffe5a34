// Which node a stored chunk (a search hit, a chat reply's source) came from. A chat reply names
// its sources by chunk id only (metadata.sources); search results already carry node_id, source
// and page, and the board's chunk list (GET …/documents) answers for the rest, read in pages
// until every asked id is found.
import { listChunks } from './board-api';

export interface ChunkInfo {
  nodeId: string | null;
  source: string;
  page: number;
  sourceType: string;
}

const MAX_PAGES = 50;

export class ChunkIndex {
  private known = new Map<string, ChunkInfo>();
  private scan?: Promise<void>;

  constructor(private readonly boardId: string) {}

  remember(chunks: { id: string; node_id: string | null; metadata: { source: string; page: number; sourceType: string } }[]): void {
    for (const c of chunks)
      this.known.set(c.id, { nodeId: c.node_id, source: c.metadata.source, page: c.metadata.page, sourceType: c.metadata.sourceType });
  }

  /** The chunks among `ids` that still exist, by id (a re-vectorized node's old chunks are gone). */
  async resolve(ids: string[]): Promise<Map<string, ChunkInfo>> {
    if (ids.some((id) => !this.known.has(id))) {
      this.scan ??= this.read(new Set(ids)).finally(() => (this.scan = undefined));
      await this.scan;
    }
    const out = new Map<string, ChunkInfo>();
    for (const id of ids) {
      const info = this.known.get(id);
      if (info) out.set(id, info);
    }
    return out;
  }

  private async read(wanted: Set<string>): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { data, next } = await listChunks(this.boardId, cursor);
      this.remember(data);
      if ([...wanted].every((id) => this.known.has(id)) || !next) return;
      cursor = next;
    }
  }
}
