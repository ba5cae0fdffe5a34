// The background job worker. Jobs live in the `jobs` table; a worker claims a job whose lease has
// run out with FOR UPDATE SKIP LOCKED, so several instances can run workers side by side, and renews
// the lease while the job runs. A job whose worker died (crash, kill -9) is claimed again when its
// lease expires; after JOB_MAX_ATTEMPTS claims it fails with an error saying so, so no job stays
// `processing` forever. Completion runs the handler's finalize step and the status change in one
// transaction, guarded by the attempt number: a worker that lost its lease cannot complete a job
// another worker has taken over. On the embedded database the app hands back, at start, every lease
// a crash left behind (releaseInterruptedJobs), so those jobs resume at once rather than after it.
//
// Claims are fair between users: the next job is the oldest ready job of the user least recently
// served (job_turns, 0009-job-turns.ts), so one user's queue of large jobs delays another user's
// job by at most the jobs already running. Each process runs JOB_CONCURRENCY claim loops ("slots").
import { sql, type Transaction } from 'kysely';
import type { Logger } from '../lib/logger.js';
import type { Database, Db, Executor } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { ProviderError } from '../providers/provider-error.js';
import { now } from '../lib/ids.js';
import { ClaimSlots } from './claim-slots.js';
import { fieldsOf } from '../contract/common.js';
import { Job } from '../contract/jobs.js';
import { changeTransaction, recordChanges } from '../events/record.js';
import type { BoardEventType } from '../contract/events.js';

/** The job's columns as the API answers them, which its board event carries. */
const jobColumns = fieldsOf(Job);

export interface ClaimedJob {
  id: string;
  user_id: string;
  board_id: string | null;
  type: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export interface JobOutcome {
  result: Record<string, unknown>;
  /** Runs inside the completing transaction (e.g. swapping in a node's new chunks). */
  finalize?: (trx: Executor) => Promise<void>;
  /** Runs after the completing transaction committed (e.g. starting background cleanup). */
  committed?: () => void;
}

export interface JobHandler {
  run(job: ClaimedJob, signal: AbortSignal, log: Logger): Promise<JobOutcome>;
  /** Cleans up after a failed attempt (e.g. removes chunks written so far). */
  cleanup?(db: Executor, job: ClaimedJob): Promise<void>;
  /**
   * The board events a job of this type ends with (when it has a board), and what they carry
   * beside the job as the API answers it.
   */
  outcome?: { completed: BoardEventType; failed: BoardEventType; extra(job: ClaimedJob): Record<string, unknown> };
}

export interface JobWorkerOptions {
  leaseSeconds: number;
  maxAttempts: number;
  pollMs: number;
  /** Jobs this process runs at once (JOB_CONCURRENCY). */
  concurrency: number;
}

/** A job failure whose message is meant for the caller (stored in the job's `error`). */
export class JobError extends Error {}

export class JobWorker {
  readonly name = 'job worker';
  private readonly slots: ClaimSlots;
  /** The running jobs' abort controllers, one per busy slot. */
  private readonly current = new Set<AbortController>();

  constructor(
    private readonly db: Db,
    private readonly handlers: Record<string, JobHandler>,
    private readonly options: JobWorkerOptions,
    private readonly log: Logger,
  ) {
    this.slots = new ClaimSlots(
      options,
      () => this.runOne(),
      (error) => this.log.error({ err: error }, 'job worker: claiming failed'),
    );
  }

  start(): void {
    this.slots.start();
  }

  /** Looks for work now rather than at the next poll. */
  wake(): void {
    this.slots.wake();
  }

  /** Stops claiming, interrupts the running jobs and hands their leases back so another worker (or the next start) takes them up at once. */
  async stop(): Promise<void> {
    const stopped = this.slots.stop();
    for (const controller of this.current) controller.abort();
    await stopped;
  }

  /**
   * Claims the oldest ready job of the least recently served user, in one statement. The user's
   * job_turns row is locked with SKIP LOCKED, so claims running at the same time (other slots, other
   * processes) take different users; the job row is locked the same way, and its lease is re-checked
   * under the lock, so a job is never claimed twice. Marking the user served moves them to the back
   * of the rotation.
   */
  private async claim(): Promise<ClaimedJob | undefined> {
    const { rows } = await sql<ClaimedJob>`
      WITH turn AS (
        SELECT t.user_id FROM job_turns t
        WHERE t.user_id IN (
          SELECT j.user_id FROM jobs j
          WHERE j.status = 'processing' AND (j.lease_until IS NULL OR j.lease_until < clock_timestamp()))
        ORDER BY t.served ASC NULLS FIRST, t.user_id
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      ), next AS (
        SELECT j.id, j.user_id FROM jobs j JOIN turn ON j.user_id = turn.user_id
        WHERE j.status = 'processing' AND (j.lease_until IS NULL OR j.lease_until < clock_timestamp())
        ORDER BY j.created_at, j.id
        LIMIT 1
        FOR UPDATE OF j SKIP LOCKED
      ), served AS (
        UPDATE job_turns SET served = nextval('job_turns_served_seq') FROM next WHERE job_turns.user_id = next.user_id
      )
      UPDATE jobs SET attempts = attempts + 1,
        lease_until = clock_timestamp() + make_interval(secs => ${this.options.leaseSeconds}),
        updated_at = ${now()}
      FROM next WHERE jobs.id = next.id
      RETURNING jobs.id, jobs.user_id, jobs.board_id, jobs.type, jobs.payload, jobs.attempts`.execute(this.db);
    return rows[0];
  }

  /** Claims and runs one job; false when there was none. */
  private async runOne(): Promise<boolean> {
    const job = await this.claim();
    if (!job) return false;
    if (this.slots.stopping) {
      await this.release(job);
      return true;
    }
    // There may be more ready jobs: let the next idle slot look.
    this.wake();
    const handler = this.handlers[job.type];
    if (!handler) {
      await this.fail(job, `Unknown job type ${job.type}`);
      return true;
    }
    if (job.attempts > this.options.maxAttempts) {
      await handler.cleanup?.(this.db, job);
      await this.fail(
        job,
        `The job was interrupted ${this.options.maxAttempts} times (the server stopped or crashed while it ran) and was given up; submit it again`,
        handler,
      );
      return true;
    }
    const controller = new AbortController();
    this.current.add(controller);
    const renew = setInterval(() => void this.renew(job, controller), (this.options.leaseSeconds * 1000) / 3);
    try {
      const outcome = await handler.run(job, controller.signal, this.log.child({ jobId: job.id, jobType: job.type }));
      controller.signal.throwIfAborted();
      await changeTransaction(this.db, async (trx) => {
        await lockOutcomeBoard(trx, handler, job);
        await outcome.finalize?.(trx);
        const done = await trx
          .updateTable('jobs')
          .set({
            status: 'completed',
            result: JSON.stringify(outcome.result),
            error: null,
            payload: null,
            lease_until: null,
            updated_at: now(),
          })
          .where('id', '=', job.id)
          .where('attempts', '=', job.attempts)
          .where('status', '=', 'processing')
          .returning(jobColumns)
          .executeTakeFirst();
        if (!done) throw new LeaseLost();
        await recordOutcome(trx, handler, job, done);
      });
      outcome.committed?.();
    } catch (error) {
      if (controller.signal.aborted || error instanceof LeaseLost) {
        if (this.slots.stopping) await this.release(job);
      } else {
        // Messages meant for the caller are kept; anything else is logged and not shown.
        const shown = error instanceof JobError || error instanceof ApiError || (error instanceof ProviderError && error.shown);
        const message = shown ? error.message : 'The job failed with an internal error';
        if (!shown) this.log.error({ err: error, jobId: job.id }, 'job failed');
        await handler.cleanup?.(this.db, job).catch(() => {});
        await this.fail(job, message, handler);
      }
    } finally {
      clearInterval(renew);
      this.current.delete(controller);
    }
    return true;
  }

  private async renew(job: ClaimedJob, controller: AbortController): Promise<void> {
    try {
      const { numAffectedRows } = await sql`
        UPDATE jobs SET lease_until = clock_timestamp() + make_interval(secs => ${this.options.leaseSeconds})
        WHERE id = ${job.id} AND attempts = ${job.attempts} AND status = 'processing'`.execute(this.db);
      if (Number(numAffectedRows) !== 1) controller.abort();
    } catch {
      // A missed renewal is retried at the next tick; the lease has slack for two misses.
    }
  }

  private async fail(job: ClaimedJob, message: string, handler?: JobHandler): Promise<void> {
    await changeTransaction(this.db, async (trx) => {
      const failed = await trx
        .updateTable('jobs')
        .set({ status: 'failed', error: message, result: null, payload: null, lease_until: null, updated_at: now() })
        .where('id', '=', job.id)
        .where('attempts', '=', job.attempts)
        .where('status', '=', 'processing')
        .returning(jobColumns)
        .executeTakeFirst();
      if (failed) await recordOutcome(trx, handler, job, failed);
    });
  }

  /** A job interrupted by a clean shutdown does not count as an attempt. */
  private async release(job: ClaimedJob): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ lease_until: null, attempts: job.attempts - 1 })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .where('status', '=', 'processing')
      .execute()
      .catch(() => {});
  }
}

class LeaseLost extends Error {}

/**
 * Hands back the lease of every job still `processing`, so the worker takes them up at once: the
 * jobs a crash (kill -9, power loss) interrupted would otherwise wait out their lease. Only for a
 * database no other process can use, at start, before this process's worker runs: the embedded
 * one (DATA_DIR is opened by one process at a time), where no live worker can hold such a lease.
 * On a shared PostgreSQL other instances' workers may, so leases are left to run out there. The
 * interrupted attempt still counts, so a job that brings the process down every time is given up
 * after JOB_MAX_ATTEMPTS. Answers how many jobs it released.
 */
export async function releaseInterruptedJobs(db: Db): Promise<number> {
  const released = await db
    .updateTable('jobs')
    .set({ lease_until: null })
    .where('status', '=', 'processing')
    .where('lease_until', 'is not', null)
    .returning('id')
    .execute();
  return released.length;
}

/**
 * Takes the board row's lock first when the job's end will be recorded on the board: content
 * writes lock the board before its nodes, and a finalize step may lock a node, so taking the board
 * last would let the two wait for each other.
 */
async function lockOutcomeBoard(trx: Executor, handler: JobHandler, job: ClaimedJob): Promise<void> {
  if (handler.outcome && job.board_id) await sql`SELECT 1 FROM boards WHERE id = ${job.board_id} FOR NO KEY UPDATE`.execute(trx);
}

/** Records the job's end on its board's change log, when its type has outcome events. */
async function recordOutcome(trx: Transaction<Database>, handler: JobHandler | undefined, job: ClaimedJob, row: Job): Promise<void> {
  if (!handler?.outcome || !job.board_id) return;
  const type = row.status === 'completed' ? handler.outcome.completed : handler.outcome.failed;
  await recordChanges(trx, job.board_id, job.user_id, [{ type, data: { ...row, ...handler.outcome.extra(job) } }]);
}
