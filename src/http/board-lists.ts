// Answering a page of a board's nodes or edges through the app's list cache (src/boards/list-cache.ts):
// the board's version is read (board-versions.ts), checking access as the list's own statement does;
// an unchanged board gets the page as it was sent, anything else is read, sent and kept.
import type { FastifyReply } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { Page, PageRequest } from '../lib/pagination.js';
import type { Services } from './types.js';

/**
 * Sends `{ object: 'list', ...page }` for the list named `list` (the cursor's scope: board and
 * filter) and `page`, read by `read` unless the board is unchanged since the same page was kept.
 */
export async function sendBoardList<T>(
  { boardVersions, listCache }: Pick<Services, 'boardVersions' | 'listCache'>,
  reply: FastifyReply,
  principal: Principal,
  boardId: string,
  list: string,
  page: PageRequest,
  read: () => Promise<Page<T>>,
): Promise<FastifyReply> {
  if (listCache === undefined) return reply.send({ object: 'list', ...(await read()) });
  const version = await boardVersions.visibleTo(principal, boardId);
  const key = `${list}|${page.limit}|${page.order}|${page.after ? `${page.after.createdAt.toISOString()}|${page.after.id}` : ''}`;
  let body = listCache.get(key, version);
  if (body === undefined) {
    // Read after the version, so the page is of that version or newer: never older than its key.
    // Kept as bytes: sending a Buffer saves encoding the same text on every hit.
    body = Buffer.from(reply.serialize({ object: 'list', ...(await read()) }) as string);
    listCache.put(key, version, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
