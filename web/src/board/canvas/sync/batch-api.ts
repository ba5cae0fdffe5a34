// The batch write (`POST /v1/boards/{id}/batch`, docs/api.md "Batch writes") as the canvas's edits
// use it beyond deletions: pasting and duplicating (nodes with client refs and the edges between
// them), and undo/redo of changes touching several nodes. All of a batch or nothing is written.
import type { paths } from '@board-workspace/client';
import { api } from '../../../api';
import { ApiError, answerFields, withoutOperationPrefix } from '../../../lib/api-error';
import { failureMessage } from '../../../lib/request';

type BatchPath = paths['/v1/boards/{boardId}/batch']['post'];
export type BatchOperation = BatchPath['requestBody']['content']['application/json']['operations'][number];
export type BatchResult = BatchPath['responses'][200]['content']['application/json']['data']['results'][number];

/** The most operations one batch may carry. */
export const BATCH_LIMIT = 500;

/**
 * Sends `operations` as one batch; throws an ApiError whose message names the failing item
 * in words (not `operations[i]`), prefixed by `what`.
 */
export async function writeBatch(boardId: string, operations: BatchOperation[], what: string): Promise<BatchResult[]> {
  if (operations.length > BATCH_LIMIT) throw new ApiError(`${what}: more than ${BATCH_LIMIT} changes at once`);
  const call = api.POST('/v1/boards/{boardId}/batch', { params: { path: { boardId } }, body: { operations } });
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(`${what}: the service could not be reached (${(error as Error).message})`);
  }
  if (result.error !== undefined || result.data === undefined) {
    // "operations[i]: …" means nothing to a person.
    const reason = withoutOperationPrefix(failureMessage(result.response.status, result.error, 'the service refused'));
    throw new ApiError(`${what}: ${reason}`, answerFields(result.response, result.error));
  }
  return result.data.data.results;
}
