// One attempt at a delivery: POST the signed body to the endpoint and tell what came of it. The
// connection goes only to addresses the outbound rules allow (lib/outbound-address.ts,
// outboundTarget); redirects are not followed; the whole
// attempt, connecting included, is bounded by WEBHOOK_TIMEOUT_MS; at most a few KiB of the answer
// are read, for the delivery's error.
import { EndpointRefused, outboundTarget } from '../lib/outbound-address.js';

/** The most of an answer's body read (and kept, cut shorter, as the delivery's error). */
const MAX_ANSWER_BYTES = 4096;
const ERROR_BODY_CHARS = 200;

export interface Attempt {
  /** The endpoint's status, when it answered. */
  status?: number;
  /** Why the attempt did not succeed; undefined for a 2xx. */
  error?: string;
}

export interface PostOptions {
  allowedHosts: readonly string[];
  timeoutMs: number;
  /** Aborted when the app stops. */
  signal: AbortSignal;
}

export async function postDelivery(
  endpoint: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<Attempt> {
  const url = new URL(endpoint);
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  try {
    const send = await outboundTarget(url, options.allowedHosts);
    signal.throwIfAborted();
    return await new Promise<Attempt>((resolve, reject) => {
      const request = send({
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        signal,
      });
      request.on('error', reject);
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          response.destroy();
          const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
          if (status >= 200 && status < 300) resolve({ status });
          else if (status >= 300 && status < 400) {
            const location = response.headers.location;
            resolve({
              status,
              error: `The endpoint answered ${status}, a redirect${location ? ` to ${location.slice(0, 200)}` : ''}; webhooks follow no redirects`,
            });
          } else resolve({ status, error: `The endpoint answered ${status}${text ? `: ${text}` : ''}` });
        };
        response.on('data', (chunk: Buffer) => {
          if (size >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
        response.on('close', done);
      });
      request.end(body);
    });
  } catch (error) {
    if (error instanceof EndpointRefused) return { error: error.message };
    if (options.signal.aborted) throw error;
    if (signal.aborted) return { error: `No answer within ${options.timeoutMs} ms` };
    const code = (error as NodeJS.ErrnoException).code;
    return { error: `Could not reach the endpoint: ${code ?? (error as Error).message}` };
  }
}
