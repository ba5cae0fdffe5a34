// POST /v1/boards/{boardId}/batch: many node and edge writes in one transaction (batch-service.ts).
import { Type } from '@sinclair/typebox';
import { BatchBody, BatchResult } from '../../contract/batch.js';
import { BATCH_MAX_OPERATIONS } from '../../contract/limits.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { BoardParams, errorResponses, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function batchRoutes(app: App, services: Services): void {
  app.post(
    '/v1/boards/:boardId/batch',
    {
      config: { heavy: true },
      schema: {
        tags: ['nodes'],
        operationId: 'batchWrite',
        summary: 'Create, update and delete nodes and edges in one transaction',
        description: `Up to ${BATCH_MAX_OPERATIONS} operations (create_node, update_node, delete_node, create_edge, update_edge, delete_edge), each with the fields of its single request, run in order behind one board lock: all succeed or nothing is written. A node created here may carry a \`ref\`, which later operations use as \`parent_ref\`, \`source_ref\` or \`target_ref\`. \`if_match\` works as the If-Match header. \`create_node\` and \`create_edge\` take an optional client-chosen \`id\`: an operation repeating a create already made (same id, same fields) answers the node or edge as it is now and writes nothing, an id used otherwise is 409; a delete of something already deleted succeeds. A failure answers the status the operation alone would have (400, 404, 409, 412), its message starting with \`operations[<index>]\`. The answer lists each operation's result in order. Idempotency-Key applies.`,
        params: BoardParams,
        body: BatchBody,
        response: {
          200: Single('batch', Type.Object({ results: Type.Array(BatchResult) })),
          409: Type.Ref('Error'),
          412: Type.Ref('Error'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const results = await services.batch.run(principalOf(request), request.params.boardId, request.body.operations, originOf(request));
      return { object: 'batch' as const, data: { results } };
    },
  );
}
