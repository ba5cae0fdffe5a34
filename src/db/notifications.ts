// PostgreSQL notifications (LISTEN/NOTIFY) for the whole app: handlers per channel, fed by one
// listening connection. On an external PostgreSQL that is a connection of its own, reconnected with
// a growing pause when it drops; on the embedded database it is the pool's one connection, which
// the wire bridge keeps open. A notification sent in a transaction is delivered only when it
// commits, to every instance listening on the database, this one included.
import pg from 'pg';

type Handler = (payload: string) => void;

export interface Notifications {
  /** Calls `handler` with the payload of every notification on `channel` from now on. */
  on(channel: string, handler: Handler): void;
  /** Calls `handler` whenever listening resumes after a lost connection (notifications may have been missed). */
  onResume(handler: () => void): void;
  close(): Promise<void>;
}

const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

class ChannelHandlers {
  readonly channels = new Map<string, Set<Handler>>();
  readonly resumed = new Set<() => void>();

  /** True when the channel is new (the connection must LISTEN to it). */
  add(channel: string, handler: Handler): boolean {
    const handlers = this.channels.get(channel);
    if (handlers) {
      handlers.add(handler);
      return false;
    }
    this.channels.set(channel, new Set([handler]));
    return true;
  }

  dispatch = (message: pg.Notification): void => {
    for (const handler of this.channels.get(message.channel) ?? []) handler(message.payload ?? '');
  };

  /** One statement for every channel: a connection takes one query at a time. */
  listenAll(client: pg.ClientBase): Promise<unknown> {
    if (this.channels.size === 0) return Promise.resolve();
    return client.query([...this.channels.keys()].map((channel) => `LISTEN ${quote(channel)}`).join('; '));
  }
}

/** Listens on the embedded database's pool, whose single connection serves every query. */
export function poolNotifications(pool: pg.Pool): Notifications {
  const handlers = new ChannelHandlers();
  pool.on('connect', (client) => {
    client.on('notification', handlers.dispatch);
    // Queued ahead of the connection's first query; a new connection follows a lost one.
    void handlers.listenAll(client).catch(() => {});
    for (const resume of handlers.resumed) resume();
  });
  return {
    on(channel, handler) {
      if (handlers.add(channel, handler)) void pool.query(`LISTEN ${quote(channel)}`).catch(() => {});
    },
    onResume: (handler) => handlers.resumed.add(handler),
    close: async () => {},
  };
}

const RETRY_MIN_MS = 250;
// Open streams hear nothing until the connection is back: retried often enough that they resume
// within about two seconds of the database's return.
const RETRY_MAX_MS = 2_000;

/** Listens on a connection of its own to an external PostgreSQL, opened at the first `on`. */
export function clientNotifications(connectionString: string): Notifications {
  const handlers = new ChannelHandlers();
  let client: pg.Client | undefined;
  // The connection's statements in order, one at a time: node-postgres deprecates (and pg 9 drops)
  // sending a query while another is running, as a channel named during the connect would.
  let statements: Promise<unknown> = Promise.resolve();
  let closed = false;
  let retryMs = RETRY_MIN_MS;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (resuming: boolean): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', handlers.dispatch);
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    client = next;
    const ready = next.connect().then(() => handlers.listenAll(next));
    statements = ready.catch(() => {});
    try {
      await ready;
      retryMs = RETRY_MIN_MS;
      if (resuming) for (const resume of handlers.resumed) resume();
    } catch {
      lost(next);
    }
  };
  const lost = (which: pg.Client) => {
    if (closed || client !== which) return;
    client = undefined;
    which.end().catch(() => {});
    retry = setTimeout(() => {
      retry = undefined;
      void connect(true);
    }, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  return {
    on(channel, handler) {
      if (!handlers.add(channel, handler)) return;
      if (!client && !retry) void connect(false);
      else if (client) {
        const which = client;
        statements = statements.then(() => which.query(`LISTEN ${quote(channel)}`)).catch(() => {});
      }
    },
    onResume: (handler) => handlers.resumed.add(handler),
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
