// The write tools (write scope): create, update and delete nodes, connect nodes, update and delete
// edges (each in bulk, up to 100 items, each item its own write as in the REST API), and vectorize
// a node's text.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { nodeTypeInputs, type NodeTypeInput, type UpdateNodeBody } from '../contract/nodes.js';
import { invalid } from '../errors.js';
import { toNodeType } from '../nodes/node-data.js';
import { compactEdge, compactNode, edgeLine, nodeLine } from './compact.js';
import type { McpCall, McpDeps } from './context.js';
import { BoardId, Id } from './read-tools.js';
import { bulkResult, eachItem, guarded, ok } from './results.js';
import {
  COORDINATE_MAX,
  EDGE_TYPE_MAX_CHARS,
  LABEL_MAX_CHARS,
  NODE_TEXT_MAX_CHARS,
  URL_MAX_CHARS,
  VECTORIZE_TEXT_MAX_CHARS,
} from '../contract/limits.js';

const MAX_ITEMS = 100;
const Coordinate = z.number().min(-COORDINATE_MAX).max(COORDINATE_MAX);
const Position = z.object({ x: Coordinate, y: Coordinate }).describe('Canvas position');
const Data = z.record(z.string(), z.unknown());
const Text = z.string().max(NODE_TEXT_MAX_CHARS);
const Label = z.string().max(LABEL_MAX_CHARS);
const Url = z.string().max(URL_MAX_CHARS);
const EdgeType = z.string().min(1).max(EDGE_TYPE_MAX_CHARS);
const items = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_ITEMS);

// A create repeated with its id and the same item answers what it made (docs/api.md, "Replaying a queue of edits safely").
const ClientId = Id.describe(
  'A UUID of your choosing for the new item, so that repeating the call creates nothing twice; default: the service picks one',
);

/** Where a node goes when no position is given: a column, so new nodes do not pile up. */
const defaultPosition = (index: number) => ({ x: 0, y: index * 200 });

export function registerWriteTools(server: McpServer, deps: McpDeps, call: McpCall): void {
  const { nodes: nodeService, edges: edgeService } = deps;
  const { principal } = call;

  server.registerTool(
    'create_nodes',
    {
      title: 'Create nodes',
      description:
        'Create up to 100 nodes on a board: notes by default (text), or url, video and document nodes (url). ' +
        'text, label and url are shorthands for the same keys of data.',
      inputSchema: {
        board_id: BoardId,
        nodes: items(
          z.object({
            id: ClientId.optional(),
            type: z.enum(nodeTypeInputs).default('note').describe('note (default), url, video, document, pdf, image'),
            text: Text.optional().describe('A note or document text'),
            label: Label.optional(),
            url: Url.optional().describe('For url and video nodes (absolute http/https)'),
            position: Position.optional().describe('Default: a column at x 0'),
            parent_node_id: Id.optional(),
            data: Data.optional().describe('Other keys of node data, kept as given'),
          }),
        ),
      },
    },
    ({ board_id, nodes }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, [...nodes.entries()], async ([index, item]) => {
          const data: Record<string, unknown> = { ...item.data };
          if (item.text !== undefined) data.text = item.text;
          if (item.label !== undefined) data.label = item.label;
          if (item.url !== undefined) data.url = item.url;
          if (item.type === 'note' && data.text === undefined) data.text = '';
          const node = await nodeService.create(
            principal,
            board_id,
            {
              id: item.id,
              type: toNodeType(item.type as NodeTypeInput),
              position: item.position ?? defaultPosition(index),
              data,
              parent_node_id: item.parent_node_id ?? null,
            },
            call,
          );
          return compactNode(node);
        });
        return bulkResult('Created', outcomes, nodeLine, (node) => ({ node }));
      }),
  );

  server.registerTool(
    'update_nodes',
    {
      title: 'Update nodes',
      description:
        'Update up to 100 nodes: move them, replace their text, label or url, merge other data keys (null removes a key), ' +
        'or change their parent (null detaches).',
      inputSchema: {
        board_id: BoardId,
        nodes: items(
          z.object({
            node_id: Id,
            text: Text.optional(),
            label: Label.nullable().optional(),
            url: Url.optional(),
            position: Position.optional(),
            parent_node_id: Id.nullable().optional(),
            data: Data.optional().describe('Shallow merge into node data; a key set to null is removed'),
          }),
        ),
      },
      annotations: { idempotentHint: true },
    },
    ({ board_id, nodes }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, nodes, async (item) => {
          const data: Record<string, unknown> = { ...item.data };
          if (item.text !== undefined) data.text = item.text;
          if (item.label !== undefined) data.label = item.label;
          if (item.url !== undefined) data.url = item.url;
          const body: UpdateNodeBody = {};
          if (Object.keys(data).length > 0) body.data = data;
          if (item.position) body.position = item.position;
          if (item.parent_node_id !== undefined) body.parent_node_id = item.parent_node_id;
          if (Object.keys(body).length === 0) throw invalid('Nothing to update: give text, label, url, position, parent_node_id or data');
          return compactNode(await nodeService.update(principal, { boardId: board_id, id: item.node_id }, body, call));
        });
        return bulkResult('Updated', outcomes, nodeLine, (node) => ({ node }));
      }),
  );

  server.registerTool(
    'delete_nodes',
    {
      title: 'Delete nodes',
      description: 'Delete up to 100 nodes with their edges (their child nodes are detached, not deleted).',
      inputSchema: { board_id: BoardId, node_ids: items(Id) },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ board_id, node_ids }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, node_ids, async (id) => {
          await nodeService.delete(principal, { boardId: board_id, id });
          return id;
        });
        return bulkResult(
          'Deleted',
          outcomes,
          (id) => `deleted node ${id}`,
          (id) => ({ id }),
        );
      }),
  );

  server.registerTool(
    'connect_nodes',
    {
      title: 'Connect nodes',
      description: 'Create up to 100 edges between nodes of a board, each with an optional type and label.',
      inputSchema: {
        board_id: BoardId,
        edges: items(
          z.object({
            id: ClientId.optional(),
            source_node_id: Id,
            target_node_id: Id,
            type: EdgeType.optional().describe('Edge type, default "default"'),
            label: Label.optional(),
            data: Data.optional().describe('Other edge data, kept as given'),
          }),
        ),
      },
    },
    ({ board_id, edges }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, edges, async (item) => {
          const data: Record<string, unknown> = { ...item.data };
          if (item.label !== undefined) data.label = item.label;
          const edge = await edgeService.create(principal, board_id, {
            id: item.id,
            source_node_id: item.source_node_id,
            target_node_id: item.target_node_id,
            type: item.type,
            data,
          });
          return compactEdge(edge);
        });
        return bulkResult('Connected', outcomes, edgeLine, (edge) => ({ edge }));
      }),
  );

  server.registerTool(
    'update_edges',
    {
      title: 'Update edges',
      description: "Change up to 100 edges' type, label or data (data replaces the edge's data; label is kept in it).",
      inputSchema: {
        board_id: BoardId,
        edges: items(
          z.object({
            edge_id: Id,
            type: EdgeType.optional(),
            label: Label.optional(),
            data: Data.optional().describe("Replaces the edge's data"),
          }),
        ),
      },
      annotations: { idempotentHint: true },
    },
    ({ board_id, edges }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, edges, async (item) => {
          const data = item.data || item.label !== undefined ? { ...item.data } : undefined;
          if (data && item.label !== undefined) data.label = item.label;
          if (item.type === undefined && data === undefined) throw invalid('Nothing to update: give type, label or data');
          return compactEdge(await edgeService.update(principal, { boardId: board_id, id: item.edge_id }, { type: item.type, data }));
        });
        return bulkResult('Updated', outcomes, edgeLine, (edge) => ({ edge }));
      }),
  );

  server.registerTool(
    'delete_edges',
    {
      title: 'Delete edges',
      description: 'Delete up to 100 edges.',
      inputSchema: { board_id: BoardId, edge_ids: items(Id) },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ board_id, edge_ids }) =>
      guarded(call, async () => {
        const outcomes = await eachItem(call, edge_ids, async (id) => {
          await edgeService.delete(principal, { boardId: board_id, id });
          return id;
        });
        return bulkResult(
          'Deleted',
          outcomes,
          (id) => `deleted edge ${id}`,
          (id) => ({ id }),
        );
      }),
  );

  server.registerTool(
    'vectorize_node',
    {
      title: 'Vectorize a node',
      description:
        "Make a node's text searchable (search_board, ask_board): queues a job that chunks and embeds it, replacing the node's " +
        "earlier chunks. Without text, the service reads the node: a note's or document's text, a pdf's file, a url node's page, " +
        "an uploaded document's file, an image's label and description (a video needs its transcript: use the REST route).",
      inputSchema: {
        board_id: BoardId,
        node_id: Id,
        text: z.string().min(1).max(VECTORIZE_TEXT_MAX_CHARS).optional().describe("Text to embed instead of the node's own"),
      },
    },
    ({ board_id, node_id, text }) =>
      guarded(call, async () => {
        // Without text the service reads the node by its type (src/documents/reading/read-node.ts).
        const job = await deps.documents.vectorize(principal, board_id, { node_id, text });
        deps.jobs.wake();
        return ok(`Queued job ${job.id} (${job.status}) to vectorize node ${node_id}.`, {
          job: { id: job.id, type: job.type, status: job.status, board_id, node_id },
        });
      }),
  );
}
