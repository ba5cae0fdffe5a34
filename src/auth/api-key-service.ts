// API keys of a user: create (the raw key is returned once), list, revoke.
import type { Db } from '../db/schema.js';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { generateApiKey } from './api-keys.js';
import { hasScope, type Principal, type Scope } from './principal.js';
import { ensureUser } from './users.js';
import { ApiKey, type CreateApiKeyBody, type CreatedApiKey } from '../contract/api-keys.js';
import { fieldsOf } from '../contract/common.js';

/** What the API key service is built with. */
export interface ApiKeyDeps {
  db: Db;
  /** API_KEY_ENV: the environment written in new keys (sk_live_ or sk_test_). */
  env: 'live' | 'test';
  /** API_KEYS_MAX_PER_USER: a user's live keys at most; none for the CLI, an operator's tool. */
  maxLive?: number | undefined;
}

/** The key's columns, in the order of its schema. */
const columns = fieldsOf(ApiKey);

/**
 * The app's API keys, built once per app with the database, API_KEY_ENV and API_KEYS_MAX_PER_USER
 * (src/modules/services.ts); the CLI builds its own, with no cap on live keys.
 */
export class ApiKeyService {
  constructor(private readonly deps: ApiKeyDeps) {}

  /**
   * Creates a key. Made with an API key (`madeBy`), it must not outlive that key (expires_at no later
   * than the parent's, which it takes when none is given; a key that never expires is 400 under an
   * expiring one) nor hold a scope the parent lacks (403); a JWT's session makes keys freely. `maxLive` caps the user's live (unrevoked, unexpired) keys, this one included
   * (API_KEYS_MAX_PER_USER; the CLI, an operator's tool, passes none): each key has its own rate
   * limit, so keys must not be free to multiply. The user's row is locked while counting, so two
   * creates at once cannot both take the last place.
   */
  async create(userId: string, input: CreateApiKeyBody, madeBy?: Principal): Promise<CreatedApiKey> {
    const { db, env, maxLive } = this.deps;
    let expiresAt = input.expires_at ? new Date(input.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid('expires_at must be in the future');
    const scopes = [...new Set(input.scopes)].sort((a, b) => ['read', 'write', 'admin'].indexOf(a) - ['read', 'write', 'admin'].indexOf(b));
    const parentKey = madeBy?.kind === 'api_key' ? madeBy.keyId : undefined;
    if (madeBy && parentKey !== undefined) {
      const beyond = scopes.find((scope) => !hasScope(madeBy, scope));
      if (beyond) throw forbidden(`A key cannot grant the scope ${beyond}, which the key creating it lacks`);
    }
    const key = generateApiKey(env);
    return db.transaction().execute(async (trx) => {
      if (parentKey !== undefined) {
        // A key made with a key must not outlive it: without expires_at it takes the parent's.
        const parent = await trx.selectFrom('api_keys').select('expires_at').where('id', '=', parentKey).executeTakeFirst();
        const limit = parent?.expires_at ?? null;
        if (limit !== null) {
          if (input.expires_at === undefined) expiresAt = limit;
          else if (expiresAt === null || expiresAt > limit) {
            throw invalid(
              `expires_at must not be later than the expiry of the key creating it (${limit.toISOString()}); omit it to take that expiry`,
            );
          }
        }
      }
      if (maxLive !== undefined) {
        await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst();
        const at = now();
        const { n } = await trx
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
          .executeTakeFirstOrThrow();
        if (Number(n) >= maxLive) {
          throw conflict(`You already have ${maxLive} live API keys, the most allowed per user; revoke one you no longer use first`);
        }
      }
      const row = await trx
        .insertInto('api_keys')
        .values({
          id: newId(),
          user_id: userId,
          name: input.name,
          key_hash: key.hash,
          prefix: key.prefix,
          scopes,
          created_at: now(),
          expires_at: expiresAt,
          last_used_at: null,
          revoked_at: null,
        })
        .returning(columns)
        .executeTakeFirstOrThrow();
      return { ...row, scopes: row.scopes as Scope[], raw_key: key.raw };
    });
  }

  /** For the CLI: creates the user on first sight, like a first JWT would. */
  async createForSubject(subject: string, input: CreateApiKeyBody): Promise<CreatedApiKey> {
    const userId = await ensureUser(this.deps.db, subject);
    return this.create(userId, input);
  }

  async list(userId: string, page: PageRequest, list: string): Promise<Page<ApiKey>> {
    const { db } = this.deps;
    const rows = await applyPage(db.selectFrom('api_keys').select(columns).where('user_id', '=', userId), page, 'api_keys').execute();
    return toPage(
      rows.map((r) => ({ ...r, scopes: r.scopes as Scope[] })),
      page,
      list,
    );
  }

  /** Revokes a key of the user; revoking twice is fine. 404 when the user has no such key. */
  async revoke(userId: string, keyId: string): Promise<void> {
    const { db } = this.deps;
    const row = await db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now())) }))
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound('API key');
  }

  /** Every key of a user, oldest first (for the CLI). */
  async listAll(userId: string): Promise<ApiKey[]> {
    const { db } = this.deps;
    const rows = await db
      .selectFrom('api_keys')
      .select(columns)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ ...r, scopes: r.scopes as Scope[] }));
  }

  /**
   * Revokes any key by id (for the CLI, an operator's tool). Instances on an external PostgreSQL read
   * the key's row on every request, so they reject it at once; an embedded database cannot be open
   * in a server while the CLI holds it.
   */
  async revokeById(keyId: string): Promise<ApiKey | undefined> {
    const { db } = this.deps;
    const row = await db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now())) }))
      .where('id', '=', keyId)
      .returning(columns)
      .executeTakeFirst();
    return row && { ...row, scopes: row.scopes as Scope[] };
  }
}
