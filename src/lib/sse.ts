// A server-sent events writer over a raw node:http response: named events with JSON data, comment
// lines as keep-alives, each written (and so flushed) as soon as it is produced; events of one
// event-loop turn are coalesced into one socket write.
import type { ServerResponse } from 'node:http';

export class SseWriter {
  private readonly keepAlive: NodeJS.Timeout;
  private corked = false;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string | number | string[]>,
    keepAliveMs: number,
  ) {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), keepAliveMs);
    this.keepAlive.unref();
  }

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  /** `data` is serialised as JSON unless it is JSON text already; `id` sets the client's Last-Event-ID. */
  event(name: string, data: unknown, id?: number): void {
    const json = typeof data === 'string' ? data : JSON.stringify(data);
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${json}\n\n`);
  }

  /** Bytes written but not yet taken by the client: a reader that falls this far behind is cut off. */
  get backlog(): number {
    return this.res.writableLength;
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (this.open) this.res.end();
  }

  private write(text: string): void {
    if (!this.open) return;
    // Events produced in the same turn of the event loop (a local answer's deltas, or several
    // provider chunks parsed from one read) leave in one socket write; none waits for later I/O.
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    this.res.write(text);
  }
}
