// A fake OpenAI-compatible /v1/embeddings server on loopback: records each batch it is sent, and
// answers 500 while `failing` is set, like a provider that is down. While `holding` is set it keeps
// requests waiting (recorded in `held`) until release(), so a test can see which jobs are running.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEmbeddings {
  /** Base URL for OPENAI_BASE_URL / EMBEDDINGS_BASE_URL (ends in /v1). */
  url: string;
  batches: { model: string; input: string[]; auth: string | undefined }[];
  failing: boolean;
  /** Keep new requests waiting until release(). */
  holding: boolean;
  /** The batches of the requests now waiting. */
  held: string[][];
  /** Answers the waiting requests and stops holding; with `match`, answers only the requests it picks and keeps holding. */
  release(match?: (input: string[]) => boolean): void;
  close(): Promise<void>;
}

/** A deterministic vector of `dims` numbers: words counted by their length. */
export function fakeVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) v[word.length % dims]! += 1;
  return v;
}

/** A bag of words hashed into `dims` numbers: texts that share words are near, enough for ranking tests. */
export function hashedWordsVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % dims]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export async function startFakeEmbeddings(
  dims: number,
  vector: (text: string, dims: number) => number[] = fakeVector,
): Promise<FakeEmbeddings> {
  let waiting: { input: string[]; answer: () => void }[] = [];
  const fake: FakeEmbeddings = {
    url: '',
    batches: [],
    failing: false,
    holding: false,
    held: [],
    release(match) {
      const picked = match ? waiting.filter((w) => match(w.input)) : waiting;
      if (!match) fake.holding = false;
      waiting = waiting.filter((w) => !picked.includes(w));
      fake.held = waiting.map((w) => w.input);
      for (const w of picked) w.answer();
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
      if (fake.failing) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      if (fake.holding) {
        fake.held.push(parsed.input);
        waiting.push({ input: parsed.input, answer: () => answer(parsed) });
      } else {
        answer(parsed);
      }
    });
    const answer = (parsed: { model: string; input: string[] }) => {
      fake.batches.push({ ...parsed, auth: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: parsed.model,
          data: parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: vector(t, dims) })),
        }),
      );
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => {
    fake.release();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return fake;
}
