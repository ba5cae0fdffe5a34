// Nodes of a board: create, list, read, update and delete. Reads need the board visible to the
// caller; writes need content-edit rights and run in one transaction behind the board lock
// (content-write.ts), so a write is all-or-nothing and concurrent writes cannot form a cycle.
import { type RawBuilder, sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import {
  assertCanEditContent,
  boardSeenBy,
  boardVisibleTo,
  findVisibleBoard,
  memberRoleOf,
  type SeenBoard,
} from '../access/board-access.js';
import type { Db, Executor } from '../db/schema.js';
import { invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, type KeptPage, keptPageRequest, toKeptPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import type { AssetService, Origin } from '../assets/asset-service.js';
import { beginContentWrite } from '../access/content-write.js';
import { assertNodeOnBoard } from '../access/board-nodes.js';
import { type BoardChange, changeTransaction, recordChanges, recordWithinBounds } from '../events/record.js';
import { invalidatingBoard, type NodeReadCache } from './node-cache.js';
import { mergeNodeData, storedNodeData } from './node-data.js';
import { assertIfMatch, entityTag, ifMatchHolds, type TagCondition } from '../lib/etag.js';
import { fieldsOf, pickShape } from '../contract/common.js';
import { canonicalJson, createDigest, deletedBefore, idTaken, isRepeatedCreate, rememberDeleted } from './client-ids.js';
import { type CreateNodeBody, Node, type NodeType, type UpdateNodeBody } from '../contract/nodes.js';
import type { BoardBounds } from '../config.js';

/** The route has read the type word (youtube is video) by the time the service sees it. */
export type CreateNodeInput = Omit<CreateNodeBody, 'type'> & { type: NodeType };

/** A node's address: its board and its id (a route's path parameters). */
export interface NodeIds {
  boardId: string;
  id: string;
}

/** What the node service is built with, once per app (src/modules/services.ts). */
export interface NodeDeps {
  db: Db;
  /** Only on the embedded database (node-cache.ts). */
  nodeCache?: NodeReadCache | undefined;
  bounds: BoardBounds;
  /** The asset check of pdf and image nodes. */
  assets: AssetService;
}

/** How much of a node's text listSummaries sends: enough for a snippet of a few hundred characters. */
export const SUMMARY_HEAD_CHARS = 1000;

/** A node in brief (listSummaries): its text cut to its head, and the text's length in characters. */
export interface NodeSummary {
  id: string;
  created_at: Date;
  node_type: string;
  position_x: number;
  position_y: number;
  parent_node_id: string | null;
  label: string | null;
  text_head: string;
  text_length: number;
}

/**
 * How many characters of `text` lie outside the Basic Multilingual Plane: JavaScript counts each
 * twice (UTF-16), so the text's length as the API reports it is its char_length plus these.
 */
const astralCount = (text: RawBuilder<unknown>) =>
  sql<number>`case when octet_length(${text}) = char_length(${text}) then 0 else char_length(regexp_replace(${text}, '[^\\U00010000-\\U0010FFFF]', '', 'g')) end`;

/** A string value (jsonb) that is not blank, as text, else null (compact.ts's rule, in SQL). */
const textOf = (value: RawBuilder<unknown>) =>
  sql<string | null>`case when jsonb_typeof(${value}) = 'string' and (${value} #>> '{}') ~ '[^[:space:]]' then ${value} #>> '{}' end`;

/**
 * The fields a node in brief is made of, read out of node_data once per row: a 5,000-character
 * note's node_data is stored compressed out of line, and each `node_data ->> …` would decompress
 * it again (the expressions below use the text five times). OFFSET 0 keeps the planner from
 * folding the subquery into the select list, which would bring the repetition back.
 */
const briefFields = sql<{
  said: string;
  label: string | null;
}>`(select coalesce(${textOf(sql`f.text`)}, ${textOf(sql`f.url`)}, ${textOf(sql`f."publicUrl"`)}, '') as said, ${textOf(sql`f.label`)} as label
   from jsonb_to_record(nodes.node_data) as f(text jsonb, url jsonb, "publicUrl" jsonb, label jsonb) offset 0)`.as('brief');

/** The node's columns, in the order of its schema. */
const columns = fieldsOf(Node);

/** The node's entity tag (ETag): the same for every read of the same row, whatever else the row carries. */
export const nodeTag = (node: Node): string => entityTag(pickShape(Node, node));

async function findNode(db: Executor, boardId: string, nodeId: string) {
  const row = await db
    .selectFrom('nodes')
    .select([...columns, 'board_id'])
    .where('id', '=', nodeId)
    .where('board_id', '=', boardId)
    .executeTakeFirst();
  if (!row) throw notFound('Node');
  return row;
}

type NodeRow = Awaited<ReturnType<typeof findNode>>;

/** The node's columns as beginNodeWrite names them beside the board's, and their own names. */
const nodeColumnOf = new Map<string, string>(columns.map((c) => [`node_${c}`, c]));

/**
 * A node write's opening (beginContentWrite) and the read of its node, in one statement: the board
 * row locked as there, and the node's row locked too, as the update that follows would lock it.
 * Locked, the node is read as it is once the board's lock is ours: a writer that waited for the
 * board reads the node as the writer before it left it (If-Match compares against that), where a
 * row only joined would be the version the statement first saw. When the statement finds no row
 * (no such board for the caller, no such node, or the node gone meanwhile), the two steps run
 * apart, and answer as they always have (404 Board, 403, 404 Node).
 */
async function beginNodeWrite(
  trx: Executor,
  principal: Principal,
  boardId: string,
  nodeId: string,
): Promise<{ board: SeenBoard; node: NodeRow }> {
  const row = await trx
    .selectFrom('boards')
    .innerJoin('nodes', 'nodes.board_id', 'boards.id')
    .selectAll('boards')
    .select(memberRoleOf(principal).as('member_role'))
    .select(columns.map((c) => `nodes.${c} as node_${c}` as const))
    .where('boards.id', '=', boardId)
    .where('nodes.id', '=', nodeId)
    .where(boardSeenBy(principal))
    .modifyEnd(sql`FOR UPDATE OF boards FOR NO KEY UPDATE OF nodes`)
    .executeTakeFirst();
  if (!row) {
    const board = await beginContentWrite(trx, principal, boardId);
    return { board, node: await findNode(trx, boardId, nodeId) };
  }
  const board: Record<string, unknown> = {};
  const node: Record<string, unknown> = { board_id: boardId };
  for (const [key, value] of Object.entries(row)) {
    const column = nodeColumnOf.get(key); // the board's own node_count is no node column
    if (column === undefined) board[key] = value;
    else node[column] = value;
  }
  assertCanEditContent(board as SeenBoard, principal);
  return { board: board as SeenBoard, node: node as NodeRow };
}

/**
 * Whether an update whose If-Match no longer holds finds its change already on `row` (a replay of
 * an update that landed, its answer lost): then it is answered with the node and writes nothing
 * (RFC 9110 §13.1.1; client-ids.ts).
 */
function appliedAlready(row: Node, input: UpdateNodeBody, ifMatch: TagCondition | undefined): boolean {
  if (ifMatch === undefined || ifMatchHolds(ifMatch, nodeTag(row))) return false;
  const samePosition = !input.position || (input.position.x === row.position_x && input.position.y === row.position_y);
  const sameParent = input.parent_node_id === undefined || (input.parent_node_id?.toLowerCase() ?? null) === row.parent_node_id;
  const sameData = !input.data || canonicalJson(mergeNodeData(row.node_data, input.data)) === canonicalJson(row.node_data);
  return samePosition && sameParent && sameData;
}

const assertParentOnBoard = (trx: Executor, boardId: string, parentId: string) =>
  assertNodeOnBoard(trx, boardId, parentId, 'parent_node_id');

/** True when `nodeId` is `parentId` or one of its ancestors: making it the parent would close a loop. */
async function wouldCycle(trx: Executor, nodeId: string, parentId: string): Promise<boolean> {
  // UNION (not UNION ALL) ends the walk even on a chain that already loops.
  const { rows } = await sql<{ found: number }>`
    WITH RECURSIVE chain(id, parent_node_id) AS (
      SELECT id, parent_node_id FROM nodes WHERE id = ${parentId}
      UNION
      SELECT n.id, n.parent_node_id FROM nodes n JOIN chain c ON n.id = c.parent_node_id
    )
    SELECT 1 AS found FROM chain WHERE id = ${nodeId} LIMIT 1`.execute(trx);
  return rows.length > 0;
}

/** What a create with a client-chosen id stores to recognise its replay: the request as the service reads it. */
const digestOf = (input: CreateNodeInput): string =>
  createDigest({
    type: input.type,
    position: input.position,
    data: input.data,
    parent_node_id: input.parent_node_id?.toLowerCase() ?? null,
  });

/**
 * The app's nodes: reads need the board visible to the caller; writes (create, update, delete) run
 * in one transaction behind the board lock. The steps (repeated, insert, alreadyApplied, modify,
 * remove) run inside a content write the caller opened: the single writes here and the batch
 * (src/compose/batch-service.ts) put the transaction, lock, bounds and events around them.
 */
export class NodeService {
  constructor(private readonly deps: NodeDeps) {}

  /**
   * The node a create with a client-chosen id made, when this create repeats it (same id, board and
   * body; client-ids.ts): it is answered as it is now, and nothing is written. Undefined when the
   * create is to run; a 409 when the id is used otherwise. Inside a content write.
   */
  async repeated(trx: Executor, boardId: string, input: CreateNodeInput): Promise<Node | undefined> {
    if (input.id === undefined || !(await isRepeatedCreate(trx, 'node', boardId, input.id, digestOf(input)))) return undefined;
    return trx.selectFrom('nodes').select(columns).where('id', '=', input.id).executeTakeFirstOrThrow();
  }

  /**
   * The steps of node writes inside a content write (the board locked by beginContentWrite), shared by
   * the single-node routes and the batch (batch-service.ts): each returns the changes to record.
   * `origin`: the address the caller used, from which a pdf or image node's publicUrl must be (without PUBLIC_BASE_URL).
   */
  async insert(trx: Executor, boardId: string, input: CreateNodeInput, at: Date, origin: Origin): Promise<Node> {
    const data = storedNodeData(input.type, input.data);
    if (input.parent_node_id) await assertParentOnBoard(trx, boardId, input.parent_node_id);
    if (
      input.type === 'pdf' ||
      input.type === 'image' ||
      (input.type === 'document' && (input.data as Record<string, unknown>).storagePath !== undefined)
    )
      await this.deps.assets.assertNodeAsset(trx, boardId, input.type, input.data, origin);
    return trx
      .insertInto('nodes')
      .values({
        id: input.id ?? newId(),
        board_id: boardId,
        node_type: input.type,
        position_x: input.position.x,
        position_y: input.position.y,
        node_data: data,
        parent_node_id: input.parent_node_id ?? null,
        create_digest: input.id === undefined ? null : digestOf(input),
        created_at: at,
        updated_at: at,
      })
      .returning(columns)
      .executeTakeFirstOrThrow()
      .catch(idTaken);
  }

  async create(principal: Principal, boardId: string, input: CreateNodeInput, origin: Origin): Promise<Node> {
    const { db, bounds } = this.deps;
    storedNodeData(input.type, input.data); // refused before the board is locked
    return changeTransaction(db, async (trx) => {
      const at = now();
      const board = await beginContentWrite(trx, principal, boardId);
      const repeated = await this.repeated(trx, boardId, input);
      if (repeated) return repeated;
      const row = await this.insert(trx, boardId, input, at, origin);
      await recordWithinBounds(trx, boardId, principal.userId, [{ type: 'node.created', data: row }], at, bounds, board);
      return row;
    });
  }

  async list(principal: Principal, boardId: string, filter: { type?: NodeType }, page: PageRequest, list: string): Promise<Page<Node>> {
    return (await this.listWithVersion(principal, boardId, filter, page, list)).page;
  }

  /**
   * A page of the board's nodes and the board's version (event_seq) the same statement saw: the
   * page as it is at that version, which the list cache keeps to follow later changes
   * (src/boards/list-cache.ts). No version for an empty page.
   */
  async listWithVersion(
    principal: Principal,
    boardId: string,
    filter: { type?: NodeType },
    page: PageRequest,
    list: string,
  ): Promise<KeptPage<Node> & { version: number | undefined }> {
    const { db } = this.deps;
    let query = db
      .selectFrom('nodes')
      .select(columns)
      .select(sql<number>`(SELECT event_seq FROM boards WHERE id = ${boardId})`.as('board_version'))
      .where('board_id', '=', boardId)
      .where(boardVisibleTo(principal, boardId));
    if (filter.type) query = query.where('node_type', '=', filter.type);
    const rows = await applyPage(query, keptPageRequest(page), 'nodes').execute();
    if (rows.length === 0) await findVisibleBoard(db, principal, boardId);
    const version = rows[0]?.board_version;
    return {
      ...toKeptPage(
        rows.map(({ board_version: _, ...node }) => node),
        page,
        list,
      ),
      version,
    };
  }

  /**
   * The nodes of a page in brief (what an assistant's board overview shows, src/mcp/compact.ts):
   * the database picks each node's text (its text, else its url) and sends its first
   * SUMMARY_HEAD_CHARS characters and its length (in UTF-16 code units, as JavaScript counts), not the whole node data: a page of 500 notes of
   * 5,000 characters is 2.5 MB of rows to parse in full, and about 500 kB in brief.
   */
  async listSummaries(principal: Principal, boardId: string, page: PageRequest, list: string): Promise<Page<NodeSummary>> {
    const { db } = this.deps;
    const said = sql.ref<string>('brief.said');
    // The page's rows are chosen first (keyset and LIMIT in a subquery of plain columns), and only
    // they are read in brief: were the brief beside the ORDER BY, a plan that sorts (PostgreSQL's
    // custom plans of a statement's first executions, with no statistics on the embedded
    // database) would decompress and read every node after the cursor to keep 20: seconds of the
    // embedded database's one thread on a board of 10,000 notes, everyone's statements waiting.
    const chosen = applyPage(
      db
        .selectFrom('nodes')
        .select(['id', 'created_at', 'node_type', 'position_x', 'position_y', 'parent_node_id', 'node_data'])
        .where('board_id', '=', boardId)
        .where(boardVisibleTo(principal, boardId)),
      page,
      'nodes',
    ).as('nodes');
    const dir = page.order === 'desc' ? sql`desc` : sql`asc`;
    const rows = await db
      .selectFrom(chosen)
      .crossJoinLateral(briefFields)
      .select(['nodes.id', 'nodes.created_at', 'node_type', 'position_x', 'position_y', 'parent_node_id', 'brief.label'])
      .select(sql<string>`left(${said}, ${SUMMARY_HEAD_CHARS})`.as('text_head'))
      .select(sql<number>`char_length(${said}) + ${astralCount(said)}`.as('text_length'))
      .orderBy(sql`nodes.created_at ${dir}`)
      .orderBy(sql`nodes.id ${dir}`)
      .execute();
    if (rows.length === 0) await findVisibleBoard(db, principal, boardId);
    return toPage(rows, page, list);
  }

  async get(principal: Principal, ids: NodeIds): Promise<Node> {
    const { nodeCache: cache } = this.deps;
    const cached = cache?.get(ids.boardId, ids.id, principal);
    if (cached) return cached;
    return (await this.getWithVersion(principal, ids)).node;
  }

  /**
   * The node and its board's version (event_seq) as one statement read them: the node as it is at
   * that version, which a cache of reads per board version keeps (src/boards/list-cache.ts).
   */
  async getWithVersion(principal: Principal, { boardId, id: nodeId }: NodeIds): Promise<{ node: Node; version: number }> {
    const { db, nodeCache: cache } = this.deps;
    const generation = cache?.generation(boardId) ?? 0;
    const row = await db
      .selectFrom('nodes')
      .innerJoin('boards', 'boards.id', 'nodes.board_id')
      .select(columns.map((c) => `nodes.${c}` as const))
      .select(['boards.owner_id', 'boards.is_public', 'boards.event_seq'])
      .where('nodes.id', '=', nodeId)
      .where('nodes.board_id', '=', boardId)
      .where(boardSeenBy(principal))
      .executeTakeFirst();
    if (row) {
      const { owner_id, is_public, event_seq, ...node } = row;
      cache?.put(boardId, generation, { owner_id, is_public }, node);
      return { node, version: event_seq };
    }
    await findVisibleBoard(db, principal, boardId);
    throw notFound('Node');
  }

  /** Changes a node (see insert). */
  async modify(
    trx: Executor,
    boardId: string,
    nodeId: string,
    input: UpdateNodeBody,
    at: Date,
    { origin, ifMatch }: Origin & { ifMatch?: TagCondition | undefined },
    /** The node as read under the board's lock, when the caller has read it (beginNodeWrite). */
    current?: NodeRow,
  ): Promise<Node> {
    const node = current ?? (await findNode(trx, boardId, nodeId));
    // Behind the board lock: of two writers holding the same tag, the second sees the first's change.
    assertIfMatch(ifMatch, nodeTag(node), 'node');
    const merged = input.data === undefined ? undefined : mergeNodeData(node.node_data, input.data);
    const data = merged === undefined ? undefined : storedNodeData(node.node_type as NodeType, merged);
    // The asset reference is checked when it changes: a node may outlive its deleted asset.
    const touchesAsset =
      input.data !== undefined && ['storagePath', 'publicUrl', 'fileSize'].some((key) => Object.hasOwn(input.data!, key));
    const fileNode =
      node.node_type === 'pdf' || node.node_type === 'image' || (node.node_type === 'document' && merged?.storagePath !== undefined);
    if (merged && touchesAsset && fileNode)
      await this.deps.assets.assertNodeAsset(trx, boardId, node.node_type as 'pdf' | 'image' | 'document', merged, { origin });
    if (input.parent_node_id) {
      await assertParentOnBoard(trx, boardId, input.parent_node_id);
      if (await wouldCycle(trx, nodeId, input.parent_node_id)) {
        throw invalid('parent_node_id would make the node its own ancestor');
      }
    }
    return trx
      .updateTable('nodes')
      .set({
        ...(input.position ? { position_x: input.position.x, position_y: input.position.y } : {}),
        ...(data !== undefined ? { node_data: data } : {}),
        ...(input.parent_node_id !== undefined ? { parent_node_id: input.parent_node_id } : {}),
        updated_at: at,
      })
      .where('id', '=', nodeId)
      .returning(columns)
      .executeTakeFirstOrThrow();
  }

  /**
   * An update whose If-Match no longer holds but whose change the node already shows (a replay of an
   * update that landed, its answer lost): the node as it is, to answer with no write (RFC 9110
   * §13.1.1; client-ids.ts). Undefined otherwise, for modify to write or refuse.
   */
  async alreadyApplied(
    trx: Executor,
    boardId: string,
    nodeId: string,
    input: UpdateNodeBody,
    ifMatch: TagCondition | undefined,
  ): Promise<Node | undefined> {
    if (ifMatch === undefined) return undefined;
    const row = await trx.selectFrom('nodes').select(columns).where('id', '=', nodeId).where('board_id', '=', boardId).executeTakeFirst();
    return row && appliedAlready(row, input, ifMatch) ? row : undefined;
  }

  async update(
    principal: Principal,
    { boardId, id: nodeId }: NodeIds,
    input: UpdateNodeBody,
    { origin, ifMatch }: Origin & { ifMatch?: TagCondition | undefined },
  ): Promise<Node> {
    const { db, bounds } = this.deps;
    return invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(db, async (trx) => {
        const at = now();
        // One statement locks the board and reads the node, which modify then changes.
        const { board, node: current } = await beginNodeWrite(trx, principal, boardId, nodeId);
        if (appliedAlready(current, input, ifMatch)) return pickShape(Node, current);
        const node = await this.modify(trx, boardId, nodeId, input, at, { origin, ifMatch }, current);
        // Larger data may take the board past its bound on bytes.
        await recordWithinBounds(trx, boardId, principal.userId, [{ type: 'node.updated', data: node }], at, bounds, board);
        return node;
      }),
    );
  }

  /**
   * Deletes a node with its edges. Its children are detached here rather than by the foreign key's
   * SET NULL, and its edges deleted here rather than by the cascade, so that the change log records
   * each of them (and the children's updated_at the change).
   */
  async remove(trx: Executor, boardId: string, nodeId: string, at: Date, ifMatch?: TagCondition): Promise<BoardChange[]> {
    const node = await findNode(trx, boardId, nodeId).catch((error) => deletedBefore(trx, 'node', boardId, nodeId, error));
    if (Array.isArray(node)) return node; // deleted before: a repeated delete succeeds and changes nothing
    assertIfMatch(ifMatch, nodeTag(node), 'node');
    const children = await trx
      .updateTable('nodes')
      .set({ parent_node_id: null, updated_at: at })
      .where('parent_node_id', '=', nodeId)
      .returning(columns)
      .execute();
    const edges = await trx
      .deleteFrom('edges')
      .where('board_id', '=', boardId)
      .where((eb) => eb.or([eb('source_node_id', '=', nodeId), eb('target_node_id', '=', nodeId)]))
      .returning('id')
      .execute();
    await trx.deleteFrom('nodes').where('id', '=', nodeId).execute();
    await rememberDeleted(trx, boardId, [...edges.map(({ id }) => ({ id, kind: 'edge' as const })), { id: nodeId, kind: 'node' }], at);
    return [
      ...edges.map(({ id }) => ({ type: 'edge.deleted' as const, data: { id } })),
      ...children.map((child) => ({ type: 'node.updated' as const, data: child })),
      { type: 'node.deleted', data: { id: nodeId } },
    ];
  }

  async delete(
    principal: Principal,
    { boardId, id: nodeId }: NodeIds,
    { ifMatch }: { ifMatch?: TagCondition | undefined } = {},
  ): Promise<void> {
    await invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(this.deps.db, async (trx) => {
        const at = now();
        await beginContentWrite(trx, principal, boardId);
        await recordChanges(trx, boardId, principal.userId, await this.remove(trx, boardId, nodeId, at, ifMatch), at, true);
      }),
    );
  }
}
