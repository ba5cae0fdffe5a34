// Hears, on a connection of its own, PostgreSQL's notifications that an API key changed (the
// trigger of migration 0011 sends one in the transaction that revokes, deletes or alters a key), so
// an instance on an external PostgreSQL may cache verified keys and still refuse a revoked one at
// once: the cache is used only while this connection listens, and anything that might have been
// missed (a lost connection, a notification during a key's read) drops what is cached.
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';

export const KEY_CHANGED_CHANNEL = 'bwk_api_key_changed';
const RECONNECT_MS = 1000;

export class KeyRevocations {
  private client: pg.Client | undefined;
  private listening = false;
  private stopped = false;
  private changes = 0;
  private readonly waiters = new Map<string, Set<() => void>>();
  private reconnectTimer: NodeJS.Timeout | undefined;

  /** `onChange` gets the key's id, or undefined when every cached key must go. */
  constructor(
    private readonly url: string,
    private readonly onChange: (keyId: string | undefined) => void,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** True while notifications are heard: only then may a verified key be served from a cache. */
  get live(): boolean {
    return this.listening;
  }

  /**
   * Counts notifications and connection changes. A key read may be cached only if this is the same
   * before and after the read, so a revocation heard while the row was in flight is never undone.
   */
  get generation(): number {
    return this.changes;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'bwk-key-listener' });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.dropAll();
      client.end().catch(() => {});
      if (!this.stopped) {
        this.log.warn('API-key notifications lost; keys are read from the database on every request until they are back');
        this.reconnectTimer = setTimeout(() => void this.start(), RECONNECT_MS);
        this.reconnectTimer.unref();
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      this.changes++;
      const keyId = message.payload ?? undefined;
      this.onChange(keyId || undefined);
      if (!keyId) return;
      for (const resolve of this.waiters.get(keyId) ?? []) resolve();
      this.waiters.delete(keyId);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_CHANGED_CHANNEL}`);
      if (this.client !== client) return;
      // Whatever was cached before this point may have missed a notification.
      this.dropAll();
      this.listening = true;
    } catch (error) {
      this.log.warn({ err: error }, 'cannot listen for API-key notifications; retrying');
      lost();
    }
  }

  /**
   * Call before changing a key; `wait()` after the change has committed resolves once this instance
   * heard its notification (or after `timeoutMs`). PostgreSQL signals every listener when the
   * change commits, so answering a revocation after this leaves the other instances no later than
   * this one.
   */
  expect(keyId: string, timeoutMs = 2000): { wait(): Promise<void>; cancel(): void } {
    if (!this.listening) return { wait: async () => {}, cancel: () => {} };
    let resolve!: () => void;
    const heard = new Promise<void>((r) => {
      resolve = r;
    });
    const set = this.waiters.get(keyId) ?? new Set();
    this.waiters.set(keyId, set);
    set.add(resolve);
    const cancel = () => {
      this.waiters.get(keyId)?.delete(resolve);
      if (this.waiters.get(keyId)?.size === 0) this.waiters.delete(keyId);
    };
    return {
      wait: async () => {
        const timer = setTimeout(resolve, timeoutMs);
        await heard;
        clearTimeout(timer);
        cancel();
      },
      cancel,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    this.dropAll();
    for (const set of this.waiters.values()) for (const resolve of set) resolve();
    this.waiters.clear();
    await client?.end().catch(() => {});
  }

  private dropAll(): void {
    this.listening = false;
    this.changes++;
    this.onChange(undefined);
  }
}
