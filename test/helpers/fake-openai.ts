// A fake OpenAI-compatible Chat Completions server on loopback, speaking the real streaming wire
// format: `chat.completion.chunk` SSE frames, a usage frame (stream_options.include_usage), then
// `data: [DONE]`. Each request takes the next scripted behaviour: answer, fail mid-stream, answer
// with an HTTP error, or stall. It records request bodies and whether a client hung up early.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type Behaviour =
  | { kind: 'answer'; deltas: string[]; usage?: { prompt_tokens: number; completion_tokens: number }; delayMs?: number }
  | { kind: 'fail-mid'; deltas: string[] }
  /** The response ends cleanly after these deltas, without the finish chunk, usage or [DONE]. */
  | { kind: 'truncated'; deltas: string[] }
  | { kind: 'status'; status: number }
  | { kind: 'stall'; deltas?: string[] };

export interface FakeOpenAi {
  url: string;
  requests: { body: any }[];
  /** Requests whose client closed the connection before the answer ended. */
  aborted: number;
  /** Resolves when the next request is closed early by its client. */
  nextAbort(): Promise<void>;
  script(...behaviours: Behaviour[]): void;
  /** Behaviour when the script is empty. */
  fallback: Behaviour;
  /** When set, picks each request's behaviour from its body (before the script and fallback). */
  behaviourFor?: (body: any) => Behaviour | undefined;
  /** Keep request bodies in `requests` (default true; a benchmark turns it off). */
  record: boolean;
  close(): Promise<void>;
}

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const queue: Behaviour[] = [];
  const abortWaiters: (() => void)[] = [];
  let served = 0;
  const fake = {
    url: '',
    requests: [] as { body: any }[],
    aborted: 0,
    fallback: { kind: 'answer', deltas: ['Hello', ' there', '.'] } as Behaviour,
    behaviourFor: undefined as ((body: any) => Behaviour | undefined) | undefined,
    record: true,
    nextAbort: () => new Promise<void>((resolve) => abortWaiters.push(resolve)),
    script: (...b: Behaviour[]) => void queue.push(...b),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', async () => {
      const body = JSON.parse(raw || '{}');
      if (fake.record) fake.requests.push({ body });
      const behaviour = fake.behaviourFor?.(body) ?? queue.shift() ?? fake.fallback;
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
      if (behaviour.kind === 'status') {
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.write(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
        return end();
      }
      const id = `chatcmpl-${++served}`;
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        frame({
          id,
          object: 'chat.completion.chunk',
          created: 1700000000,
          model: body.model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
      if (!body.stream) {
        // Non-streamed completions (memory condensing).
        const text = behaviour.kind === 'answer' ? behaviour.deltas.join('') : 'fact';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created: 1700000000,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
        return end();
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }, null));
      for (const d of behaviour.deltas ?? []) {
        if (res.destroyed) return;
        res.write(chunk({ content: d }, null));
        if (behaviour.kind === 'answer' && behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
      }
      if (behaviour.kind === 'stall') return; // never ends; the client must give up
      if (behaviour.kind === 'truncated') return end();
      if (behaviour.kind === 'fail-mid') {
        ended = true;
        res.destroy(); // connection dropped mid-stream
        return;
      }
      res.write(chunk({}, 'stop'));
      const usage = behaviour.usage ?? { prompt_tokens: 11, completion_tokens: behaviour.deltas.length };
      res.write(
        frame({
          id,
          object: 'chat.completion.chunk',
          created: 1700000000,
          model: body.model,
          choices: [],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
      res.write('data: [DONE]\n\n');
      end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

// The test side of the chat streaming protocol: a text/event-stream response read into its events
// with eventsource-parser, optionally stopping early.
export interface SseEvent {
  event: string;
  data: any;
}

export async function readEvents(res: Response, stopAfter?: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  let stop = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const event = { event: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(event);
      if (stopAfter?.(event)) stop = true;
    },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (stop) {
      await reader.cancel();
      break;
    }
  }
  return events;
}
