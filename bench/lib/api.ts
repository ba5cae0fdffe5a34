// A minimal client of the public API for setting up benchmarks: an API key made through the API
// itself (a JWT signed with the bench server's secret creates it), boards, nodes and edges, and a
// bounded-concurrency runner for seeding.
import { SignJWT } from 'jose';
import { BENCH_JWT_SECRET } from './server.js';

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** Sends a request and returns the parsed body; anything but the expected status is an error. */
  // biome-ignore lint/suspicious/noExplicitAny: the benches read bodies they know the shape of
  async call<T = any>(method: string, path: string, body: unknown, expected: number): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  /** Times a request until its whole body has arrived; returns milliseconds and the body text. */
  async timed(method: string, path: string, expected: number): Promise<{ ms: number; text: string }> {
    const started = performance.now();
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${this.token}` } });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text.slice(0, 500)}`);
    return { ms, text };
  }
}

/** Makes a read+write API key for a fresh bench user, through POST /v1/me/api-keys. */
export async function benchApiKey(baseUrl: string, subject: string): Promise<string> {
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(BENCH_JWT_SECRET));
  const created = await new ApiClient(baseUrl, jwt).call<{ data: { raw_key: string } }>(
    'POST',
    '/v1/me/api-keys',
    { name: 'bench', scopes: ['read', 'write'] },
    201,
  );
  return created.data.raw_key;
}

/** Runs task(0..count-1) with at most `concurrency` in flight; results in index order. */
export async function runBounded<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

/** A realistic note: a label, a few sentences and the presentation keys clients store. */
export function noteBody(i: number) {
  return {
    type: 'note',
    position: { x: (i % 100) * 320, y: Math.floor(i / 100) * 240 },
    data: {
      label: `Note ${i}`,
      text: `Note ${i}: a short paragraph of the kind people pin to a board, with enough words to be typical.`,
      width: 280,
      height: 180,
      color: '#fff8c5',
    },
  };
}

/** Edge k of a board of n nodes: deterministic, spread over the board, never a self-loop. */
export function edgeEnds(k: number, n: number): [number, number] {
  const source = k % n;
  // An offset in 1..n-1 from the source: never the source itself.
  return [source, (source + 1 + ((k * 7919) % (n - 1))) % n];
}

export async function createBoard(api: ApiClient, name: string): Promise<string> {
  return (await api.call<{ data: { id: string } }>('POST', '/v1/boards', { name }, 201)).data.id;
}

export async function seedNodes(api: ApiClient, boardId: string, count: number, concurrency: number): Promise<string[]> {
  return runBounded(
    count,
    concurrency,
    async (i) => (await api.call<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/nodes`, noteBody(i), 201)).data.id,
  );
}

export async function seedEdges(api: ApiClient, boardId: string, nodeIds: string[], count: number, concurrency: number): Promise<void> {
  await runBounded(count, concurrency, async (k) => {
    const [s, t] = edgeEnds(k, nodeIds.length);
    await api.call(
      'POST',
      `/v1/boards/${boardId}/edges`,
      { source_node_id: nodeIds[s], target_node_id: nodeIds[t], type: 'default', data: {} },
      201,
    );
  });
}
