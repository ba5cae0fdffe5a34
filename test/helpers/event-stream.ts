// Follows a board's event stream with the `eventsource` package (the WHATWG EventSource for Node),
// so the stream is read exactly as a browser reads it, reconnection and Last-Event-ID included.
import { EventSource } from 'eventsource';
import { BoardEventTypes } from '../../src/contract/events.js';

export interface ReceivedEvent {
  type: string;
  /** The SSE id (the event's sequence number), '' when the event has none. */
  id: string;
  data: Record<string, unknown>;
}

export interface FollowedStream {
  events: ReceivedEvent[];
  source: EventSource;
  /** Resolves with the first received event (from the start) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (event: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Resolves once the server has ended the stream (EventSource then reconnects: it is closed here). */
  ended(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Every event a stream sends: the change log's types, and those that are not changes. */
const TYPES = ['ready', 'reset', 'presence', ...BoardEventTypes];

export function follow(
  baseUrl: string,
  boardId: string,
  token: string,
  options: { after?: number; lastEventId?: string; reconnect?: boolean } = {},
): FollowedStream {
  const url = new URL(`/v1/boards/${boardId}/events`, baseUrl);
  if (options.after !== undefined) url.searchParams.set('after', String(options.after));
  const events: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  let serverEnded = false;
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: {
          ...init?.headers,
          authorization: `Bearer ${token}`,
          ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
        },
      }),
  });
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  for (const type of TYPES) {
    source.addEventListener(type, (message) => {
      events.push({ type, id: message.lastEventId, data: JSON.parse(message.data) });
      notify();
    });
  }
  source.addEventListener('error', () => {
    // The server ended the stream (EventSource would reconnect on its own).
    serverEnded = true;
    if (!options.reconnect) source.close();
    notify();
  });

  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return;
        clearTimeout(timer);
        waiters.delete(attempt);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(attempt);
        reject(new Error(`${what} within ${timeoutMs} ms; received: ${events.map((e) => `${e.id}:${e.type}`).join(', ')}`));
      }, timeoutMs);
      waiters.add(attempt);
      attempt();
    });

  return {
    events,
    source,
    waitFor: (match, timeoutMs = 5000) => until(() => events.find(match), timeoutMs, 'no matching event'),
    ended: (timeoutMs = 5000) => until(() => (serverEnded ? true : undefined), timeoutMs, 'the stream did not end').then(() => {}),
    close: () => source.close(),
  };
}
