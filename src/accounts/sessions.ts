// Sessions of local accounts: a short-lived access token (local-tokens.ts) plus a refresh token.
// Refresh tokens are 32 random bytes (base64url), stored only as their SHA-256. Each refresh spends
// the presented token and issues a new one in the same family; presenting a spent token again
// (a stolen copy, or the legitimate client after a thief used it) revokes the whole family, so both
// parties must sign in again. Except within AUTH_REFRESH_REUSE_SECONDS of its first use: a page
// reloaded while its refresh was under way, or two tabs refreshing at once, present the token a
// second time, and get a token of the family too instead of signing the person out (Supabase's
// reuse interval). Each new token lives AUTH_REFRESH_TOKEN_TTL_DAYS from its issue, so a
// sign-in stays alive as long as it is used at least that often.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/schema.js';
import { unauthorized } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { accountEmail } from './accounts.js';
import type { Account } from '../contract/accounts.js';
import type { LocalTokens } from './local-tokens.js';

export interface Session {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: Account;
}

export interface IssuedSession {
  session: Session;
  /** The new refresh token, for the cookie; never stored. */
  refreshToken: string;
}

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

export class Sessions {
  constructor(
    private readonly db: Db,
    private readonly tokens: LocalTokens,
    private readonly refreshTtlDays: number,
    /** Seconds after its first use in which a spent token still refreshes (0: never). */
    private readonly reuseSeconds: number,
  ) {}

  get refreshTtlSeconds(): number {
    return this.refreshTtlDays * 24 * 60 * 60;
  }

  /** A new sign-in: a new family of refresh tokens. */
  async start(account: Account): Promise<IssuedSession> {
    const refreshToken = await this.insertToken(this.db, account.id, newId());
    return { session: await this.session(account), refreshToken };
  }

  /** Spends the refresh token and issues the next one of its family, with a new access token. */
  async refresh(presented: string | undefined): Promise<IssuedSession> {
    if (!presented || !TOKEN_FORMAT.test(presented)) throw unauthorized('No valid refresh token; sign in again');
    const row = await this.db
      .selectFrom('refresh_tokens')
      .select(['id', 'user_id', 'family_id', 'expires_at', 'used_at', 'revoked_at'])
      .where('token_hash', '=', hash(presented))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) throw unauthorized('The refresh token is not valid; sign in again');
    if (row.expires_at.getTime() <= Date.now()) throw unauthorized('The refresh token has expired; sign in again');
    const rotated = await this.db.transaction().execute(async (trx) => {
      // One conditional statement: of two concurrent refreshes outside the reuse window exactly one
      // spends the token; inside it both do. The window runs from the first use (coalesce). With no
      // window the token must be unused: a cutoff of "now" would let a second refresh through on
      // PostgreSQL whenever the first one's clock reading was a millisecond later than its own.
      const spent = await trx
        .updateTable('refresh_tokens')
        .set({ used_at: sql<Date>`coalesce(used_at, ${now()})` })
        .where('id', '=', row.id)
        .where('revoked_at', 'is', null)
        .where((eb) =>
          this.reuseSeconds > 0
            ? eb.or([eb('used_at', 'is', null), eb('used_at', '>', new Date(Date.now() - this.reuseSeconds * 1000))])
            : eb('used_at', 'is', null),
        )
        .returning('id')
        .executeTakeFirst();
      if (!spent) return undefined;
      const email = await accountEmail(trx, row.user_id);
      if (email === undefined) return undefined;
      return { refreshToken: await this.insertToken(trx, row.user_id, row.family_id), email };
    });
    if (!rotated) {
      await this.revokeFamily(row.family_id);
      throw unauthorized('The refresh token was already used; this sign-in is revoked, sign in again');
    }
    return { session: await this.session({ id: row.user_id, email: rotated.email }), refreshToken: rotated.refreshToken };
  }

  /** Ends the sign-in the token belongs to (its whole family). Unknown tokens are ignored. */
  async end(presented: string | undefined): Promise<void> {
    if (!presented || !TOKEN_FORMAT.test(presented)) return;
    const row = await this.db.selectFrom('refresh_tokens').select('family_id').where('token_hash', '=', hash(presented)).executeTakeFirst();
    if (row) await this.revokeFamily(row.family_id);
  }

  /** Deletes tokens past their expiry; run periodically. */
  async sweep(): Promise<void> {
    await this.db.deleteFrom('refresh_tokens').where('expires_at', '<', now()).execute();
  }

  private async session(account: Account): Promise<Session> {
    const { token, expiresIn } = await this.tokens.issue(account.id);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user: { id: account.id, email: account.email } };
  }

  private async insertToken(db: Executor, userId: string, familyId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const created = now();
    await db
      .insertInto('refresh_tokens')
      .values({
        id: newId(),
        user_id: userId,
        family_id: familyId,
        token_hash: hash(token),
        created_at: created,
        expires_at: new Date(created.getTime() + this.refreshTtlSeconds * 1000),
        used_at: null,
        revoked_at: null,
      })
      .execute();
    return token;
  }

  private async revokeFamily(familyId: string): Promise<void> {
    await this.db
      .updateTable('refresh_tokens')
      .set({ revoked_at: now() })
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
