// Fair sharing of the job workers between users (src/jobs/worker.ts): one row per user who has
// queued a job, recording when a worker last took up one of that user's jobs, as a number from a
// sequence (a timestamp would tie: the embedded database's clock can give claims in quick succession
// the same time, and a tie would go to the same user every time). A claim takes the
// least recently served user with a job ready, locking that user's row with FOR UPDATE SKIP LOCKED
// so concurrent claimers (in this process or others on the same database) each take a different
// user, then that user's oldest ready job. The row is also the per-user lock that keeps the bound
// on queued jobs exact (src/jobs/job-service.ts).
//
// Rows are made by a trigger on jobs, so every way of queueing a job (the API, re-embedding, a test
// writing the row) takes part in the rotation.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE job_turns_served_seq`.execute(db);
  await sql`
    CREATE TABLE job_turns (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      -- The turn a worker last took up one of the user's jobs; NULL: never served, so first in line.
      served bigint
    )`.execute(db);
  await sql`INSERT INTO job_turns (user_id) SELECT DISTINCT user_id FROM jobs`.execute(db);
  await sql`
    CREATE FUNCTION job_turns_add() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO job_turns (user_id) SELECT DISTINCT user_id FROM new_jobs ON CONFLICT (user_id) DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER jobs_turns_add AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION job_turns_add()`.execute(db);
  // A user's unfinished jobs, oldest first: the claim's second step and the queued-jobs count.
  await sql`CREATE INDEX jobs_user_queue_idx ON jobs (user_id, created_at) WHERE status = 'processing'`.execute(db);
}
