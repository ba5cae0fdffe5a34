// The outbox's requests: a batch of operations, a note's text with If-Match (the node read with
// its ETag first when the tag of the text it was typed on is not known), and keys of an edge's data
// set on the edge as the service has it (read, then written with If-Match). Each failure is a
// ApiError (lib/api-error.ts) whose `retryable` tells whether sending again can succeed: not reached, 5xx, 429 (with Retry-After)
// and 401 (the session is being renewed) are tried again; 400, 403, 404, 409 are refusals.
import { api } from '../../../api';
import { ApiError, answerFields, withoutOperationPrefix } from '../../../lib/api-error';
import { failureMessage } from '../../../lib/request';
import type { EdgeRecord, NodeRecord } from '../../board-api';
import { patched } from './operations';
import type { BatchOperation, BatchResult } from './batch-api';

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function outcome<T>(call: Promise<Outcome<T>>, fallback: string): Promise<{ data: T; response: Response }> {
  let result: Outcome<T>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(`the service could not be reached (${(error as Error).message})`);
  }
  const { response } = result;
  if (result.error !== undefined || result.data === undefined || !response.ok) {
    const message = failureMessage(response.status, result.error, fallback);
    throw new ApiError(withoutOperationPrefix(message), answerFields(response, result.error));
  }
  return { data: result.data, response };
}

export async function sendBatch(boardId: string, operations: BatchOperation[]): Promise<BatchResult[]> {
  const { data } = await outcome(
    api.POST('/v1/boards/{boardId}/batch', { params: { path: { boardId } }, body: { operations } }),
    'Not saved',
  );
  return data.data.results;
}

export interface TaggedNode {
  node: NodeRecord;
  etag: string;
}

export async function readNode(boardId: string, id: string): Promise<TaggedNode> {
  const { data, response } = await outcome(api.GET('/v1/boards/{boardId}/nodes/{id}', { params: { path: { boardId, id } } }), 'Not saved');
  return { node: data.data, etag: response.headers.get('etag') ?? '' };
}

export async function writeText(boardId: string, id: string, text: string, etag: string): Promise<TaggedNode> {
  const { data, response } = await outcome(
    api.PATCH('/v1/boards/{boardId}/nodes/{id}', {
      params: { path: { boardId, id }, header: { 'if-match': etag } },
      body: { data: { text } },
    }),
    'Not saved',
  );
  return { node: data.data, etag: response.headers.get('etag') ?? '' };
}

/** Reads of the edge and writes, at most, when others keep changing it in between (each a 412). */
const EDGE_WRITES = 5;

/**
 * Sets keys of an edge's data (null removes one). PATCH replaces the whole edge_data, so the data
 * is made from the edge as the service has it (read with its ETag) and written with If-Match: what
 * someone else set meanwhile (another key, a label while this person set the colour) stays. A 412
 * (they wrote between the read and the write) reads again.
 */
export async function patchEdgeData(boardId: string, id: string, keys: Record<string, unknown>): Promise<EdgeRecord> {
  const path = { boardId, id };
  for (let attempt = 1; ; attempt++) {
    const { data: read, response } = await outcome(api.GET('/v1/boards/{boardId}/edges/{id}', { params: { path } }), 'Not saved');
    try {
      const { data } = await outcome(
        api.PATCH('/v1/boards/{boardId}/edges/{id}', {
          params: { path, header: { 'if-match': response.headers.get('etag') ?? '' } },
          body: { data: patched(read.data.edge_data, keys) },
        }),
        'Not saved',
      );
      return data.data;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 412) || attempt >= EDGE_WRITES) throw error;
    }
  }
}
