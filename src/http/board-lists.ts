// Answering a page of a board's nodes or edges, or a single node, through the app's list cache
// (src/boards/list-cache.ts): the board's version is read (board-versions.ts), checking access and
// the API key as the read's own statement does; an unchanged board gets the answer as it was sent,
// anything else is read, sent and kept.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { KeptPage, PageRequest } from '../lib/pagination.js';
import type { Follow } from '../boards/list-cache.js';
import { tagged } from './conditional.js';
import type { Services } from './types.js';

/**
 * Sends `{ object: 'list', ...page }` for the list named `list` (the cursor's scope: board and
 * filter) and `page`, read by `read` unless the board is unchanged since the same page was kept.
 * A read that answers the board's version its statement saw, given `follow`, keeps the page to
 * follow the changes this instance makes to the board (list-cache.ts).
 */
export async function sendBoardList<T>(
  { boardVersions, listCache }: Pick<Services, 'boardVersions' | 'listCache'>,
  reply: FastifyReply,
  principal: Principal,
  boardId: string,
  list: string,
  page: PageRequest,
  read: () => Promise<KeptPage<T> & { version?: number | undefined }>,
  follow?: Follow<KeptPage<T>>,
): Promise<FastifyReply> {
  if (listCache === undefined) return reply.send({ object: 'list', ...(await read()).page });
  const version = await boardVersions.visibleTo(principal, boardId);
  const key = `${list}|${page.limit}|${page.order}|${page.after ? `${page.after.createdAt.toISOString()}|${page.after.id}` : ''}`;
  let kept = listCache.find<KeptPage<T>>(key, version);
  const commit = kept === undefined ? listCache.behind(key, version) : undefined;
  if (commit !== undefined) {
    await commit;
    kept = listCache.find<KeptPage<T>>(key, version);
  }
  let body = kept?.body;
  if (kept !== undefined && body === undefined && kept.value !== undefined) {
    // Changes were applied to the kept page since its bytes were made.
    body = Buffer.from(reply.serialize({ object: 'list', ...kept.value.page }) as string);
    listCache.fill(key, version, body);
  }
  if (body === undefined) {
    // Read after the version, so the page is of that version or newer: never older than its key.
    // Kept as bytes: sending a Buffer saves encoding the same text on every hit.
    const { version: exact, ...fresh } = await read();
    body = Buffer.from(reply.serialize({ object: 'list', ...fresh.page }) as string);
    if (exact !== undefined && follow !== undefined) listCache.put(key, exact, body, undefined, { board: boardId, value: fresh, follow });
    else listCache.put(key, version, body);
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
  follow?: Follow<T>,
): Promise<FastifyReply> {
  const version = listCache?.has(key) ? await boardVersions.visibleTo(principal, boardId) : undefined;
  let kept = version === undefined ? undefined : listCache?.find<T>(key, version);
  const commit = kept === undefined && version !== undefined ? listCache?.behind(key, version) : undefined;
  if (commit !== undefined) {
    await commit;
    kept = listCache?.find<T>(key, version!);
  }
  if (kept !== undefined && kept.body === undefined) {
    // Changes were applied to the kept resource since its bytes were made.
    const data = kept.value as T;
    kept = { body: Buffer.from(reply.serialize({ object, data }) as string), tag: tagOf(data), value: data };
    listCache?.fill(key, version!, kept.body!, kept.tag);
  }
  if (kept === undefined) {
    const { data, version } = await read();
    kept = { body: Buffer.from(reply.serialize({ object, data }) as string), tag: tagOf(data), value: data };
    listCache?.put(key, version, kept.body!, kept.tag, follow && { board: boardId, value: data, follow });
  }
  if (tagged(request, reply, kept.tag ?? '')) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(kept.body);
}
