// Client-chosen ids of nodes and edges, so that a client can replay a queue of edits after a crash
// or a lost answer (docs/api.md, "Replaying a queue of edits safely"):
// - a create with an id names its row; repeated with the same id and the same body (the digest of
//   its canonical JSON, stored with the row) it answers the row as it is now and writes nothing;
// - an id any node or edge has or had (deleted_ids, kept EVENT_RETENTION_DAYS) is otherwise a 409
//   with one message, whichever board, user or kind holds it, so the answer tells nothing about it;
// - a delete of a node or edge this board had and that is already gone succeeds again;
// - an update whose If-Match no longer holds but whose change is already the resource's state
//   answers that state (RFC 9110 §13.1.1), so a replayed update is recognised.
// Everything here runs inside a content write, behind the board lock (content-write.ts), so two
// creates of one id on one board are serialised; on two boards the primary key decides (idTaken).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';
import { ApiError, conflict } from '../errors.js';

export type EntityKind = 'node' | 'edge';

/** The one answer for an id that cannot be used, wherever it is used. */
export const ID_IN_USE_MESSAGE = 'This id is already used by another node or edge, or was by a deleted one; choose another id';
export const idInUse = () => conflict(ID_IN_USE_MESSAGE);

/** JSON with every object's keys sorted, so that equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The digest a create with a client-chosen id stores, of its request as validated and normalised. */
export const createDigest = (request: unknown): string => createHash('sha256').update(canonicalJson(request)).digest('base64url');

/**
 * Whether a create of `kind` with `id` and `digest` on `boardId` repeats one already made: true
 * when it does, false when the id is free; a 409 (idInUse) when anything else has or had the id.
 */
export async function isRepeatedCreate(trx: Executor, kind: EntityKind, boardId: string, id: string, digest: string): Promise<boolean> {
  const { rows } = await sql<{ kind: string; board_id: string; create_digest: string | null }>`
    SELECT 'node' AS kind, board_id, create_digest FROM nodes WHERE id = ${id}::uuid
    UNION ALL SELECT 'edge', board_id, create_digest FROM edges WHERE id = ${id}::uuid
    UNION ALL SELECT 'deleted', board_id, NULL FROM deleted_ids WHERE id = ${id}::uuid`.execute(trx);
  const [row] = rows;
  if (!row) return false;
  if (rows.length === 1 && row.kind === kind && row.board_id === boardId.toLowerCase() && row.create_digest === digest) return true;
  throw idInUse();
}

/** For an insert's failure: a unique violation is a concurrent create of the same id on another board. */
export function idTaken(error: unknown): never {
  if ((error as { code?: unknown }).code === '23505') throw idInUse();
  throw error;
}

/** Remembers deleted nodes and edges of a board, for replays (swept after EVENT_RETENTION_DAYS). */
export async function rememberDeleted(
  trx: Executor,
  boardId: string,
  deleted: { id: string; kind: EntityKind }[],
  at: Date,
): Promise<void> {
  if (deleted.length === 0) return;
  await trx
    .insertInto('deleted_ids')
    .values(deleted.map(({ id, kind }) => ({ id, kind, board_id: boardId, deleted_at: at })))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({ board_id: eb.ref('excluded.board_id'), kind: eb.ref('excluded.kind'), deleted_at: at })),
    )
    .execute();
}

/** True when `boardId` had a `kind` with this id that has been deleted (a delete of it already succeeded). */
export async function wasDeleted(trx: Executor, kind: EntityKind, boardId: string, id: string): Promise<boolean> {
  const row = await trx
    .selectFrom('deleted_ids')
    .select('id')
    .where('id', '=', id)
    .where('board_id', '=', boardId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * For a delete whose lookup failed: succeeds (no changes) when it found nothing and this board's
 * `kind` with this id was deleted before; rethrows the failure otherwise.
 */
export async function deletedBefore(trx: Executor, kind: EntityKind, boardId: string, id: string, error: unknown): Promise<[]> {
  const notFound = error instanceof ApiError && error.code === 'not_found';
  if (notFound && (await wasDeleted(trx, kind, boardId, id))) return [];
  throw error;
}
