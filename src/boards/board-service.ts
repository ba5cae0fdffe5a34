// Boards: create, list, read (with the derived flow_state), update and delete (the duplicate is
// src/compose/duplicate-board.ts, as it copies what every content domain holds).
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Db, Executor } from '../db/schema.js';
import { invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { accessOf, assertOwner, findVisibleBoard, isOwner } from '../access/board-access.js';
import { assertBoardQuota, usageOf } from '../access/user-quota.js';
import type { Usage } from '../contract/usage.js';
import { invalidatingBoard, type NodeReadCache } from '../nodes/node-cache.js';
import { changeTransaction, recordChanges } from '../events/record.js';
import {
  type AccessLevel,
  Board,
  type BoardListAccess,
  type BoardListItem,
  type CreateBoardBody,
  type UpdateBoardBody,
} from '../contract/boards.js';
import { fieldsOf, pickShape } from '../contract/common.js';
import type { BoardRole } from '../contract/members.js';
import type { UserQuotas } from '../config.js';

/** What the board service is built with, once per app (src/modules/services.ts). */
export interface BoardDeps {
  db: Db;
  /** Only on the embedded database: its cached nodes go with a board's change. */
  nodeCache?: NodeReadCache | undefined;
  /** USER_MAX_BOARDS and the other quotas (src/access/user-quota.ts). */
  quotas: UserQuotas;
}

/** The board's columns, in the order of its schema. */
const boardColumns = fieldsOf(Board);

/** Resolves is_public and public_access_level together, as stored: level null unless public. */
function publicSettings(
  current: { is_public: boolean; public_access_level: AccessLevel | null },
  input: CreateBoardBody | UpdateBoardBody,
) {
  const isPublic = input.is_public ?? current.is_public;
  if (!isPublic) {
    if (input.public_access_level != null) throw invalid('public_access_level can only be set on a public board (is_public true)');
    return { is_public: false, public_access_level: null };
  }
  const level =
    input.public_access_level ?? (input.is_public === true && !current.is_public ? 'view' : (current.public_access_level ?? 'view'));
  return { is_public: true, public_access_level: level };
}

/** Nodes per statement of the owner's board read (about 50 × the node's data). */
const FLOW_NODES_PER_READ = 50;
const FLOW_EDGES_PER_READ = 500;

/** One row of flow_state's nodes or edges as JSON (as the web app's React Flow has them). */
const flowItem = {
  nodes: sql`CASE WHEN p.parent_node_id IS NULL
      THEN json_build_object('id', p.id, 'type', p.node_type || 'Node',
             'position', json_build_object('x', p.position_x, 'y', p.position_y), 'data', p.node_data)
      ELSE json_build_object('id', p.id, 'type', p.node_type || 'Node',
             'position', json_build_object('x', p.position_x, 'y', p.position_y), 'data', p.node_data,
             'parentId', p.parent_node_id)
    END`,
  edges: sql`json_build_object('id', p.id, 'source', p.source_node_id, 'target', p.target_node_id,
             'type', p.edge_type, 'data', p.edge_data)`,
};

/** The JSON array of a board's nodes or edges, a page a statement: the text of one json_agg over them all. */
async function* aggregated(db: Db, boardId: string, table: 'nodes' | 'edges', perRead: number): AsyncGenerator<string> {
  let last: { at: Date; id: string } | undefined;
  let first = true;
  for (;;) {
    const after = last === undefined ? sql`` : sql`AND (t.created_at, t.id) > (${last.at}, ${last.id}::uuid)`;
    const { rows } = await sql<{ json: string | null; n: number; last_at: Date | null; last_id: string | null }>`
      SELECT json_agg(${flowItem[table]} ORDER BY p.created_at, p.id)::text AS json, count(*)::int AS n,
             max(p.created_at) AS last_at, (array_agg(p.id ORDER BY p.created_at DESC, p.id DESC))[1] AS last_id
      FROM (SELECT t.* FROM ${sql.table(table)} t WHERE t.board_id = ${boardId} ${after}
            ORDER BY t.created_at, t.id LIMIT ${perRead}) p`.execute(db);
    const page = rows[0]!;
    // json_agg's "[a, b]" without its brackets; pages joined as json_agg joins items.
    const items = page.json === null ? '' : page.json.slice(1, -1);
    yield `${first ? '[' : items === '' ? '' : ', '}${items}`;
    first = false;
    if (page.n < perRead) break;
    last = { at: page.last_at!, id: page.last_id! };
  }
  yield ']';
}

/** The app's boards: create, list, read (with the derived flow_state), update and delete. */
export class BoardService {
  constructor(private readonly deps: BoardDeps) {}

  /** What the caller's boards use of its quotas (GET /v1/me/usage). */
  usage(principal: Principal): Promise<Usage> {
    return usageOf(this.deps.db, principal.userId, this.deps.quotas);
  }

  /** POST /v1/boards: a new board of the caller's, within their boards quota (user-quota.ts). */
  async create(principal: Principal, input: CreateBoardBody): Promise<Board> {
    const { db, quotas } = this.deps;
    return db.transaction().execute(async (trx) => {
      const board = await this.insert(trx, principal, input);
      await assertBoardQuota(trx, principal.userId, quotas);
      return board;
    });
  }

  /**
   * `id`: the new board's id when the caller needs it beforehand (an import stores files under it
   * first). The caller checks the boards quota after it, in the same transaction (create).
   */
  async insert(db: Executor, principal: Principal, input: CreateBoardBody, id = newId()): Promise<Board> {
    const at = now();
    return db
      .insertInto('boards')
      .values({
        id,
        owner_id: principal.userId,
        name: input.name,
        ...publicSettings({ is_public: false, public_access_level: null }, input),
        viewport_x: input.viewport_x ?? 0,
        viewport_y: input.viewport_y ?? 0,
        viewport_zoom: input.viewport_zoom ?? 1,
        view_mode: 'canvas',
        auto_read: input.auto_read ?? true,
        created_at: at,
        updated_at: at,
      })
      .returning(boardColumns)
      .executeTakeFirstOrThrow();
  }

  /**
   * The boards the caller owns and those they are a member of (`access`: both, `owned` or
   * `shared`), in one keyset order on (created_at, id), each with the caller's role.
   */
  async list(principal: Principal, page: PageRequest, list: string, access: BoardListAccess = 'all'): Promise<Page<BoardListItem>> {
    const { db } = this.deps;
    const uid = principal.userId;
    const rows = await applyPage(
      db
        .selectFrom('boards')
        .leftJoin('board_members as m', (join) => join.onRef('m.board_id', '=', 'boards.id').on('m.user_id', '=', uid))
        .select(['boards.id', 'boards.name', 'boards.created_at', 'boards.updated_at', 'boards.is_public'])
        .select(sql<BoardRole>`CASE WHEN boards.owner_id = ${uid} THEN 'owner' ELSE m.role END`.as('role'))
        .where((eb) =>
          access === 'owned'
            ? eb('boards.owner_id', '=', uid)
            : access === 'shared'
              ? eb('m.user_id', 'is not', null)
              : eb.or([eb('boards.owner_id', '=', uid), eb('m.user_id', 'is not', null)]),
        ),
      page,
      'boards',
    ).execute();
    return toPage(rows, page, list);
  }

  /**
   * The single-board read. For the owner the answer carries flow_state, which PostgreSQL assembles
   * as JSON text from the nodes and edges (the one source of truth), so a board of tens of thousands
   * of nodes is never parsed and re-serialised in the service. The owner's answer is pieces of JSON
   * text made as they are sent: the nodes and edges are read a page per statement (keyset, in the
   * board's order), so the board is never whole in memory and other callers' statements go in
   * between (on the embedded database's one connection too). The text is that of one json_agg over
   * all rows: each page's aggregate without its brackets, joined by json_agg's own ", ". Its size is
   * bounded by the board bounds (board-bounds.ts): at most BOARD_MAX_DATA_BYTES of data plus about
   * 150 bytes per node and edge. The pages are not one snapshot: a node added meanwhile may or may
   * not be in it.
   */
  async readJson(principal: Principal, boardId: string): Promise<string | AsyncIterable<string>> {
    const { db } = this.deps;
    const board = await findVisibleBoard(db, principal, boardId);
    const view = { ...pickShape(Board, board), ...accessOf(board, board.member_role, principal) };
    if (!isOwner(board, principal)) return JSON.stringify({ object: 'board', data: view });
    const head = JSON.stringify({ ...view, created_at: view.created_at.toISOString(), updated_at: view.updated_at.toISOString() });
    const viewport = JSON.stringify({ x: board.viewport_x, y: board.viewport_y, zoom: board.viewport_zoom });
    return (async function* () {
      yield `{"object":"board","data":${head.slice(0, -1)},"flow_state":{"viewMode":${JSON.stringify(board.view_mode)},"viewport":${viewport},"nodes":`;
      yield* aggregated(db, boardId, 'nodes', FLOW_NODES_PER_READ);
      yield ',"edges":';
      yield* aggregated(db, boardId, 'edges', FLOW_EDGES_PER_READ);
      yield '}}}';
    })();
  }

  async update(principal: Principal, boardId: string, input: UpdateBoardBody): Promise<Board> {
    return invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(this.deps.db, async (trx) => {
        const board = await findVisibleBoard(trx, principal, boardId);
        assertOwner(board, principal);
        const at = now();
        const updated = await trx
          .updateTable('boards')
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.viewport_x !== undefined ? { viewport_x: input.viewport_x } : {}),
            ...(input.viewport_y !== undefined ? { viewport_y: input.viewport_y } : {}),
            ...(input.viewport_zoom !== undefined ? { viewport_zoom: input.viewport_zoom } : {}),
            ...(input.auto_read !== undefined ? { auto_read: input.auto_read } : {}),
            ...publicSettings(board, input),
            updated_at: at,
          })
          .where('id', '=', boardId)
          .returning(boardColumns)
          .executeTakeFirstOrThrow();
        await recordChanges(trx, boardId, principal.userId, [{ type: 'board.updated', data: updated }], at);
        return updated;
      }),
    );
  }

  /**
   * Deletes the board and, by cascade, everything on it, in one transaction. Returns the storage
   * paths of its asset files, which the caller removes after the commit (a rollback keeps them).
   */
  async delete(principal: Principal, boardId: string): Promise<string[]> {
    return invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(this.deps.db, async (trx) => {
        const board = await findVisibleBoard(trx, principal, boardId);
        assertOwner(board, principal);
        const files = await trx.deleteFrom('assets').where('board_id', '=', boardId).returning('storage_path').execute();
        // The board's last event outlives it (streams end on it); the earlier ones go with the board.
        const last = await recordChanges(trx, boardId, principal.userId, [{ type: 'board.deleted', data: { id: boardId } }]);
        if (last === undefined) throw notFound('Board'); // deleted meanwhile
        await trx.deleteFrom('board_events').where('board_id', '=', boardId).where('seq', '<', last.seq).execute();
        await trx.deleteFrom('boards').where('id', '=', boardId).execute();
        return files.map((f) => f.storage_path);
      }),
    );
  }
}
