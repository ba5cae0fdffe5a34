// Renders every failure as the contract's error envelope: ApiErrors, Fastify's own errors (bad
// JSON, wrong content type, oversize body, schema validation), unknown routes and wrong methods,
// HTTP parser errors before a request exists, database errors the input causes (400/409) or an
// unreachable database (503), a failing outside service (ProviderError: a chat model or an embedder
// 502, file storage 503), and unexpected exceptions, which are logged and answered without internals.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from '../../errors.js';
import { ProviderError } from '../../providers/provider-error.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function describeValidation(context: string | undefined, issues: ValidationIssue[]): string {
  const issue = issues[0] ?? {};
  let field = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
    field = field ? `${field}.${issue.params.missingProperty}` : issue.params.missingProperty;
    return `${field} is required${context === 'querystring' ? ' (query)' : ''}`;
  }
  if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
    const name = field ? `${field}.${issue.params.additionalProperty}` : issue.params.additionalProperty;
    return `${name} is not a recognised ${context === 'querystring' ? 'query parameter' : 'field'}`;
  }
  const where = field || (context === 'body' ? 'body' : (context ?? 'request'));
  return `${where} ${issue.message ?? 'is invalid'}`;
}

const fastifyCodes: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'unsupported_media_type',
    'Unsupported Content-Type: send application/json (asset uploads: multipart/form-data)',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_request', 'Content-Length does not match the body'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'Request body is too large'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_request', 'Request body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_request', 'Request body is not valid JSON'],
  // Raised before routing (frameworkErrors): a path segment past the router's length limit names
  // nothing that exists, like any other malformed id.
  FST_ERR_MAX_PARAM_LENGTH: ['not_found', 'Resource not found'],
  FST_ERR_BAD_URL: ['invalid_request', 'The request URL is malformed'],
};

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|connection error|is not queryable/i;

/**
 * PostgreSQL errors that the caller's input or timing causes, not a bug: answered as the client's
 * error (without the SQL text), or 503 when the database cannot be reached. Anything else stays 500.
 */
function databaseError(error: Error & { code?: unknown; severity?: unknown }): ApiError | undefined {
  const code = typeof error.code === 'string' ? error.code : '';
  if (CONNECTION_CODES.has(code) || (code === '' && CONNECTION_MESSAGES.test(error.message)) || /^08|^57P0[123]$/.test(code)) {
    // A restart or failover takes seconds; the pool connects anew on the next request.
    return new ApiError('unavailable', 'The database is unreachable; retry shortly', { 'Retry-After': '2' });
  }
  if (typeof error.severity !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  // Text columns cannot hold NUL (found by test/fuzz.test.ts: a board name "a\u0000b" was a 500).
  if (code === '22021' || code === '22P05') return new ApiError('invalid_request', 'Text values must not contain NUL (\\u0000) characters');
  if (code.startsWith('22')) return new ApiError('invalid_request', 'A value in the request is out of range or cannot be stored');
  if (code === '23505') return new ApiError('conflict', 'The request conflicts with an existing resource');
  if (code === '23503') return new ApiError('conflict', 'A resource the request refers to was removed meanwhile; retry it');
  if (code === '40001' || code === '40P01') return new ApiError('conflict', 'The request clashed with a concurrent change; retry it');
  return undefined;
}

/** The envelope of an outside service's failure: storage names itself, the others pass their message. */
function providerError(error: ProviderError): ApiError {
  if (error.kind === 'storage') {
    return new ApiError('unavailable', 'File storage is unavailable or failed; retry shortly', { 'Retry-After': '5' });
  }
  return new ApiError('upstream_error', error.message);
}

export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError & { validationContext?: string; validation?: ValidationIssue[] };
  if (fe.validation) {
    // A malformed id in the path names nothing that exists.
    if (fe.validationContext === 'params') return new ApiError('not_found', 'Resource not found');
    return new ApiError('invalid_request', describeValidation(fe.validationContext, fe.validation));
  }
  const mapped = fe.code ? fastifyCodes[fe.code] : undefined;
  if (mapped) return new ApiError(mapped[0], mapped[1]);
  if (error instanceof SyntaxError) {
    // secure-json-parse refuses prototype poisoning with a SyntaxError of its own.
    if (/forbidden prototype property/.test(error.message)) {
      return new ApiError('invalid_request', 'Request body must not contain __proto__ or constructor.prototype keys');
    }
    return new ApiError('invalid_request', 'Request body is not valid JSON');
  }
  // Checked before the database's connection codes: a provider's error may be an ECONNREFUSED too.
  if (error instanceof ProviderError) return providerError(error);
  const fromDatabase = databaseError(error);
  if (fromDatabase) return fromDatabase;
  const status = fe.statusCode ?? 500;
  if (status === 413) return new ApiError('payload_too_large', 'Request body is too large');
  if (status === 415) return new ApiError('unsupported_media_type', 'Unsupported Content-Type');
  if (status >= 400 && status < 500) return new ApiError('invalid_request', 'The request is malformed');
  return new ApiError('internal_error', 'An unexpected error occurred');
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toEnvelope());
}

/**
 * Fastify's `clientErrorHandler`: errors the HTTP parser raises before a request exists (headers over
 * Node's 16 KiB limit, malformed HTTP, header timeouts). Fastify's default answers these with a body
 * of its own shape; this one writes the envelope and closes the connection, as Node does.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers (or the URL) are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify({ object: 'error', status, code: 'invalid_request', message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export function registerErrorHandling(app: FastifyInstance): void {
  // Bodies are JSON (uploads register their own multipart parser). Fastify's built-in text/plain
  // parser would hand a string to the body schema and turn a wrong Content-Type into a puzzling
  // "body must be object" 400 instead of the contract's 415.
  app.removeContentTypeParser('text/plain');

  // The paths of the routes, for 405 and its Allow header. A path with a trailing slash names no
  // route (404, as Fastify's router answers it): one URL per resource.
  const patterns: { re: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const re = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = patterns.find((p) => p.re.source === re.source);
    if (existing) for (const m of methods) existing.methods.add(m);
    else patterns.push({ re, methods: new Set(methods) });
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    // An outage answers every request 503 until it ends: one line each, not a stack each.
    if (apiError.code === 'unavailable') request.log.warn(`answered 503: ${error.message}`);
    else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    // A database error answered as the client's fault is still worth a look.
    else if (!(error instanceof ApiError) && 'severity' in error)
      request.log.warn({ err: error }, `database error answered ${apiError.status}`);
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const known = patterns.find((p) => p.re.test(path));
    if (known) {
      const allow = [...known.methods].filter((m) => m !== 'HEAD').join(', ');
      return sendError(reply, new ApiError('method_not_allowed', `Method ${request.method} is not allowed on this path`, { Allow: allow }));
    }
    return sendError(reply, new ApiError('not_found', 'Route not found'));
  });
}
