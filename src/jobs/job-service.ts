// Jobs as the API shows them: the caller's own jobs only (another user's job is "Job not found").
import type { Principal } from '../auth/principal.js';
import type { Executor, JobsTable } from '../db/schema.js';
import { notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';

export type JobStatus = JobsTable['status'];

export interface JobView {
  id: string;
  type: string;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

const columns = ['id', 'type', 'status', 'result', 'error', 'created_at', 'updated_at'] as const;

export async function getJob(db: Executor, principal: Principal, id: string): Promise<JobView> {
  const job = await db.selectFrom('jobs').select(columns).where('id', '=', id).where('user_id', '=', principal.userId).executeTakeFirst();
  if (!job) throw notFound('Job');
  return job;
}

/** Queues a job; the caller wakes a worker (JobWorker.wake) after its transaction commits. */
export async function insertJob(
  db: Executor,
  job: { userId: string; boardId: string | null; type: string; payload: Record<string, unknown> },
): Promise<JobView> {
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
