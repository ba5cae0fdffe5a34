// Search across boards: the board search (search-service.ts) run on each board the caller may read
// that holds chunks, the hits merged by score (each mode's score has one scale on every board:
// cosine similarity, a share of the best BM25 score the query could reach there, or the fused rank
// over its maximum). Pages by offset in the merged ranking, bound to the request by its cursor.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { boardSeenBy } from '../access/board-access.js';
import { CROSS_SEARCH_MAX_BOARDS, type CrossBoardHit, type CrossBoardSearchBody } from '../contract/documents-search.js';
import { invalid } from '../errors.js';
import { searchChunksPage, type SearchDeps } from './search-service.js';

/** How deep a page may reach in the merged ranking (offset + limit). */
export const CROSS_SEARCH_MAX_DEPTH = 500;
/** Boards searched at once. */
const CONCURRENCY = 4;

export async function searchAcrossBoards(
  deps: SearchDeps,
  principal: Principal,
  body: CrossBoardSearchBody,
): Promise<{ data: CrossBoardHit[]; has_more: boolean; cursor: string | null }> {
  const { query, mode = 'vector', limit = 10, threshold = 0, node_ids, board_ids, cursor } = body;
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        principal.userId,
        query,
        mode,
        threshold,
        node_ids ? [...new Set(node_ids)].sort() : null,
        board_ids ? [...new Set(board_ids)].sort() : null,
        deps.embedder.model,
      ]),
    )
    .digest('base64url')
    .slice(0, 22);
  const offset = cursor === undefined ? 0 : readCursor(cursor, key);
  const depth = offset + limit;
  if (depth > CROSS_SEARCH_MAX_DEPTH) throw invalid(`a search across boards pages at most ${CROSS_SEARCH_MAX_DEPTH} hits deep`);

  // Boards the caller may read (the one access rule) that hold live chunks; named ones, or its own
  // and those shared with it (as GET /v1/boards lists them).
  const scope = board_ids
    ? sql`b.id = ANY(${[...new Set(board_ids)]}::uuid[])`
    : sql`(b.owner_id = ${principal.userId} OR EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = b.id AND m.user_id = ${principal.userId}))`;
  const { rows: boards } = await sql<{ id: string }>`
    SELECT b.id FROM boards b
    WHERE ${scope} AND ${boardSeenBy(principal, 'b')}
      AND EXISTS (SELECT 1 FROM chunk_sets s WHERE s.board_id = b.id AND s.state = 'live')
    ORDER BY b.updated_at DESC, b.id
    LIMIT ${CROSS_SEARCH_MAX_BOARDS}
  `.execute(deps.db);

  const hits: CrossBoardHit[] = [];
  const queue = [...boards];
  const worker = async () => {
    for (let board = queue.shift(); board; board = queue.shift()) {
      // Each board's first depth + 1 hits: enough to fill this page and tell whether more follow.
      const page = await searchChunksPage(deps, board.id, query, { mode, limit: depth + 1, threshold, nodeIds: node_ids });
      for (const hit of page.data) hits.push({ ...hit, board_id: board.id });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, boards.length) }, worker));
  hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const data = hits.slice(offset, depth);
  const has_more = hits.length > depth;
  return { data, has_more, cursor: has_more ? Buffer.from(JSON.stringify({ v: 1, k: key, o: depth })).toString('base64url') : null };
}

function readCursor(raw: string, key: string): number {
  let body: { v?: unknown; k?: unknown; o?: unknown } | null;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor is not a valid cursor');
  }
  if (typeof body !== 'object' || body === null || body.v !== 1 || typeof body.o !== 'number' || !Number.isInteger(body.o) || body.o <= 0)
    throw invalid('cursor is not a valid cursor');
  if (body.k !== key) throw invalid('cursor was issued for a different search (query, mode, threshold, node_ids or board_ids differ)');
  return body.o;
}
