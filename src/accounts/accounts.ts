// Local accounts: sign-up and login with an email and a password. A local user is an ordinary user
// row whose subject is its own id (like a UUID subject), plus an accounts row with the normalised
// email and the password hash. Login answers the same error, after the same work, whether the email
// is unknown or the password wrong.
import type { Db, Executor } from '../db/schema.js';
import { conflict, invalid, unauthorized } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './password.js';

export interface AccountView {
  id: string;
  email: string;
}

export const WRONG_CREDENTIALS = 'Email or password is incorrect';
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

export async function signUp(db: Db, rawEmail: string, password: string): Promise<AccountView> {
  const email = normaliseEmail(rawEmail);
  const passwordHash = await hashPassword(password);
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

export async function logIn(db: Db, rawEmail: string, password: string): Promise<AccountView> {
  // Not normaliseEmail: a malformed address is simply unknown here, answered like any other.
  const email = rawEmail.trim().toLowerCase();
  const account = await db.selectFrom('accounts').select(['user_id', 'password_hash']).where('email', '=', email).executeTakeFirst();
  if (!account) {
    await verifyAgainstDummy(password);
    throw unauthorized(WRONG_CREDENTIALS);
  }
  const { ok, needsRehash } = await verifyPassword(password, account.password_hash);
  if (!ok) throw unauthorized(WRONG_CREDENTIALS);
  if (needsRehash) {
    const passwordHash = await hashPassword(password);
    await db.updateTable('accounts').set({ password_hash: passwordHash, updated_at: now() }).where('user_id', '=', account.user_id).execute();
  }
  return { id: account.user_id, email };
}

/** The local account's email of a user, if the user has one. */
export async function accountEmail(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('email').where('user_id', '=', userId).executeTakeFirst();
  return row?.email;
}
