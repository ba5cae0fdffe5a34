// A fake Anthropic Messages API (`POST /v1/messages`) on loopback, speaking the real wire format:
// streamed, named SSE events (message_start, content_block_start, content_block_delta with
// text_delta, content_block_stop, message_delta with usage, message_stop, `ping` keep-alives, and the
// `error` event of a stream that fails after it began); not streamed, one `message` JSON object; and
// HTTP errors as the `{type: "error", error: {type, message}}` envelope. With `cited`, the answer
// is text blocks as the citations feature streams them: a block citing a plain-text document gets
// `citations_delta` events ({type: "char_location", cited_text, document_index, document_title,
// start_char_index, end_char_index}, cited_text cut from the request's document as the API does)
// before its text; the documents must carry `citations: {enabled: true}`, all or none. Each request takes the
// next scripted behaviour. It records request bodies and headers, and requests its client hung up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AnthropicBehaviour =
  | {
      kind: 'answer';
      deltas: string[];
      /** input_tokens in message_start; output_tokens in the final message_delta. */
      usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number };
      stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence';
      delayMs?: number;
    }
  /** The connection drops after these deltas. */
  | { kind: 'fail-mid'; deltas: string[] }
  /** An `event: error` (overloaded_error) after these deltas, as the API does once the 200 is sent. */
  | { kind: 'error-event'; deltas: string[] }
  /** The response ends cleanly after these deltas but without message_delta / message_stop. */
  | { kind: 'truncated'; deltas: string[] }
  | { kind: 'status'; status: number; retryAfterMs?: number }
  | { kind: 'stall'; deltas?: string[] }
  /** Text blocks; a block with `cite` cites that character range of the request's document `document`. */
  | { kind: 'cited'; blocks: { text: string; cite?: { document: number; start: number; end: number } }[] };

/** The documents of a request, in order, as the API indexes them (document blocks of every user turn). */
function documentsOf(body: any): any[] {
  const out: any[] = [];
  for (const m of body.messages ?? [])
    if (Array.isArray(m.content)) for (const block of m.content) if (block.type === 'document') out.push(block);
  return out;
}

export interface RecordedRequest {
  body: any;
  headers: http.IncomingHttpHeaders;
}

export interface FakeAnthropic {
  /** The base URL for ANTHROPIC_BASE_URL (the SDK appends /v1/messages). */
  url: string;
  requests: RecordedRequest[];
  /** Requests whose client closed the connection before the answer ended. */
  aborted: number;
  /** Resolves when the next request is closed early by its client. */
  nextAbort(): Promise<void>;
  script(...behaviours: AnthropicBehaviour[]): void;
  /** Behaviour when the script is empty. */
  fallback: AnthropicBehaviour;
  /** The answer text of non-streamed requests (memory condensing). */
  plainAnswer: string;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** The API key a request carries, in either header the Messages API accepts. */
export function apiKeyOf(headers: http.IncomingHttpHeaders): string | undefined {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key) return key;
  return /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queue: AnthropicBehaviour[] = [];
  const abortWaiters: (() => void)[] = [];
  const fake: FakeAnthropic = {
    url: '',
    requests: [],
    aborted: 0,
    fallback: { kind: 'answer', deltas: ['Hello', ' there', '.'] },
    plainAnswer: 'The user asked about the board.\nThe assistant answered from it.',
    nextAbort: () => new Promise<void>((resolve) => abortWaiters.push(resolve)),
    script: (...b) => void queue.push(...b),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', async () => {
      let ended = false;
      res.on('close', () => {
        if (ended) return;
        fake.aborted++;
        abortWaiters.splice(0).forEach((w) => w());
      });
      const end = () => {
        ended = true;
        res.end();
      };
      const fail = (status: number, message: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${fake.requests.length}`, ...headers });
        res.write(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }));
        end();
      };
      if (req.method !== 'POST' || req.url !== '/v1/messages') return fail(404, `no route ${req.method} ${req.url}`);
      const body = JSON.parse(raw || '{}');
      fake.requests.push({ body, headers: req.headers });
      // What the real API checks first: a key (x-api-key, or a bearer token as SDK 1.x sends it)
      // and the version header.
      if (!apiKeyOf(req.headers)) return fail(401, 'an API key is required (x-api-key or Authorization: Bearer)');
      if (!req.headers['anthropic-version']) return fail(400, 'anthropic-version header is required');
      const documents = documentsOf(body);
      const enabled = documents.filter((d) => d.citations?.enabled === true).length;
      if (enabled !== 0 && enabled !== documents.length)
        return fail(400, 'citations must be enabled on all or none of the documents within a request');
      const behaviour = queue.shift() ?? fake.fallback;
      if (behaviour.kind === 'status') {
        return fail(
          behaviour.status,
          'scripted failure',
          behaviour.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(behaviour.retryAfterMs) },
        );
      }

      const id = `msg_fake${String(fake.requests.length).padStart(4, '0')}`;
      const usage =
        behaviour.kind === 'answer' && behaviour.usage
          ? behaviour.usage
          : { input_tokens: 25, output_tokens: behaviour.kind === 'cited' ? behaviour.blocks.length : (behaviour.deltas?.length ?? 1) };
      if (!body.stream) {
        // Non-streamed messages (memory condensing): any non-error behaviour answers plainAnswer.
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${fake.requests.length}` });
        res.write(
          JSON.stringify({
            id,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text: fake.plainAnswer }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: {
              input_tokens: usage.input_tokens,
              output_tokens: usage.output_tokens,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
            },
          }),
        );
        return end();
      }

      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'request-id': `req_${fake.requests.length}`,
      });
      res.write(
        sse('message_start', {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: {
              input_tokens: usage.input_tokens,
              output_tokens: 1,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 'cache_read_input_tokens' in usage ? usage.cache_read_input_tokens : 0,
            },
          },
        }),
      );
      if (behaviour.kind === 'cited') {
        for (const [index, block] of behaviour.blocks.entries()) {
          const document = block.cite ? documents[block.cite.document] : undefined;
          if (block.cite && document?.citations?.enabled !== true)
            throw new Error(`the script cites document ${block.cite.document}, which the request does not enable`);
          res.write(
            sse('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: document ? { type: 'text', text: '', citations: [] } : { type: 'text', text: '' },
            }),
          );
          if (block.cite && document)
            res.write(
              sse('content_block_delta', {
                type: 'content_block_delta',
                index,
                delta: {
                  type: 'citations_delta',
                  citation: {
                    type: 'char_location',
                    cited_text: String(document.source.data).slice(block.cite.start, block.cite.end),
                    document_index: block.cite.document,
                    document_title: document.title ?? null,
                    start_char_index: block.cite.start,
                    end_char_index: block.cite.end,
                  },
                },
              }),
            );
          res.write(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }));
          res.write(sse('content_block_stop', { type: 'content_block_stop', index }));
        }
        res.write(
          sse('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: usage.output_tokens },
          }),
        );
        res.write(sse('message_stop', { type: 'message_stop' }));
        return end();
      }
      res.write(sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
      res.write(sse('ping', { type: 'ping' }));
      const deltas = behaviour.deltas ?? [];
      for (const [i, text] of deltas.entries()) {
        if (res.destroyed) return;
        res.write(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
        // The API interleaves pings with the content; the client must skip them.
        if (i % 3 === 1) res.write(sse('ping', { type: 'ping' }));
        if (behaviour.kind === 'answer' && behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
      }
      switch (behaviour.kind) {
        case 'stall':
          return; // never ends; the client must give up
        case 'fail-mid':
          // Let what was written reach the client first: a connection reset before the response
          // head arrives is a connection error, which the SDK retries, not a mid-stream failure.
          await new Promise<void>((resolve) => res.write(': flush\n\n', () => setTimeout(resolve, 50)));
          ended = true;
          res.destroy(); // connection dropped mid-stream
          return;
        case 'error-event':
          res.write(sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
          return end();
        case 'truncated':
          return end();
      }
      res.write(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
      res.write(
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: behaviour.stopReason ?? 'end_turn', stop_sequence: null },
          usage: { output_tokens: usage.output_tokens },
        }),
      );
      res.write(sse('message_stop', { type: 'message_stop' }));
      end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
