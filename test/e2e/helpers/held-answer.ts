// A slow network for one answer: an HTTP proxy in front of the test's service that passes every
// request through as it comes (the event stream too), except the answers `holds` picks, of which it
// sends the first `bytes` and holds back the rest until `release()`. The page opened through it reads
// the start of such an answer while the rest is still on the way, for as long as the test wants.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldAnswers {
  /** The proxy's address (open the page here). */
  url: string;
  /** Of the answers picked: how many have started, and how many were sent whole. */
  answers(): { started: number; whole: number };
  /** Sends the rest of every answer held, and of those to come. */
  release(): void;
  close(): Promise<void>;
}

export async function holdAnswers(target: string, holds: (method: string, path: string) => boolean, bytes: number): Promise<HeldAnswers> {
  const upstream = new URL(target);
  let released = false;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const counts = { started: 0, whole: 0 };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers },
      async (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const hold = !released && holds(req.method ?? 'GET', path.split('?')[0]!);
        let sent = 0;
        if (hold) counts.started++;
        try {
          for await (const piece of answer as AsyncIterable<Buffer>) {
            if (hold && !released && sent + piece.length > bytes) {
              const first = Math.max(0, bytes - sent);
              res.write(piece.subarray(0, first));
              await gate;
              res.write(piece.subarray(first));
            } else {
              res.write(piece);
            }
            sent += piece.length;
          }
          res.end();
          if (hold) counts.whole++;
        } catch {
          res.destroy();
        }
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers: () => ({ ...counts }),
    release: () => {
      released = true;
      open();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
