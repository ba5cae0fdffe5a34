// A webhook endpoint on loopback for tests: an HTTP server on 127.0.0.1 that keeps every request it
// gets (headers and the exact body) and answers with what the test's `answer` says (200 unless
// told). It can go down and come back up on the same port, as a receiver that restarts would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEachFile } from './file-group.js';

export interface ReceivedRequest {
  /** The request's path (and query). */
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered. */
  status: number;
}

type Answer = number | { status: number; headers: Record<string, string> };

export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Decides each answer: a status, or a status and headers (or a promise of either, to answer late). */
  answer: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>;
  /** Stops listening (connections are refused) until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Resolves once `match` holds for the requests received, polling. */
  waitFor(match: (received: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
}

const open: http.Server[] = [];
afterEachFile(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

export async function startReceiver(): Promise<Receiver> {
  let server: http.Server | undefined;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => 200,
    async down() {
      const s = server;
      server = undefined;
      if (!s) return;
      open.splice(open.indexOf(s), 1);
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    },
    async up() {
      if (server) return;
      const s = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', async () => {
          const request: ReceivedRequest = {
            path: req.url ?? '',
            headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
            body: Buffer.concat(chunks).toString('utf8'),
            status: 0,
          };
          const answer = await receiver.answer(request, receiver.received.length);
          const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
          request.status = status;
          receiver.received.push(request);
          res.writeHead(status, { 'content-type': 'text/plain', ...headers });
          res.end(status >= 400 ? `failed with ${status}` : 'ok');
        });
      });
      s.keepAliveTimeout = 1;
      await new Promise<void>((resolve) => s.listen(receiver.port, '127.0.0.1', resolve));
      server = s;
      open.push(s);
      receiver.port = (s.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
    },
    async waitFor(match, timeoutMs = 20_000) {
      for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
        if (match(receiver.received)) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the receiver did not get what was expected in ${timeoutMs} ms; it got ${receiver.received.length} requests`);
    },
  };
  await receiver.up();
  return receiver;
}
