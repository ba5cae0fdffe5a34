// The batch: up to 500 node and edge writes in one transaction behind one board lock, all or
// nothing, recorded as one run of events. Each operation is the same step its single route takes
// (the node and edge services' insert, modify, remove, …); a failure names the operation's index and
// rolls back every operation before it. Nodes created by the batch may be named by a `ref` that
// later operations use for a parent, a source or a target.
import type { Principal } from '../auth/principal.js';
import type { BatchOperation, BatchResult } from '../contract/batch.js';
import type { NodeTypeInput } from '../contract/nodes.js';
import type { Db } from '../db/schema.js';
import type { Origin } from '../assets/asset-service.js';
import { ApiError, invalid } from '../errors.js';
import { type BoardChange, changeTransaction, recordWithinBounds } from '../events/record.js';
import type { EdgeService } from '../edges/edge-service.js';
import { now } from '../lib/ids.js';
import { parseTagCondition } from '../lib/etag.js';
import { beginContentWrite } from '../access/content-write.js';
import { invalidatingBoard, type NodeReadCache } from '../nodes/node-cache.js';
import { toNodeType } from '../nodes/node-data.js';
import type { NodeService } from '../nodes/node-service.js';
import type { BoardBounds } from '../config.js';

/** An operation's failure, with its index in front of the message and the status it had. */
function atOperation(index: number, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(error.code, `operations[${index}]: ${error.message}`, error.headers);
}

/** What the batch is built with, once per app (src/modules/services.ts): the steps are the node and edge services'. */
export interface BatchDeps {
  db: Db;
  nodeCache?: NodeReadCache | undefined;
  bounds: BoardBounds;
  nodes: NodeService;
  edges: EdgeService;
}

/** The app's batch writes, built once per app (src/modules/services.ts). */
export class BatchService {
  constructor(private readonly deps: BatchDeps) {}

  async run(principal: Principal, boardId: string, operations: BatchOperation[], origin: Origin): Promise<BatchResult[]> {
    const { db, bounds, nodes, edges } = this.deps;
    return invalidatingBoard(this.deps, boardId, () =>
      changeTransaction(db, async (trx) => {
        const at = now();
        const board = await beginContentWrite(trx, principal, boardId);
        const refs = new Map<string, string>();
        const byRef = (field: string, ref: string | undefined): string | undefined => {
          if (ref === undefined) return undefined;
          const id = refs.get(ref);
          if (!id) throw invalid(`${field} ${JSON.stringify(ref)} names no node created earlier in the batch`);
          return id;
        };
        const changes: BoardChange[] = [];
        const results: BatchResult[] = [];
        for (const [index, op] of operations.entries()) {
          try {
            const ifMatch = 'if_match' in op ? parseTagCondition('if_match', op.if_match) : undefined;
            switch (op.op) {
              case 'create_node': {
                const { op: _op, ref, parent_ref, type, ...input } = op;
                if (ref !== undefined && refs.has(ref)) throw invalid(`the ref ${JSON.stringify(ref)} is used twice`);
                const parent = byRef('parent_ref', parent_ref) ?? input.parent_node_id;
                const create = { ...input, type: toNodeType(type as NodeTypeInput), parent_node_id: parent };
                // A create repeated with its client-chosen id answers the node and changes nothing.
                const repeated = await nodes.repeated(trx, boardId, create);
                const node = repeated ?? (await nodes.insert(trx, boardId, create, at, origin));
                if (ref !== undefined) refs.set(ref, node.id);
                if (!repeated) changes.push({ type: 'node.created', data: node });
                results.push({ op: op.op, id: node.id, node, ...(ref !== undefined ? { ref } : {}) });
                break;
              }
              case 'update_node': {
                const { op: _op, id, if_match: _m, parent_ref, ...input } = op;
                const parent = byRef('parent_ref', parent_ref) ?? input.parent_node_id;
                const update = { ...input, ...(parent !== undefined ? { parent_node_id: parent } : {}) };
                // An update already applied (its If-Match stale, its change there) answers the node and changes nothing.
                const applied = await nodes.alreadyApplied(trx, boardId, id, update, ifMatch);
                const node = applied ?? (await nodes.modify(trx, boardId, id, update, at, { ...origin, ifMatch }));
                if (!applied) changes.push({ type: 'node.updated', data: node });
                results.push({ op: op.op, id, node });
                break;
              }
              case 'delete_node':
                changes.push(...(await nodes.remove(trx, boardId, op.id, at, ifMatch)));
                results.push({ op: op.op, id: op.id });
                break;
              case 'create_edge': {
                const source = byRef('source_ref', op.source_ref) ?? op.source_node_id;
                const target = byRef('target_ref', op.target_ref) ?? op.target_node_id;
                if (!source || !target)
                  throw invalid('an edge needs a source (source_node_id or source_ref) and a target (target_node_id or target_ref)');
                const create = { id: op.id, source_node_id: source, target_node_id: target, type: op.type, data: op.data };
                const repeated = await edges.repeated(trx, boardId, create);
                const edge = repeated ?? (await edges.insert(trx, boardId, create, at));
                if (!repeated) changes.push({ type: 'edge.created', data: edge });
                results.push({ op: op.op, id: edge.id, edge });
                break;
              }
              case 'update_edge': {
                const { op: _op, id, if_match: _m, ...input } = op;
                const applied = await edges.alreadyApplied(trx, boardId, id, input, ifMatch);
                const edge = applied ?? (await edges.modify(trx, boardId, id, input, at, ifMatch));
                if (!applied) changes.push({ type: 'edge.updated', data: edge });
                results.push({ op: op.op, id, edge });
                break;
              }
              case 'delete_edge':
                changes.push(...(await edges.remove(trx, boardId, op.id, at, ifMatch)));
                results.push({ op: op.op, id: op.id });
                break;
            }
          } catch (error) {
            throw atOperation(index, error);
          }
        }
        await recordWithinBounds(trx, boardId, principal.userId, changes, at, bounds, board);
        return results;
      }),
    );
  }
}
