// Jobs as the API shows them: the caller's own jobs only (another user's job is "Job not found").
// Queueing is bounded per user (JOB_MAX_QUEUED_PER_USER), so no user can fill the queue.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Executor } from '../db/schema.js';
import { ApiError, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { fieldsOf } from '../contract/common.js';
import { Job } from '../contract/jobs.js';

/** The job's columns, in the order of its schema. */
const columns = fieldsOf(Job);

export async function getJob(db: Executor, principal: Principal, id: string): Promise<Job> {
  const job = await db.selectFrom('jobs').select(columns).where('id', '=', id).where('user_id', '=', principal.userId).executeTakeFirst();
  if (!job) throw notFound('Job');
  return job;
}

/** Seconds a refused caller is asked to wait: about the time a job takes to make room. */
const QUEUE_FULL_RETRY_AFTER = '10';

/**
 * Queues a job unless the user already has `maxQueued` unfinished ones (429 rate_limited, nothing
 * queued). The count and the insert run under a lock on the user's job_turns row, so concurrent
 * requests cannot both slip past the bound. The caller wakes a worker (JobWorker.wake) after its
 * transaction commits.
 */
export async function insertJob(
  db: Executor,
  job: { userId: string; boardId: string | null; type: string; payload: Record<string, unknown> },
  maxQueued: number,
): Promise<Job> {
  if (!db.isTransaction) return db.transaction().execute((trx) => insertJob(trx, job, maxQueued));
  await sql`INSERT INTO job_turns (user_id) VALUES (${job.userId}) ON CONFLICT (user_id) DO NOTHING`.execute(db);
  await sql`SELECT 1 FROM job_turns WHERE user_id = ${job.userId} FOR UPDATE`.execute(db);
  const { queued } = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('queued'))
    .where('user_id', '=', job.userId)
    .where('status', '=', 'processing')
    .executeTakeFirstOrThrow();
  if (queued >= maxQueued) {
    throw new ApiError('rate_limited', `You have ${queued} unfinished jobs, the most allowed (${maxQueued}); retry when one has finished`, {
      'Retry-After': QUEUE_FULL_RETRY_AFTER,
    });
  }
  const at = now();
  return db
    .insertInto('jobs')
    .values({
      id: newId(),
      user_id: job.userId,
      board_id: job.boardId,
      type: job.type,
      status: 'processing',
      result: null,
      error: null,
      payload: JSON.stringify(job.payload),
      created_at: at,
      updated_at: at,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
}
