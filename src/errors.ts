// One error model for the whole service: throw an ApiError (or use a factory below) from anywhere;
// the HTTP error handler renders it as the contract's envelope { object, status, code, message }.
import type { ErrorEnvelope } from './contract/errors.js';

export const errorCodes = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorCodes[code];
    this.headers = headers;
  }

  toEnvelope(): ErrorEnvelope {
    return { object: 'error', status: this.status, code: this.code, message: this.message };
  }
}

export const invalid = (message: string) => new ApiError('invalid_request', message);
export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const forbidden = (message: string) => new ApiError('forbidden', message);
export const conflict = (message: string) => new ApiError('conflict', message);
export const unauthorized = (message = 'Invalid or missing credentials') => new ApiError('unauthorized', message);
export const missingScope = (scope: string) => new ApiError('forbidden', `Missing required scope: ${scope}`);
