// A board's setting for the web app's automatic reading (issue 29): when true (the default), the
// web app vectorizes each note, document, file, link and video as it is added or its text changes;
// false leaves reading to a person's "Read" on the card. The service itself never reads on its own.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE boards ADD COLUMN auto_read boolean NOT NULL DEFAULT true`.execute(db);
}
