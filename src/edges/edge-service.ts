// Edges of a board: create, list (optionally those touching one node), read, update and delete.
// Both ends must be nodes of the same board; self-loops are allowed, as canvas libraries draw them.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { boardVisibleTo, findVisibleBoard } from '../access/board-access.js';
import type { Db, Executor } from '../db/schema.js';
import { invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, type KeptPage, keptPageRequest, toKeptPage, type Page, type PageRequest } from '../lib/pagination.js';
import { beginContentWrite } from '../access/content-write.js';
import { changeTransaction, recordChanges, recordWithinBounds } from '../events/record.js';
import { isStorableText, toStoredJson } from '../nodes/json-data.js';
import { assertIfMatch, entityTag, ifMatchHolds, type TagCondition } from '../lib/etag.js';
import { fieldsOf, pickShape } from '../contract/common.js';
import { canonicalJson, createDigest, deletedBefore, idTaken, isRepeatedCreate, rememberDeleted } from '../nodes/client-ids.js';
import type { BoardChange } from '../events/record.js';
import { type CreateEdgeBody, Edge, type UpdateEdgeBody } from '../contract/edges.js';
import type { BoardBounds } from '../config.js';

/** An edge's address: its board and its id (a route's path parameters). */
export interface EdgeIds {
  boardId: string;
  id: string;
}

/** What the edge service is built with, once per app (src/modules/services.ts). */
export interface EdgeDeps {
  db: Db;
  bounds: BoardBounds;
}

/** The edge's columns, in the order of its schema. */
const columns = fieldsOf(Edge);

/** The edge's entity tag (ETag): the same for every read of the same row. */
export const edgeTag = (edge: Edge): string => entityTag(pickShape(Edge, edge));

function storedType(type: string): string {
  if (!isStorableText(type)) throw invalid('type contains a NUL character or invalid Unicode');
  return type;
}

async function findEdge(db: Executor, boardId: string, edgeId: string) {
  const row = await db.selectFrom('edges').select(columns).where('id', '=', edgeId).where('board_id', '=', boardId).executeTakeFirst();
  if (!row) throw notFound('Edge');
  return row;
}

async function assertNodesOnBoard(trx: Executor, boardId: string, input: CreateEdgeBody): Promise<void> {
  const found = await trx
    .selectFrom('nodes')
    .select('id')
    .where('board_id', '=', boardId)
    .where('id', 'in', [input.source_node_id, input.target_node_id])
    .execute();
  const ids = new Set(found.map((r) => r.id));
  for (const field of ['source_node_id', 'target_node_id'] as const) {
    if (!ids.has(input[field])) throw invalid(`${field} is not a node of this board`);
  }
}

/** What a create with a client-chosen id stores to recognise its replay: the request as the service reads it. */
const digestOf = (input: CreateEdgeBody): string =>
  createDigest({
    source_node_id: input.source_node_id.toLowerCase(),
    target_node_id: input.target_node_id.toLowerCase(),
    type: input.type ?? 'default',
    data: input.data ?? {},
  });

/**
 * The app's edges: reads need the board visible to the caller; writes run in one transaction behind
 * the board lock. The steps (repeated, insert, alreadyApplied, modify, remove) run inside a content
 * write the caller opened: the single writes here and the batch (src/compose/batch-service.ts).
 */
export class EdgeService {
  constructor(private readonly deps: EdgeDeps) {}

  /** The edge a create with a client-chosen id made, when this create repeats it (see NodeService.repeated). */
  async repeated(trx: Executor, boardId: string, input: CreateEdgeBody): Promise<Edge | undefined> {
    if (input.id === undefined || !(await isRepeatedCreate(trx, 'edge', boardId, input.id, digestOf(input)))) return undefined;
    return trx.selectFrom('edges').select(columns).where('id', '=', input.id).executeTakeFirstOrThrow();
  }

  /**
   * The steps of edge writes inside a content write (the board locked by beginContentWrite), shared
   * by the single-edge routes and the batch (batch-service.ts).
   */
  async insert(trx: Executor, boardId: string, input: CreateEdgeBody, at: Date): Promise<Edge> {
    const type = storedType(input.type ?? 'default');
    const data = toStoredJson(input.data ?? {}, 'data');
    await assertNodesOnBoard(trx, boardId, input);
    return trx
      .insertInto('edges')
      .values({
        id: input.id ?? newId(),
        board_id: boardId,
        source_node_id: input.source_node_id,
        target_node_id: input.target_node_id,
        edge_type: type,
        edge_data: data,
        create_digest: input.id === undefined ? null : digestOf(input),
        created_at: at,
        updated_at: at,
      })
      .returning(columns)
      .executeTakeFirstOrThrow()
      .catch(idTaken);
  }

  async create(principal: Principal, boardId: string, input: CreateEdgeBody): Promise<Edge> {
    const { db, bounds } = this.deps;
    storedType(input.type ?? 'default'); // refused before the board is locked
    toStoredJson(input.data ?? {}, 'data');
    return changeTransaction(db, async (trx) => {
      const at = now();
      const board = await beginContentWrite(trx, principal, boardId);
      const repeated = await this.repeated(trx, boardId, input);
      if (repeated) return repeated;
      const row = await this.insert(trx, boardId, input, at);
      await recordWithinBounds(trx, boardId, principal.userId, [{ type: 'edge.created', data: row }], at, bounds, board);
      return row;
    });
  }

  async list(principal: Principal, boardId: string, filter: { node_id?: string }, page: PageRequest, list: string): Promise<Page<Edge>> {
    return (await this.listWithVersion(principal, boardId, filter, page, list)).page;
  }

  /**
   * A page of the board's edges and the board's version (event_seq) the same statement saw, as
   * NodeService.listWithVersion: the list cache keeps it to follow later changes. No version for an
   * empty page.
   */
  async listWithVersion(
    principal: Principal,
    boardId: string,
    filter: { node_id?: string },
    page: PageRequest,
    list: string,
  ): Promise<KeptPage<Edge> & { version: number | undefined }> {
    const { db } = this.deps;
    let query = db
      .selectFrom('edges')
      .select(columns)
      .select(sql<number>`(SELECT event_seq FROM boards WHERE id = ${boardId})`.as('board_version'))
      .where('board_id', '=', boardId)
      .where(boardVisibleTo(principal, boardId));
    const nodeId = filter.node_id;
    if (nodeId) query = query.where((eb) => eb.or([eb('source_node_id', '=', nodeId), eb('target_node_id', '=', nodeId)]));
    const rows = await applyPage(query, keptPageRequest(page), 'edges').execute();
    if (rows.length === 0) await findVisibleBoard(db, principal, boardId);
    const version = rows[0]?.board_version;
    return {
      ...toKeptPage(
        rows.map(({ board_version: _, ...edge }) => edge),
        page,
        list,
      ),
      version,
    };
  }

  async get(principal: Principal, { boardId, id: edgeId }: EdgeIds): Promise<Edge> {
    const { db } = this.deps;
    const row = await db
      .selectFrom('edges')
      .select(columns)
      .where('id', '=', edgeId)
      .where('board_id', '=', boardId)
      .where(boardVisibleTo(principal, boardId))
      .executeTakeFirst();
    if (row) return row;
    await findVisibleBoard(db, principal, boardId);
    throw notFound('Edge');
  }

  /** Changes an edge (see insert). */
  async modify(trx: Executor, boardId: string, edgeId: string, input: UpdateEdgeBody, at: Date, ifMatch?: TagCondition): Promise<Edge> {
    const type = input.type === undefined ? undefined : storedType(input.type);
    const data = input.data === undefined ? undefined : toStoredJson(input.data, 'data');
    // Behind the board lock: of two writers holding the same tag, the second sees the first's change.
    assertIfMatch(ifMatch, edgeTag(await findEdge(trx, boardId, edgeId)), 'edge');
    return trx
      .updateTable('edges')
      .set({ ...(type !== undefined ? { edge_type: type } : {}), ...(data !== undefined ? { edge_data: data } : {}), updated_at: at })
      .where('id', '=', edgeId)
      .returning(columns)
      .executeTakeFirstOrThrow();
  }

  /** An update whose If-Match no longer holds but whose change the edge already shows (see NodeService.alreadyApplied). */
  async alreadyApplied(
    trx: Executor,
    boardId: string,
    edgeId: string,
    input: UpdateEdgeBody,
    ifMatch: TagCondition | undefined,
  ): Promise<Edge | undefined> {
    if (ifMatch === undefined) return undefined;
    const row = await trx.selectFrom('edges').select(columns).where('id', '=', edgeId).where('board_id', '=', boardId).executeTakeFirst();
    if (!row || ifMatchHolds(ifMatch, edgeTag(row))) return undefined;
    const sameType = input.type === undefined || input.type === row.edge_type;
    const sameData = input.data === undefined || canonicalJson(input.data) === canonicalJson(row.edge_data);
    return sameType && sameData ? row : undefined;
  }

  async update(
    principal: Principal,
    { boardId, id: edgeId }: EdgeIds,
    input: UpdateEdgeBody,
    { ifMatch }: { ifMatch?: TagCondition | undefined } = {},
  ): Promise<Edge> {
    const { db, bounds } = this.deps;
    return changeTransaction(db, async (trx) => {
      const at = now();
      const board = await beginContentWrite(trx, principal, boardId);
      const applied = await this.alreadyApplied(trx, boardId, edgeId, input, ifMatch);
      if (applied) return applied;
      const edge = await this.modify(trx, boardId, edgeId, input, at, ifMatch);
      // Larger data may take the board past its bound on bytes.
      await recordWithinBounds(trx, boardId, principal.userId, [{ type: 'edge.updated', data: edge }], at, bounds, board);
      return edge;
    });
  }

  /** Deletes an edge; one this board had that is already gone succeeds again with no change (client-ids.ts). */
  async remove(trx: Executor, boardId: string, edgeId: string, at: Date, ifMatch?: TagCondition): Promise<BoardChange[]> {
    const edge = await findEdge(trx, boardId, edgeId).catch((error) => deletedBefore(trx, 'edge', boardId, edgeId, error));
    if (Array.isArray(edge)) return edge;
    assertIfMatch(ifMatch, edgeTag(edge), 'edge');
    await trx.deleteFrom('edges').where('id', '=', edgeId).execute();
    await rememberDeleted(trx, boardId, [{ id: edgeId, kind: 'edge' }], at);
    return [{ type: 'edge.deleted', data: { id: edgeId } }];
  }

  async delete(
    principal: Principal,
    { boardId, id: edgeId }: EdgeIds,
    { ifMatch }: { ifMatch?: TagCondition | undefined } = {},
  ): Promise<void> {
    await changeTransaction(this.deps.db, async (trx) => {
      const at = now();
      await beginContentWrite(trx, principal, boardId);
      await recordChanges(trx, boardId, principal.userId, await this.remove(trx, boardId, edgeId, at, ifMatch), at, true);
    });
  }
}
