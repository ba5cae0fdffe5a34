// Users are created on first sight of their identity-provider subject. A subject that is a UUID is
// also the user's id, so `cli keys create --user <uuid>` and a JWT with that `sub` are one user.
import type { Executor } from '../db/schema.js';
import { unauthorized } from '../errors.js';
import { isUuid, newId, now } from '../lib/ids.js';

const subjectKey = (subject: string): string => (isUuid(subject) ? subject.toLowerCase() : subject);

export async function ensureUser(db: Executor, subject: string): Promise<string> {
  const key = subjectKey(subject);
  const id = isUuid(subject) ? key : newId();
  const inserted = await db
    .insertInto('users')
    .values({ id, subject: key, created_at: now() })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  const existing = await db.selectFrom('users').select('id').where('subject', '=', key).executeTakeFirst();
  // Only when a UUID subject equals the id already given to another subject's user: refuse rather
  // than merge two identities.
  if (!existing) throw unauthorized('This token subject cannot be mapped to a user');
  return existing.id;
}

/** The user of a subject, without creating one. */
export async function findUserBySubject(db: Executor, subject: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('id').where('subject', '=', subjectKey(subject)).executeTakeFirst();
  return row?.id;
}

export async function userExists(db: Executor, id: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
