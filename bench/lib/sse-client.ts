// A lean reader of server-sent event streams for benchmarks that hold many of them (a thousand open
// streams): one plain http.get per stream on its own socket and eventsource-parser, no reconnection,
// no EventSource machinery. Each event is stamped with the time its bytes were handed to the
// process (performance.now() when the chunk was read), before any parsing.
import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface StreamHandle {
  close(): void;
}

/**
 * Opens `url` as an event stream and resolves once its first event (the stream's `ready`) has
 * arrived; `onEvent` then gets every event with its arrival time. Rejects on a non-200 answer.
 */
export function openEventStream(
  url: string,
  token: string,
  onEvent: (event: EventSourceMessage, arrivedAt: number) => void,
): Promise<StreamHandle> {
  return new Promise((resolve, reject) => {
    let arrivedAt = 0;
    let opened = false;
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => reject(new Error(`GET ${url}: ${res.statusCode} ${body.slice(0, 300)}`)));
        return;
      }
      const parser = createParser({
        onEvent(event) {
          if (!opened) {
            opened = true;
            resolve({ close: () => request.destroy() });
          }
          onEvent(event, arrivedAt);
        },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        arrivedAt = performance.now();
        parser.feed(chunk);
      });
    });
    request.on('error', (error) => {
      if (!opened) reject(error);
    });
  });
}
