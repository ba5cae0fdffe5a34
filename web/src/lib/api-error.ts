// The one error type of the web app for a failed API request: the service's refusal (its error
// envelope: status, the contract's error code, message, details, Retry-After) or no answer at all.
// Code that decides what to do with a failure reads `status`, `code` or `unreachable`, never the
// message, which is for people.

export interface ApiErrorInit {
  /** The HTTP status; undefined when the service could not be reached. */
  status?: number;
  /** The error envelope's `code` (the contract's error code). */
  code?: string;
  /** The envelope's `details`, where it has any. */
  details?: unknown;
  /** Retry-After of a 429 or 503, in ms. */
  retryAfterMs?: number;
  /** The batch operation a refusal names (`operations[i]`, docs/api.md "Batch writes"). */
  operationIndex?: number;
}

export class ApiError extends Error {
  readonly status?: number;
  readonly code?: string;
  readonly details?: unknown;
  readonly retryAfterMs?: number;
  readonly operationIndex?: number;

  constructor(message: string, init: ApiErrorInit = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
    this.operationIndex = init.operationIndex;
  }

  /** No answer came: the service (or the network) could not be reached. */
  get unreachable(): boolean {
    return this.status === undefined;
  }

  /** Sending the same again later can succeed: not reached, 5xx, 429, 408, or 401 (renewed). */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 401 || this.status === 408;
  }
}

const BATCH_PREFIX = /^operations\[(\d+)\]:\s*/;

/**
 * The fields of a failed answer: status, the envelope's code and details, Retry-After, and the
 * index of the batch operation the envelope's message names (the contract starts a batch
 * refusal's message with `operations[<index>]`).
 */
export function answerFields(response: { status: number; headers?: Headers }, body: unknown): ApiErrorInit {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const seconds = Number(response.headers?.get('retry-after'));
  const index = typeof envelope.message === 'string' ? BATCH_PREFIX.exec(envelope.message)?.[1] : undefined;
  return {
    status: response.status,
    code: typeof envelope.code === 'string' ? envelope.code : undefined,
    details: envelope.details,
    retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined,
    operationIndex: index === undefined ? undefined : Number(index),
  };
}

/** A batch refusal's message without its `operations[i]: ` prefix, which means nothing to a person. */
export function withoutOperationPrefix(message: string): string {
  return message.replace(BATCH_PREFIX, '');
}
