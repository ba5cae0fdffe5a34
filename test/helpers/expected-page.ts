// A list page as the database holds it now, read directly (not through the service), in the
// contract's list envelope: the reference the kept-page suites (list-follow*.test.ts) compare with.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { encodeCursor } from '../../src/lib/pagination.js';

/** A page asked for: its query string, and what the query means. */
export interface PageSpec {
  query: string;
  limit: number;
  order: 'asc' | 'desc';
  after?: { created_at: string; id: string };
}

/**
 * `select`: the statement up to its WHERE (the columns of the answer, FROM the table); `where`: the
 * page's rows before the cursor; `list`: the list's name in its cursors.
 */
export async function expectedPage(
  db: Kysely<any>,
  select: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  list: string,
  spec: PageSpec,
): Promise<{ object: 'list'; data: unknown[]; has_more: boolean; cursor: string | null }> {
  const dir = spec.order === 'desc' ? sql`desc` : sql`asc`;
  const { rows } = await sql<Record<string, unknown> & { created_at: Date; id: string }>`
    ${select} WHERE ${where}
      ${spec.after ? sql`AND (created_at, id) ${spec.order === 'desc' ? sql`<` : sql`>`} (${spec.after.created_at}::timestamptz, ${spec.after.id}::uuid)` : sql``}
    ORDER BY created_at ${dir}, id ${dir} LIMIT ${spec.limit + 1}`.execute(db);
  const data = rows.slice(0, spec.limit);
  const has_more = rows.length > spec.limit;
  const last = data[data.length - 1];
  return JSON.parse(
    JSON.stringify({
      object: 'list',
      data,
      has_more,
      cursor: has_more && last ? encodeCursor(list, spec.order, last.created_at, last.id) : null,
    }),
  );
}
