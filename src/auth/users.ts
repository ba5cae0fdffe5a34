// Users are created on first sight of their identity-provider subject. A subject that is a UUID is
// also the user's id, so `cli keys create --user <uuid>` and a JWT with that `sub` are one user.
import type { Executor } from '../db/schema.js';
import { isUuid, newId, now } from '../lib/ids.js';

export async function ensureUser(db: Executor, subject: string): Promise<string> {
  const id = isUuid(subject) ? subject.toLowerCase() : newId();
  const key = isUuid(subject) ? subject.toLowerCase() : subject;
  const inserted = await db
    .insertInto('users')
    .values({ id, subject: key, created_at: now() })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  const existing = await db.selectFrom('users').select('id').where('subject', '=', key).executeTakeFirstOrThrow();
  return existing.id;
}
