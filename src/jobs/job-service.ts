// Jobs as the API shows them: the caller's own jobs only (another user's job is "Job not found").
// Queueing is bounded per user (JOB_MAX_QUEUED_PER_USER), so no user can fill the queue.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Db, Executor } from '../db/schema.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { fieldsOf } from '../contract/common.js';
import { Job } from '../contract/jobs.js';

/** The job's columns, in the order of its schema. */
const columns = fieldsOf(Job);

/** How a refused caller's Retry-After is estimated (docs/documents.md, "Bounded queue"). */
export const QUEUE_RETRY = {
  /** Completions this recent, at most `sample` of them, measure how fast the user's jobs finish. */
  windowSeconds: 60,
  sample: 20,
  /** Fewer than two completions in the window: nothing measured, this many seconds. */
  unknownSeconds: 10,
  maxSeconds: 60,
};

/**
 * Seconds until the user's queue has room for `needed` more jobs: the time per job measured from
 * the user's recent completions, times `needed`, in whole seconds, at least 1 and at most
 * `maxSeconds`. The time per job is the median interval between consecutive completions: the rate
 * at which the user's jobs have been finishing, with however many workers ran them, and not
 * lengthened by a pause in which the user's queue was empty (a mean would be, and an estimate too
 * long empties the queue again while the clients wait, which lengthens the next one). `finishedAt`:
 * when the user's jobs finished, the newest `sample` within the window, in any order.
 */
export function queueRetryAfter(finishedAt: Date[], needed: number): number {
  if (finishedAt.length < 2) return QUEUE_RETRY.unknownSeconds;
  const times = finishedAt.map((t) => t.getTime()).sort((a, b) => a - b);
  const intervals = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  const mid = intervals.length >> 1;
  const median = intervals.length % 2 ? intervals[mid]! : (intervals[mid - 1]! + intervals[mid]!) / 2;
  return Math.min(QUEUE_RETRY.maxSeconds, Math.max(1, Math.ceil((median / 1000) * needed)));
}

/** When the user's most recently finished jobs finished (at most QUEUE_RETRY.sample, within its window). */
async function recentCompletions(db: Executor, userId: string): Promise<Date[]> {
  const since = new Date(Date.now() - QUEUE_RETRY.windowSeconds * 1000);
  // The literal `<> 'processing'` matches the partial index jobs_user_finished_idx (migration 0020).
  const { rows } = await sql<{ updated_at: Date }>`
    SELECT updated_at FROM jobs
    WHERE user_id = ${userId} AND status <> 'processing' AND updated_at > ${since}
    ORDER BY updated_at DESC LIMIT ${QUEUE_RETRY.sample}`.execute(db);
  return rows.map((r) => r.updated_at);
}

/** The first key of the per-user advisory lock that keeps the job bound exact (the second is the user's). */
const JOB_QUEUE_LOCK = 26_012;

export interface NewJob {
  userId: string;
  boardId: string | null;
  type: string;
  payload: Record<string, unknown>;
}

/**
 * Queues a job unless the user already has `maxQueued` unfinished ones (429 rate_limited, nothing
 * queued). The caller wakes a worker (JobWorker.wake) after its transaction commits.
 */
export async function insertJob(db: Executor, job: NewJob, maxQueued: number): Promise<Job> {
  const [inserted] = await insertJobs(db, job.userId, [job], maxQueued);
  return inserted!;
}

/**
 * Queues one user's jobs, all or none: refused (429 rate_limited, nothing queued) unless the user's
 * unfinished jobs and these fit within `maxQueued`. The count and the insert run under a per-user
 * advisory lock, so concurrent requests cannot both slip past the bound. The answer's
 * Retry-After estimates when enough of the user's jobs will have finished (queueRetryAfter).
 */
export async function insertJobs(db: Executor, userId: string, jobs: NewJob[], maxQueued: number): Promise<Job[]> {
  if (jobs.length > maxQueued) {
    throw invalid(
      `One request may queue at most ${maxQueued} jobs (the most a user may have unfinished); this one asks for ${jobs.length}`,
    );
  }
  if (!db.isTransaction) return db.transaction().execute((trx) => insertJobs(trx, userId, jobs, maxQueued));
  // The bound's lock is an advisory lock on the user, not their job_turns row: a claim passes over
  // a user whose row is locked (FOR UPDATE SKIP LOCKED), so holding the row here made an idle
  // worker skip the user's ready jobs and sleep until its next poll whenever one of their requests
  // was being queued or refused (ingest on PostgreSQL ran at a quarter of the worker's speed).
  await sql`SELECT pg_advisory_xact_lock(${JOB_QUEUE_LOCK}::int, hashtext(${userId}::text))`.execute(db);
  const { queued } = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('queued'))
    .where('user_id', '=', userId)
    .where('status', '=', 'processing')
    .executeTakeFirstOrThrow();
  if (queued + jobs.length > maxQueued) {
    const retryAfter = queueRetryAfter(await recentCompletions(db, userId), queued + jobs.length - maxQueued);
    const asked = jobs.length === 1 ? '' : `; this request asks for ${jobs.length} more`;
    throw new ApiError(
      'rate_limited',
      `You have ${queued} unfinished jobs, the most allowed (${maxQueued})${asked}; retry when one has finished`,
      { 'Retry-After': String(retryAfter) },
    );
  }
  const at = now();
  const ids = jobs.map(() => newId());
  const rows = await db
    .insertInto('jobs')
    .values(
      jobs.map((job, i) => ({
        id: ids[i]!,
        user_id: userId,
        board_id: job.boardId,
        type: job.type,
        status: 'processing',
        result: null,
        error: null,
        payload: JSON.stringify(job.payload),
        created_at: at,
        updated_at: at,
      })),
    )
    .returning(columns)
    .execute();
  // In the order asked for, whatever order RETURNING gives.
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)!);
}

/**
 * The app's job queue as the API shows it, built once per app (src/modules/services.ts). (Queueing,
 * insertJob and insertJobs above, is still called by the documents domain with its transaction.)
 */
export class JobQueue {
  constructor(private readonly deps: { db: Db }) {}

  /** One of the caller's jobs; another user's is "Job not found". */
  async get(principal: Principal, id: string): Promise<Job> {
    const { db } = this.deps;
    const job = await db.selectFrom('jobs').select(columns).where('id', '=', id).where('user_id', '=', principal.userId).executeTakeFirst();
    if (!job) throw notFound('Job');
    return job;
  }
}
