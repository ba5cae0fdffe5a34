// Board history (issue 31): a board's versions, read as it was, named, and restored as new changes.
//
// - Versions are whole snapshots (history-snapshot.ts). The service takes one when a board changes,
//   never on a read: the history sweep (modules/history.ts) snapshots each board whose event_seq has
//   moved past its latest version's and whose latest automatic version is older than
//   HISTORY_SNAPSHOT_INTERVAL_SECONDS, after the writes committed, so no write waits for it.
// - A restore is a content write like the batch: one transaction behind the board lock, the node and
//   edge services' steps (history-restore.ts), its changes recorded as events, so that it streams to
//   everyone on the board. The board as it was just before is kept as a `restore_point` version in
//   the same transaction: restoring that undoes the restore.
// - Who may: reading needs the board visible (access/board-access.ts); naming a version and
//   restoring one are the owner's (assertOwner), as sharing and deleting the board are.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { assertOwner, findVisibleBoard } from '../access/board-access.js';
import { beginContentWrite } from '../access/content-write.js';
import type { Origin } from '../assets/asset-service.js';
import type { BoardBounds } from '../config.js';
import { fieldsOf } from '../contract/common.js';
import { BoardVersion, type BoardVersionContent, type RestoreResult, type VersionBoard } from '../contract/history.js';
import type { Db, Executor } from '../db/schema.js';
import type { EdgeService } from '../edges/edge-service.js';
import { notFound } from '../errors.js';
import { changeTransaction, recordWithinBounds } from '../events/record.js';
import type { Logger } from '../lib/logger.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { invalidatingBoard, type NodeReadCache } from '../nodes/node-cache.js';
import type { NodeService } from '../nodes/node-service.js';
import { applyRestore } from './history-restore.js';
import { decodeSnapshot, encodeSnapshot, readContent, type Snapshot } from './history-snapshot.js';

const versionColumns = fieldsOf(BoardVersion);
const DAY_MS = 24 * 60 * 60 * 1000;

export interface HistorySettings {
  /** The least time between two automatic versions of a board (HISTORY_SNAPSHOT_INTERVAL_SECONDS). */
  snapshotIntervalSeconds: number;
  /** Days unnamed versions are kept (HISTORY_RETENTION_DAYS). */
  retentionDays: number;
}

/** What the history service is built with, once per app (src/modules/services.ts). */
export interface HistoryDeps {
  db: Db;
  nodeCache?: NodeReadCache | undefined;
  bounds: BoardBounds;
  nodes: NodeService;
  edges: EdgeService;
  settings: HistorySettings;
}

/** The ids of a version: its board and its own (a route's path parameters). */
export interface VersionIds {
  boardId: string;
  versionId: string;
}

/** What one sweep did, for logs and tests. */
export interface SweepResult {
  snapshots: number;
  pruned: number;
}

async function boardFields(db: Executor, boardId: string): Promise<(VersionBoard & { event_seq: number }) | undefined> {
  return db
    .selectFrom('boards')
    .select(['name', 'viewport_x', 'viewport_y', 'viewport_zoom', 'event_seq'])
    .where('id', '=', boardId)
    .executeTakeFirst();
}

export class HistoryService {
  constructor(private readonly deps: HistoryDeps) {}

  async list(principal: Principal, boardId: string, page: PageRequest, list: string): Promise<Page<BoardVersion>> {
    const { db } = this.deps;
    await findVisibleBoard(db, principal, boardId);
    const query = db.selectFrom('board_history').select(versionColumns).where('board_id', '=', boardId);
    return toPage(await applyPage(query, page, 'board_history').execute(), page, list);
  }

  async get(principal: Principal, { boardId, versionId }: VersionIds): Promise<BoardVersionContent> {
    const { db } = this.deps;
    await findVisibleBoard(db, principal, boardId);
    const row = await this.findVersion(db, boardId, versionId);
    const { snapshot, ...version } = row;
    return { ...version, ...(await decodeSnapshot(snapshot)) };
  }

  /** Keeps the board as it is now as a named version (kept past the retention). */
  async name(principal: Principal, boardId: string, name: string): Promise<BoardVersion> {
    const { db } = this.deps;
    assertOwner(await findVisibleBoard(db, principal, boardId), principal);
    const version = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const board = await boardFields(trx, boardId);
        if (!board) throw notFound('Board');
        return this.store(trx, boardId, 'named', name, principal.userId, board, await readContent(trx, boardId));
      });
    return version;
  }

  /**
   * Brings the version back as new changes (the whole board, or only `nodeIds`), recorded as the
   * caller's events; keeps the board as it was just before as a restore_point version.
   */
  async restore(
    principal: Principal,
    { boardId, versionId }: VersionIds,
    nodeIds: string[] | undefined,
    origin: Origin,
  ): Promise<RestoreResult> {
    const { db, bounds, nodes, edges } = this.deps;
    // The version is read and decoded before the board is locked; restoring is the owner's (issue 31).
    assertOwner(await findVisibleBoard(db, principal, boardId), principal);
    const version = await decodeSnapshot((await this.findVersion(db, boardId, versionId)).snapshot);
    const only = nodeIds === undefined ? undefined : new Set(nodeIds.map((id) => id.toLowerCase()));
    if (only) {
      const inVersion = new Set(version.nodes.map((n) => n.id));
      const absent = [...only].find((id) => !inVersion.has(id));
      if (absent) throw notFound(`Node ${absent} in this version`);
    }
    return invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(db, async (trx) => {
        const at = now();
        const board = await beginContentWrite(trx, principal, boardId);
        const current = await readContent(trx, boardId);
        const { changes, counts } = await applyRestore({ trx, boardId, at, origin, nodes, edges }, version, current, only);
        if (changes.length === 0) return { version_id: versionId.toLowerCase(), restore_point_id: null, ...counts };
        // Ids brought back are in use again: a replayed create of them is a conflict, not a replay of a delete.
        const revived = changes
          .filter((c) => c.type === 'node.created' || c.type === 'edge.created')
          .map((c) => (c.data as { id: string }).id);
        if (revived.length > 0) await trx.deleteFrom('deleted_ids').where('id', 'in', revived).execute();
        const point = await this.store(trx, boardId, 'restore_point', null, principal.userId, { ...board }, current, at);
        await recordWithinBounds(trx, boardId, principal.userId, changes, at, bounds, board);
        return { version_id: versionId.toLowerCase(), restore_point_id: point.id, ...counts };
      }),
    );
  }

  /**
   * One pass of the history sweep: drops unnamed versions older than the retention, then keeps a
   * version of each board due one (changed since its latest version, no automatic version within
   * the interval), at most `limit` boards. `beforeEach` lets requests in flight go first.
   */
  async sweep(limit: number, beforeEach: () => Promise<void> = async () => {}, log?: Logger): Promise<SweepResult> {
    const { db, settings } = this.deps;
    const pruned = await db
      .deleteFrom('board_history')
      .where('kind', '<>', 'named')
      .where('created_at', '<', new Date(Date.now() - settings.retentionDays * DAY_MS))
      .executeTakeFirst();
    const due = await this.dueBoards(db, limit);
    let snapshots = 0;
    for (const boardId of due) {
      await beforeEach();
      const started = performance.now();
      const version = await this.snapshotIfDue(boardId);
      if (!version) continue;
      snapshots++;
      log?.debug(
        { boardId, nodes: version.node_count, edges: version.edge_count, bytes: version.size_bytes, ms: performance.now() - started },
        'board version kept',
      );
    }
    return { snapshots, pruned: Number(pruned.numDeletedRows) };
  }

  private async dueBoards(db: Executor, limit: number): Promise<string[]> {
    const interval = this.deps.settings.snapshotIntervalSeconds;
    const { rows } = await sql<{ id: string }>`
      SELECT b.id FROM boards b
      WHERE b.event_seq > COALESCE((SELECT max(h.event_seq) FROM board_history h WHERE h.board_id = b.id), 0)
        AND NOT EXISTS (SELECT 1 FROM board_history h WHERE h.board_id = b.id AND h.kind = 'auto'
                          AND h.created_at > now() - make_interval(secs => ${interval}))
      ORDER BY b.updated_at
      LIMIT ${limit}`.execute(db);
    return rows.map((r) => r.id);
  }

  /**
   * An automatic version of the board, read in one repeatable-read transaction (the fields, nodes
   * and edges of one moment) without locking the board, so writers never wait for it. The advisory
   * lock keeps two instances' sweeps from keeping the same board twice.
   */
  private async snapshotIfDue(boardId: string): Promise<BoardVersion | undefined> {
    const interval = this.deps.settings.snapshotIntervalSeconds;
    return this.deps.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const { rows } = await sql<{ locked: boolean }>`
          SELECT pg_try_advisory_xact_lock(hashtextextended(${`board_history:${boardId}`}, 0)) AS locked`.execute(trx);
        if (!rows[0]?.locked) return undefined;
        const board = await boardFields(trx, boardId);
        if (!board) return undefined;
        const latest = await trx
          .selectFrom('board_history')
          .select((eb) => [
            eb.fn.max('event_seq').as('seq'),
            sql<boolean>`bool_or(kind = 'auto' AND created_at > now() - make_interval(secs => ${interval}))`.as('recent'),
          ])
          .where('board_id', '=', boardId)
          .executeTakeFirst();
        if ((latest?.seq ?? 0) >= board.event_seq || latest?.recent) return undefined;
        return this.store(trx, boardId, 'auto', null, null, board, await readContent(trx, boardId));
      });
  }

  private async store(
    trx: Executor,
    boardId: string,
    kind: BoardVersion['kind'],
    name: string | null,
    createdBy: string | null,
    board: VersionBoard & { event_seq: number },
    content: Pick<Snapshot, 'nodes' | 'edges'>,
    at = now(),
  ): Promise<BoardVersion> {
    const { event_seq, name: boardName, viewport_x, viewport_y, viewport_zoom } = board;
    const snapshot = await encodeSnapshot({ board: { name: boardName, viewport_x, viewport_y, viewport_zoom }, ...content });
    return trx
      .insertInto('board_history')
      .values({
        id: newId(),
        board_id: boardId,
        kind,
        name,
        created_by: createdBy,
        event_seq,
        node_count: content.nodes.length,
        edge_count: content.edges.length,
        size_bytes: snapshot.length,
        snapshot,
        created_at: at,
      })
      .returning(versionColumns)
      .executeTakeFirstOrThrow();
  }

  private async findVersion(db: Executor, boardId: string, versionId: string) {
    const row = await db
      .selectFrom('board_history')
      .select([...versionColumns, 'snapshot'])
      .where('id', '=', versionId)
      .where('board_id', '=', boardId)
      .executeTakeFirst();
    if (!row) throw notFound('Version');
    return row;
  }
}
