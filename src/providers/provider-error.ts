// The one error type of every outside service behind src/providers: chat models, embedders and
// file storage all throw ProviderError, naming which kind of provider failed and whether retrying
// may help. src/http/plugins/errors.ts maps it once to the error envelope (a chat model or an
// embedder: 502 upstream_error with the message; storage: 503 naming storage).

export type ProviderKind = 'chat_model' | 'embedder' | 'storage';

export interface ProviderErrorOptions {
  /** The provider's HTTP status, when it answered one. */
  status?: number;
  /** Whether the same call may succeed later; by default when there was no answer, a 429 or a 5xx. */
  retryable?: boolean;
  cause?: unknown;
}

export class ProviderError extends Error {
  readonly kind: ProviderKind;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(kind: ProviderKind, message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = options.status;
    this.retryable = options.retryable ?? (options.status === undefined || options.status === 429 || options.status >= 500);
  }

  /**
   * Whether the message may be shown to the caller (a job's error, a stream's error event): chat
   * models and embedders write messages meant for it; storage's carry the backend's own error.
   */
  get shown(): boolean {
    return this.kind !== 'storage';
  }
}
