// Answering a page of a board's nodes or edges, or a single node, through the app's list cache
// (src/boards/list-cache.ts): the board's version is read (board-versions.ts), checking access and
// the API key as the read's own statement does; an unchanged board gets the answer as it was sent,
// anything else is read, sent and kept.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { Page, PageRequest } from '../lib/pagination.js';
import { tagged } from './conditional.js';
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

/**
 * Sends `{ object, data }` for one resource on a board (a node) with its ETag (304 for a matching
 * If-None-Match), from the answer the list cache keeps for the board's version when the board is
 * unchanged since. A resource not kept is read at once, with the version its statement saw (one
 * statement, as without the cache); one kept at an older version costs the version read and then
 * the read. `key` names the resource (board and id).
 */
export async function sendBoardChild<T>(
  { boardVersions, listCache }: Pick<Services, 'boardVersions' | 'listCache'>,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  boardId: string,
  key: string,
  object: string,
  read: () => Promise<{ data: T; version: number }>,
  tagOf: (data: T) => string,
): Promise<FastifyReply> {
  let kept = listCache?.has(key) ? listCache.find(key, await boardVersions.visibleTo(principal, boardId)) : undefined;
  if (kept === undefined) {
    const { data, version } = await read();
    kept = { body: Buffer.from(reply.serialize({ object, data }) as string), tag: tagOf(data) };
    listCache?.put(key, version, kept.body, kept.tag);
  }
  if (tagged(request, reply, kept.tag ?? '')) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(kept.body);
}
