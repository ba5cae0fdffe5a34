// A restore: the changes that bring a board (or some of its nodes) back to a version, made through
// the node and edge services' steps as the batch makes them (batch-service.ts), inside the content
// write the history service opened. The board as it is now is read behind the board lock, so the
// changes are worked out against what concurrent writers left, never against a stale read.
//
// Order, so that every step is valid on its own: edges gone since the version are deleted, then
// nodes gone since it (their own edges and children's links go with them, as a single delete
// does); nodes kept get their position and data back, and lose a parent that differs from the
// version's; nodes missing are created with their old ids, parents first; then the version's
// parents are set. Every link present while the parents are set is one of the version's links, and
// the version has no loop, so no step can close a loop. Last, the version's edges are created or
// given back their type and data.
import { canonicalJson } from '../nodes/client-ids.js';
import type { Edge } from '../contract/edges.js';
import type { RestoreResult } from '../contract/history.js';
import type { Node, NodeType, UpdateNodeBody } from '../contract/nodes.js';
import type { Executor } from '../db/schema.js';
import type { EdgeService } from '../edges/edge-service.js';
import type { BoardChange } from '../events/record.js';
import type { Origin } from '../assets/asset-service.js';
import type { NodeService } from '../nodes/node-service.js';
import type { Snapshot } from './history-snapshot.js';

export type RestoreCounts = Omit<RestoreResult, 'version_id' | 'restore_point_id'>;

export interface RestoreStep {
  trx: Executor;
  boardId: string;
  at: Date;
  origin: Origin;
  nodes: NodeService;
  edges: EdgeService;
}

/** A node's data patch that makes `now` equal `then`: `then`'s keys, and null for each key only `now` has. */
function dataPatch(now: Record<string, unknown>, then: Record<string, unknown>): Record<string, unknown> | undefined {
  if (canonicalJson(now) === canonicalJson(then)) return undefined;
  const patch: Record<string, unknown> = { ...then };
  for (const key of Object.keys(now)) if (!Object.hasOwn(then, key)) patch[key] = null;
  return patch;
}

/** `created` ordered so that a node comes after its parent when both are created. */
function parentsFirst(created: Node[]): Node[] {
  const byId = new Map(created.map((n) => [n.id, n]));
  const done = new Set<string>();
  const ordered: Node[] = [];
  const visit = (node: Node, depth: number) => {
    if (done.has(node.id) || depth > created.length) return;
    const parent = node.parent_node_id ? byId.get(node.parent_node_id) : undefined;
    if (parent) visit(parent, depth + 1);
    if (done.has(node.id)) return;
    done.add(node.id);
    ordered.push(node);
  };
  for (const node of created) visit(node, 0);
  return ordered;
}

/**
 * Applies the restore of `version` onto `current` (the board behind its lock); `only`: the ids of
 * the nodes to restore (the whole board when undefined). Returns the changes to record, in order.
 */
export async function applyRestore(
  step: RestoreStep,
  version: Snapshot,
  current: Pick<Snapshot, 'nodes' | 'edges'>,
  only: ReadonlySet<string> | undefined,
): Promise<{ changes: BoardChange[]; counts: RestoreCounts }> {
  const { trx, boardId, at, origin, nodes, edges } = step;
  const changes: BoardChange[] = [];
  const counts: RestoreCounts = {
    nodes_created: 0,
    nodes_updated: 0,
    nodes_deleted: 0,
    edges_created: 0,
    edges_updated: 0,
    edges_deleted: 0,
  };
  const then = new Map(version.nodes.map((n) => [n.id, n]));
  const nowNodes = new Map(current.nodes.map((n) => [n.id, n]));
  const nowEdges = new Map(current.edges.map((e) => [e.id, e]));
  const wanted = (id: string) => only === undefined || only.has(id);
  const updated = new Set<string>();

  // Deletions, only for a whole-board restore.
  if (only === undefined) {
    const keptNodes = new Set(version.nodes.map((n) => n.id));
    const keptEdges = new Set(version.edges.map((e) => e.id));
    for (const edge of current.edges) {
      if (keptEdges.has(edge.id)) continue;
      // An edge of a node deleted below goes with it; deleting it here first keeps one event per edge either way.
      changes.push(...(await edges.remove(trx, boardId, edge.id, at)));
      nowEdges.delete(edge.id);
      counts.edges_deleted++;
    }
    for (const node of current.nodes) {
      if (keptNodes.has(node.id)) continue;
      changes.push(...(await nodes.remove(trx, boardId, node.id, at)));
      nowNodes.delete(node.id);
      counts.nodes_deleted++;
      // Its children were detached by the delete.
      for (const [id, child] of nowNodes) if (child.parent_node_id === node.id) nowNodes.set(id, { ...child, parent_node_id: null });
    }
  }

  // Where each restored node's parent will be: the version's, when that node is (or will be) on the board.
  const onBoardAfter = (id: string) => nowNodes.has(id) || (then.has(id) && wanted(id));
  const targetParent = (node: Node): string | null =>
    node.parent_node_id !== null && onBoardAfter(node.parent_node_id) ? node.parent_node_id : null;

  const modify = async (id: string, input: UpdateNodeBody) => {
    const node = await nodes.modify(trx, boardId, id, input, at, origin);
    changes.push({ type: 'node.updated', data: node });
    nowNodes.set(id, node);
    updated.add(id);
  };

  // Nodes kept: position and data back; a parent that differs from the version's is let go.
  const attach: Node[] = [];
  for (const old of version.nodes) {
    if (!wanted(old.id)) continue;
    const node = nowNodes.get(old.id);
    if (!node) continue;
    const input: UpdateNodeBody = {};
    if (node.position_x !== old.position_x || node.position_y !== old.position_y) input.position = { x: old.position_x, y: old.position_y };
    const data = dataPatch(node.node_data, old.node_data);
    if (data) input.data = data;
    const parent = targetParent(old);
    if (node.parent_node_id !== parent) {
      if (node.parent_node_id !== null) input.parent_node_id = null;
      if (parent !== null) attach.push(old);
    }
    if (Object.keys(input).length > 0) await modify(old.id, input);
  }

  // Nodes missing: created with their old ids, parents first.
  const missing = version.nodes.filter((n) => wanted(n.id) && !nowNodes.has(n.id));
  for (const old of parentsFirst(missing)) {
    const parent = targetParent(old);
    const node = await nodes.insert(
      trx,
      boardId,
      {
        id: old.id,
        type: old.node_type as NodeType,
        position: { x: old.position_x, y: old.position_y },
        data: old.node_data,
        parent_node_id: parent !== null && nowNodes.has(parent) ? parent : null,
      },
      at,
      origin,
    );
    changes.push({ type: 'node.created', data: node });
    nowNodes.set(node.id, node);
    counts.nodes_created++;
    if (parent !== null && node.parent_node_id !== parent) attach.push(old);
  }
  for (const old of attach) await modify(old.id, { parent_node_id: targetParent(old) });
  const existed = new Set(current.nodes.map((n) => n.id));
  counts.nodes_updated = [...updated].filter((id) => existed.has(id)).length;

  // Edges: the version's, between nodes on the board (for some nodes: those touching them).
  for (const old of version.edges) {
    if (only !== undefined && !only.has(old.source_node_id) && !only.has(old.target_node_id)) continue;
    if (!nowNodes.has(old.source_node_id) || !nowNodes.has(old.target_node_id)) continue;
    const edge = nowEdges.get(old.id);
    if (!edge) {
      const created = await edges.insert(
        trx,
        boardId,
        { id: old.id, source_node_id: old.source_node_id, target_node_id: old.target_node_id, type: old.edge_type, data: old.edge_data },
        at,
      );
      changes.push({ type: 'edge.created', data: created });
      counts.edges_created++;
      continue;
    }
    const input: { type?: string; data?: Edge['edge_data'] } = {};
    if (edge.edge_type !== old.edge_type) input.type = old.edge_type;
    if (canonicalJson(edge.edge_data) !== canonicalJson(old.edge_data)) input.data = old.edge_data;
    if (Object.keys(input).length === 0) continue;
    changes.push({ type: 'edge.updated', data: await edges.modify(trx, boardId, old.id, input, at) });
    counts.edges_updated++;
  }
  return { changes, counts };
}
