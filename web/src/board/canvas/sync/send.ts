// The outbox's requests: a batch of operations, and a note's text with If-Match (the node read
// with its ETag first when the tag of the text it was typed on is not known). Each failure is a
// SendFailure telling whether sending again can succeed: not reached, 5xx, 429 (with Retry-After)
// and 401 (the session is being renewed) are tried again; 400, 403, 404, 409 are refusals.
import { api } from '../../../api';
import { failureMessage } from '../../../lib/request';
import type { NodeRecord } from '../../board-api';
import type { BatchOperation, BatchResult } from './batch-api';

export class SendFailure extends Error {
  constructor(
    message: string,
    /** undefined: the service could not be reached. */
    readonly status?: number,
    /** Retry-After of a 429 or 503, in ms. */
    readonly retryAfterMs?: number,
    /** The batch operation the refusal names (`operations[i]`). */
    readonly index?: number,
  ) {
    super(message);
  }

  /** Sending the same again later can succeed. */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 401 || this.status === 408;
  }
}

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
    throw new SendFailure(`the service could not be reached (${(error as Error).message})`);
  }
  const { response } = result;
  if (result.error !== undefined || result.data === undefined || !response.ok) {
    const seconds = Number(response.headers.get('retry-after'));
    const message = failureMessage(response.status, result.error, fallback);
    const index = /^operations\[(\d+)\]/.exec(message)?.[1];
    throw new SendFailure(
      message.replace(/^operations\[\d+\]:\s*/, ''),
      response.status,
      Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined,
      index === undefined ? undefined : Number(index),
    );
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
