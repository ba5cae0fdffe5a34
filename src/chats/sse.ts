// A server-sent events writer over a raw node:http response: named events with JSON data, comment
// lines as keep-alives, each written (and so flushed) as soon as it is produced.
import type { ServerResponse } from 'node:http';

export class SseWriter {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(private readonly res: ServerResponse, headers: Record<string, string | number | string[]>, keepAliveMs: number) {
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

  event(name: string, data: unknown): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (this.open) this.res.end();
  }

  private write(text: string): void {
    if (this.open) this.res.write(text);
  }
}
