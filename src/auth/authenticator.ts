// Turns a bearer token into a Principal: API keys by their SHA-256 hash, JWTs through the verifier.
//
// On the embedded database exactly one process serves the data (DATA_DIR is locked), so resolved
// API keys are cached in memory and dropped from the cache the moment they are revoked here. On an
// external PostgreSQL other instances (or the CLI, or SQL) may revoke a key, so a key's row is read
// for every request, except on the read routes that confirm the key in their own statement
// (`confirmInStatement`): there a key this instance has seen is answered as an unconfirmed principal
// (read scope only), and the route's one statement refuses to return anything unless the key is still
// valid at that moment (keyStillValid in access/board-access.ts). Revocation stays immediate; the round trip
// for the key's row is saved. Such a request answered 401 or 429 makes this instance forget the key
// (http/plugins/auth.ts), so a key revoked elsewhere is refused before rate limits count it from its
// next request on.
import type { Db } from '../db/schema.js';
import { hashApiKey, API_KEY_PATTERN, looksLikeApiKey } from './api-keys.js';
import type { JwtVerifier } from './jwt.js';
import { scopes as allScopes, type Principal, type Scope } from './principal.js';
import { ensureUser } from './users.js';

interface KeyRecord {
  id: string;
  userId: string;
  scopes: Scope[];
  expiresAt: Date | null;
  revoked: boolean;
  lastUsedWrite: number;
}

const LAST_USED_INTERVAL_MS = 60_000;
const CACHE_MAX = 10_000;

const expired = (record: KeyRecord): boolean => record.expiresAt !== null && record.expiresAt.getTime() <= Date.now();

export class Authenticator {
  /** Embedded only: resolved keys, trusted until revoked here. */
  private readonly keyCache = new Map<string, KeyRecord>();
  /** On PostgreSQL: keys read before, never trusted alone (see confirmInStatement). */
  private readonly seenKeys = new Map<string, KeyRecord>();
  private readonly knownSubjects = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly jwt: JwtVerifier | undefined,
    private readonly cacheKeys: boolean,
  ) {}

  /**
   * Returns the principal, or undefined for any token that is not valid now. `confirmInStatement`:
   * the route confirms an API key in its own statement, so a key seen before need not be read first.
   */
  async authenticate(token: string, confirmInStatement = false): Promise<Principal | undefined> {
    if (looksLikeApiKey(token)) return API_KEY_PATTERN.test(token) ? this.fromApiKey(token, confirmInStatement) : undefined;
    if (!this.jwt || token.split('.').length !== 3) return undefined;
    let sub: string;
    try {
      ({ sub } = await this.jwt(token));
    } catch {
      return undefined;
    }
    let userId = this.knownSubjects.get(sub);
    if (userId === undefined) {
      userId = await ensureUser(this.db, sub);
      if (this.knownSubjects.size >= CACHE_MAX) this.knownSubjects.clear();
      this.knownSubjects.set(sub, userId);
    }
    return { userId, kind: 'jwt', scopes: allScopes };
  }

  /** Called when a key is revoked, so that this instance rejects it at once. */
  forgetKey(keyId: string): void {
    for (const cache of [this.keyCache, this.seenKeys]) for (const [hash, record] of cache) if (record.id === keyId) cache.delete(hash);
  }

  private async fromApiKey(token: string, confirmInStatement: boolean): Promise<Principal | undefined> {
    const hash = hashApiKey(token);
    let record = this.cacheKeys ? this.keyCache.get(hash) : undefined;
    if (!record && confirmInStatement) {
      const seen = this.seenKeys.get(hash);
      if (seen && !expired(seen)) {
        this.noteUse(seen);
        return { userId: seen.userId, kind: 'api_key', keyId: seen.id, scopes: ['read'], unconfirmed: true };
      }
    }
    if (!record) {
      const row = await this.db
        .selectFrom('api_keys')
        .select(['id', 'user_id', 'scopes', 'expires_at', 'revoked_at', 'last_used_at'])
        .where('key_hash', '=', hash)
        .executeTakeFirst();
      if (!row) return undefined;
      record = {
        id: row.id,
        userId: row.user_id,
        scopes: row.scopes.filter((s): s is Scope => (allScopes as readonly string[]).includes(s)),
        expiresAt: row.expires_at,
        revoked: row.revoked_at !== null,
        lastUsedWrite: row.last_used_at?.getTime() ?? 0,
      };
      if (!record.revoked) {
        const cache = this.cacheKeys ? this.keyCache : this.seenKeys;
        if (cache.size >= CACHE_MAX) cache.clear();
        cache.set(hash, record);
      }
    }
    if (record.revoked || expired(record)) return undefined;
    this.noteUse(record);
    return { userId: record.userId, kind: 'api_key', keyId: record.id, scopes: record.scopes };
  }

  private noteUse(record: KeyRecord): void {
    const nowMs = Date.now();
    if (nowMs - record.lastUsedWrite >= LAST_USED_INTERVAL_MS) {
      record.lastUsedWrite = nowMs;
      // At most one write per key per minute; a failed write only delays last_used_at.
      this.db
        .updateTable('api_keys')
        .set({ last_used_at: new Date(nowMs) })
        .where('id', '=', record.id)
        .execute()
        .catch(() => {});
    }
  }
}
