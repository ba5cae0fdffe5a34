// Keyset pagination on (created_at, id) with opaque, checked cursors. A cursor carries the list it
// was issued for and its order, so a cursor from another list, another board or another order is a
// 400 instead of a silently wrong page.
import { sql, type SelectQueryBuilder } from 'kysely';
import { invalid } from '../errors.js';
import { isUuid } from './ids.js';

export type Order = 'asc' | 'desc';

export interface PageRequest {
  limit: number;
  order: Order;
  after?: { createdAt: Date; id: string };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  cursor: string | null;
}

interface CursorBody {
  v: 1;
  l: string;
  o: Order;
  t: string;
  i: string;
}

export function encodeCursor(list: string, order: Order, createdAt: Date, id: string): string {
  const body: CursorBody = { v: 1, l: list, o: order, t: createdAt.toISOString(), i: id };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/**
 * Reads the page parameters of a list request. `list` names the list (and its scope, such as the
 * board id and filters) so that cursors cannot cross lists.
 */
export function pageRequest(list: string, query: { limit?: number; cursor?: string; order?: Order }, defaultOrder: Order): PageRequest {
  const limit = query.limit ?? 20;
  if (query.cursor === undefined) return { limit, order: query.order ?? defaultOrder };
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw invalid('cursor is not a valid cursor');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    body.v !== 1 ||
    typeof body.t !== 'string' ||
    typeof body.i !== 'string' ||
    !isUuid(body.i) ||
    (body.o !== 'asc' && body.o !== 'desc') ||
    Number.isNaN(Date.parse(body.t))
  ) {
    throw invalid('cursor is not a valid cursor');
  }
  if (body.l !== list) throw invalid('cursor was issued for a different list');
  if (query.order !== undefined && query.order !== body.o) {
    throw invalid(`cursor was issued for order=${body.o}`);
  }
  return { limit, order: body.o, after: { createdAt: new Date(body.t), id: body.i } };
}

/** Applies the keyset condition, order and limit (+1 to know has_more exactly). */
export function applyPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  table: string,
  /** The column that breaks ties of created_at (a table without an `id`: board_members' user_id). */
  idColumn = 'id',
): SelectQueryBuilder<DB, TB, O> {
  const createdAt = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.${idColumn}`);
  let q = query;
  if (page.after) {
    const op = page.order === 'desc' ? sql`<` : sql`>`;
    q = q.where(() => sql<boolean>`(${createdAt}, ${id}) ${op} (${page.after!.createdAt}, ${page.after!.id}::uuid)` as never);
  }
  const dir = page.order === 'desc' ? sql`desc` : sql`asc`;
  return q
    .orderBy(sql`${createdAt} ${dir}`)
    .orderBy(sql`${id} ${dir}`)
    .limit(page.limit + 1) as SelectQueryBuilder<DB, TB, O>;
}

export function toPage<T extends { created_at: Date; id: string }>(rows: T[], page: PageRequest, list: string): Page<T> {
  const has_more = rows.length > page.limit;
  const data = has_more ? rows.slice(0, page.limit) : rows;
  const last = data[data.length - 1];
  return {
    data,
    has_more,
    cursor: has_more && last ? encodeCursor(list, page.order, last.created_at, last.id) : null,
  };
}

/**
 * A page as a cache keeps it to follow later changes (src/boards/list-cache.ts): the rows known
 * right after it, in order (`beyond`), and whether those are all the list holds after it
 * (`complete`). Read with `limit` ROWS_BEYOND more than the page: a row after the page (has_more)
 * and one to spare, so that a row deleted from the page is followed by the next moving up.
 */
export interface KeptPage<T> {
  page: Page<T>;
  beyond: T[];
  complete: boolean;
}

/** Rows read after a kept page's own (KeptPage). */
export const ROWS_BEYOND = 2;

/** The page request that reads a KeptPage's rows: ROWS_BEYOND - 1 more than applyPage's. */
export const keptPageRequest = (page: PageRequest): PageRequest => ({ ...page, limit: page.limit + ROWS_BEYOND - 1 });

/** The KeptPage of rows read with keptPageRequest(page). */
export function toKeptPage<T extends { created_at: Date; id: string }>(rows: T[], page: PageRequest, list: string): KeptPage<T> {
  return {
    page: toPage(rows.slice(0, page.limit + 1), page, list),
    beyond: rows.slice(page.limit),
    complete: rows.length < page.limit + ROWS_BEYOND,
  };
}
