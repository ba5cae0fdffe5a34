// Local accounts: sign-up and login with an email and a password, plus the operator's password
// change and listing (src/cli.ts). A local user is an ordinary user row whose subject is its own id
// (like a UUID subject), plus an accounts row with the normalised email and the password hash.
// Login answers the same error, after the same work, whether the email is unknown or the password
// wrong.
import type { Db, Executor } from '../db/schema.js';
import { conflict, invalid, unauthorized } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { CURRENT_PARAMS, DummyHash, hashPassword, type Params, verifyPassword } from './password.js';
import type { Account } from '../contract/accounts.js';

/** What the account service is built with. */
export interface AccountDeps {
  db: Db;
  /** The sign-in's dummy hash (local accounts); made at the first login when none is given. */
  dummy?: DummyHash | undefined;
  /** scrypt's parameters of new hashes (AUTH_SCRYPT_COST); production's when not given. */
  passwordParams?: Params | undefined;
}

/** A local account as the operator's CLI lists it (not served). */
export type AccountListing = Account & { created_at: Date };

export const WRONG_CREDENTIALS = 'Email or password is incorrect';
/** Password length in characters (code points, as the route schemas' JSON Schema counts them). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
const MAX_EMAIL = 254;
// Deliberately loose (one @, a dot in the domain, no spaces): the only real check of an address is
// mail reaching it, and the service sends none.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Trimmed and lower-cased; a 400 when it is not an email address. */
export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw invalid('email must be an email address');
  return email;
}

/**
 * A 400 unless the password is acceptable for a new account or a password change. The routes check
 * the same bounds in their schemas; this guards the other callers (the operator CLI).
 */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw invalid(`password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** The local account's email of a user, if the user has one. */
export async function accountEmail(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('email').where('user_id', '=', userId).executeTakeFirst();
  return row?.email;
}

/** Every local account, oldest first. */
async function listAccounts(db: Executor): Promise<AccountListing[]> {
  const rows = await db.selectFrom('accounts').select(['user_id', 'email', 'created_at']).orderBy('created_at').orderBy('email').execute();
  return rows.map((r) => ({ id: r.user_id, email: r.email, created_at: r.created_at }));
}

/**
 * The app's local accounts, built once per app (src/modules/services.ts) with the database and the
 * sign-in's dummy hash; the CLI builds its own.
 */
export class AccountService {
  private dummy: DummyHash | undefined;
  private readonly params: Params;

  constructor(private readonly deps: AccountDeps) {
    this.dummy = deps.dummy;
    this.params = deps.passwordParams ?? CURRENT_PARAMS;
  }

  /** The local account's email of a user, if the user has one. */
  email(userId: string): Promise<string | undefined> {
    return accountEmail(this.deps.db, userId);
  }

  /** Every local account, oldest first (for the CLI). */
  list(): Promise<AccountListing[]> {
    return listAccounts(this.deps.db);
  }

  async signUp(rawEmail: string, password: string): Promise<Account> {
    const { db } = this.deps;
    const email = normaliseEmail(rawEmail);
    checkPassword(password);
    const passwordHash = await hashPassword(password, this.params);
    return db.transaction().execute(async (trx) => {
      const id = newId();
      const created = now();
      await trx.insertInto('users').values({ id, subject: id, created_at: created }).execute();
      const inserted = await trx
        .insertInto('accounts')
        .values({ user_id: id, email, password_hash: passwordHash, created_at: created, updated_at: created })
        .onConflict((oc) => oc.column('email').doNothing())
        .returning('user_id')
        .executeTakeFirst();
      // Throwing rolls the user row back too.
      if (!inserted) throw conflict('An account with this email already exists');
      return { id, email };
    });
  }

  /** The dummy hash is verified against when the email has no account (sign-in.ts makes it ahead of the first login). */
  async logIn(rawEmail: string, password: string): Promise<Account> {
    const { db } = this.deps;
    this.dummy ??= new DummyHash(this.params);
    const dummy = this.dummy;
    // Not normaliseEmail: a malformed address is simply unknown here, answered like any other.
    const email = rawEmail.trim().toLowerCase();
    const account = await db.selectFrom('accounts').select(['user_id', 'password_hash']).where('email', '=', email).executeTakeFirst();
    if (!account) {
      await dummy.verifyAgainst(password);
      throw unauthorized(WRONG_CREDENTIALS);
    }
    const { ok, needsRehash } = await verifyPassword(password, account.password_hash, this.params);
    if (!ok) throw unauthorized(WRONG_CREDENTIALS);
    if (needsRehash) {
      const passwordHash = await hashPassword(password, this.params);
      await db
        .updateTable('accounts')
        .set({ password_hash: passwordHash, updated_at: now() })
        .where('user_id', '=', account.user_id)
        .execute();
    }
    return { id: account.user_id, email };
  }

  /**
   * Sets a new password and ends every sign-in of the account (all its refresh tokens are revoked, so
   * refreshes fail; access tokens already issued live out their short TTL). Undefined when no
   * account has this email.
   */
  async setPassword(rawEmail: string, password: string): Promise<{ account: Account; endedSignIns: number } | undefined> {
    const { db } = this.deps;
    const email = normaliseEmail(rawEmail);
    checkPassword(password);
    // Hashed outside the transaction: it takes a while and needs no lock.
    const passwordHash = await hashPassword(password, this.params);
    return db.transaction().execute(async (trx) => {
      const at = now();
      const updated = await trx
        .updateTable('accounts')
        .set({ password_hash: passwordHash, updated_at: at })
        .where('email', '=', email)
        .returning('user_id')
        .executeTakeFirst();
      if (!updated) return undefined;
      // The same revocation as a reused refresh token (sessions.ts), for every family of the user.
      const revoked = await trx
        .updateTable('refresh_tokens')
        .set({ revoked_at: at })
        .where('user_id', '=', updated.user_id)
        .where('revoked_at', 'is', null)
        .returning('family_id')
        .execute();
      return { account: { id: updated.user_id, email }, endedSignIns: new Set(revoked.map((r) => r.family_id)).size };
    });
  }
}
