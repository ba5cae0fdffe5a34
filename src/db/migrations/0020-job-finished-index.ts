// A user's finished jobs by when they finished: the per-user job bound's Retry-After
// (src/jobs/job-service.ts) reads the times of the user's last few finished jobs to tell how soon
// the queue will have room. Without it that read would visit every job the user ever ran (finished
// jobs are kept).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX jobs_user_finished_idx ON jobs (user_id, updated_at) WHERE status <> 'processing'`.execute(db);
}
