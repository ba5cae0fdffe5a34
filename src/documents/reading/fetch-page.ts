// Fetches the page a url node points at, by the webhook sender's address rules (src/webhooks/
// endpoint.ts): http or https only, https unless the host is in OUTBOUND_ALLOWED_HOSTS, and only
// public addresses, checked after DNS and again at every redirect (at most MAX_REDIRECTS); the
// connection goes to the very addresses checked. The whole read, redirects and body included, is
// bounded in time and in bytes. Every failure is a ReadError in plain words, the job's error.
import { EndpointRefused, outboundTarget } from '../../lib/outbound-address.js';
import { JobError as ReadError } from '../../jobs/worker.js';

export const MAX_REDIRECTS = 5;
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
/** Named in every request, so a site can tell who reads it. */
export const USER_AGENT = 'board-workspace-reader/1.0 (+reads a page when a board links to it)';

/** The types read as a page; any other is refused by name. */
const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown']);

export interface FetchOptions {
  allowedHosts: readonly string[];
  timeoutMs: number;
  /** Aborted when the job stops (the app shuts down): then the job is retried, not failed. */
  signal: AbortSignal;
  maxBytes?: number;
}

export interface FetchedPage {
  /** Where the page was found, after redirects. */
  url: string;
  /** Its media type, lower-case without parameters. */
  type: string;
  text: string;
}

type Answer = { kind: 'redirect'; location: string } | { kind: 'page'; type: string; charset: string | undefined; body: Buffer };

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

export async function fetchPage(address: string, options: FetchOptions): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? MAX_PAGE_BYTES;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  let url = parse(address);
  try {
    for (let hop = 0; ; hop++) {
      const answer = await get(url, options.allowedHosts, maxBytes, signal);
      if (answer.kind === 'page') {
        return { url: url.href, type: answer.type, text: decode(answer.body, answer.charset) };
      }
      if (hop === MAX_REDIRECTS) throw new ReadError(`The page redirected more than ${MAX_REDIRECTS} times`);
      url = parse(answer.location, url);
    }
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (deadline.aborted) throw new ReadError(`The page took longer than ${Math.round(options.timeoutMs / 100) / 10} s`);
    if (error instanceof ReadError) throw error;
    if (error instanceof EndpointRefused) throw new ReadError(`This address is not allowed (${error.message})`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReadError(`The page could not be reached (${code ?? (error as Error).message})`);
  }
}

function parse(address: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(address, base);
  } catch {
    throw new ReadError('The address is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ReadError(`This address is not allowed (${url.protocol} is not http or https)`);
  if (url.username !== '' || url.password !== '') throw new ReadError('This address is not allowed (it carries a user name or password)');
  url.hash = '';
  return url;
}

/** One request: a redirect to follow, or the page's bytes (within maxBytes). */
async function get(url: URL, allowedHosts: readonly string[], maxBytes: number, signal: AbortSignal): Promise<Answer> {
  const send = await outboundTarget(url, allowedHosts);
  signal.throwIfAborted();
  return new Promise<Answer>((resolve, reject) => {
    const request = send({
      method: 'GET',
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,text/markdown;q=0.8',
        'accept-encoding': 'identity',
      },
      signal,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        resolve({ kind: 'redirect', location });
        return;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        reject(new ReadError(`The page answered ${status}`));
        return;
      }
      const [type = '', ...params] = (response.headers['content-type'] ?? 'text/html').split(';').map((p) => p.trim());
      const mediaType = type.toLowerCase();
      if (!PAGE_TYPES.has(mediaType)) {
        response.destroy();
        reject(new ReadError(`The address is not a web page (${mediaType || 'no type'})`));
        return;
      }
      const tooLarge = () => new ReadError(`The page is larger than ${megabytes(maxBytes)}`);
      if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
        reject(tooLarge());
        response.destroy();
        return;
      }
      const charset = params
        .find((p) => /^charset=/i.test(p))
        ?.slice('charset='.length)
        .replace(/"/g, '');
      const parts: Buffer[] = [];
      let size = 0;
      response.on('data', (part: Buffer) => {
        size += part.length;
        if (size > maxBytes) {
          reject(tooLarge());
          response.destroy();
        } else parts.push(part);
      });
      response.on('end', () => resolve({ kind: 'page', type: mediaType, charset, body: Buffer.concat(parts) }));
      response.on('error', reject);
      response.on('aborted', () => reject(new ReadError('The page ended before it was complete')));
    });
    request.end();
  });
}

/** The body as text, in the charset the answer named (UTF-8 when none, or one unknown). */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
