// The workers that run the queue's jobs on this instance, one per lane (JobLanes): started with
// the services, stopped on shutdown. Each claims due jobs of the kinds it has handlers for (FOR
// UPDATE SKIP LOCKED, so instances never take the same job), runs them concurrently in its own
// slots, and records each outcome with the lease token of its attempt, so an attempt that
// outlived its lease cannot overwrite a newer one.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClaimedJob, Jobs } from '../db/jobs';
import type { Logger } from '../log';
import { type JobInfo, PermanentJobFailure, type TaskList } from './index';

export type WorkerOptions = {
  /** First retry delay; each next one doubles, up to MAX_RETRY_DELAY_MS. */
  retryBaseMs: number;
  /** Retries go on until a failure happens at least this long after the job was enqueued. */
  retryWindowMs: number;
  /** How long a claimed job is reserved for this instance. */
  leaseMs: number;
  /** How often the worker looks for due jobs when nothing wakes it. */
  pollMs: number;
  /** Jobs run at once on this instance. */
  concurrency: number;
};

/** This process, as it appears in `jobs.locked_by`. */
const INSTANCE = `${hostname()}/${process.pid}`;

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  retryBaseMs: 10_000,
  retryWindowMs: 24 * 60 * 60 * 1000,
  leaseMs: 60_000,
  pollMs: 1000,
  concurrency: 8,
};

/** Retries never wait longer than this, so a receiver that comes back is served within the hour. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A handler is aborted this long before its lease runs out, so its outcome is recorded in time. */
const LEASE_MARGIN_MS = 5000;
/** On stop, jobs under way get this long to finish before they are aborted. */
const STOP_GRACE_MS = 3000;
/** Finished jobs are kept this long (the console shows deliveries), failed ones longer. */
const KEEP_DONE_MS = 7 * 24 * 60 * 60 * 1000;
const KEEP_FAILED_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
const MAX_ERROR_LENGTH = 500;

/** The delay before retry number `attempt` (1 for the first retry): base·2^(n-1), capped, ±10 % jitter. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  const exponential = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_RETRY_DELAY_MS);
  return Math.round(exponential * (0.9 + Math.random() * 0.2));
}

export class JobWorker {
  private readonly running = new Map<number, { done: Promise<void>; abort: AbortController }>();
  private stopping = false;
  private woken = false;
  private wake: () => void = () => {};
  private loopDone: Promise<void> = Promise.resolve();
  private lastPurge = 0;
  private claimFailing = false;
  private readonly unsubscribe: () => void;
  private readonly timers = new Set<NodeJS.Timeout>();

  private readonly handlers: TaskList;
  private readonly kinds: string[];
  private readonly jobs: Jobs;
  private readonly log: Logger;
  private readonly options: WorkerOptions;

  private readonly purges: boolean;

  /**
   * `jobs`: the table it claims from; a job enqueued through it wakes this worker at once.
   * `purges`: whether this worker deletes old jobs now and then (one worker per instance is enough).
   */
  constructor(setup: { handlers: TaskList; jobs: Jobs; log: Logger; options: WorkerOptions; purges?: boolean }) {
    this.purges = setup.purges ?? true;
    this.handlers = setup.handlers;
    this.kinds = Object.keys(setup.handlers);
    this.jobs = setup.jobs;
    this.log = setup.log;
    this.options = setup.options;
    this.unsubscribe = setup.jobs.onEnqueued(() => this.poke());
  }

  start(): void {
    this.loopDone = this.loop();
  }

  /** Makes the loop look for due jobs now. */
  poke(): void {
    this.woken = true;
    this.wake();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      const free = this.options.concurrency - this.running.size;
      let claimed: ClaimedJob[] = [];
      if (free > 0 && this.kinds.length > 0) {
        try {
          claimed = await this.claim(free);
          this.claimFailing = false;
        } catch (error) {
          // Once per outage, not once a second: the store logs the outage itself.
          if (!this.claimFailing) this.log.warn({ event: 'jobs_claim_failed', err: (error as Error).message }, 'could not claim jobs; retrying every poll');
          this.claimFailing = true;
        }
        await this.purgeNowAndThen();
      }
      for (const job of claimed) this.run(job);
      if (this.stopping) break;
      // A full batch means more may be due: look again at once.
      if (claimed.length > 0 && claimed.length === free) continue;
      if (!this.woken) await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private claim(limit: number): Promise<ClaimedJob[]> {
    // "host/pid/random": an operator reading `jobs` sees which instance holds a job; the random
    // part makes the token unique to this claim.
    const token = `${INSTANCE}/${randomBytes(12).toString('base64url')}`;
    return this.jobs.claim(this.kinds, limit, this.options.leaseMs, token);
  }

  private run(job: ClaimedJob): void {
    const abort = new AbortController();
    const leaseTimer = setTimeout(() => abort.abort(new Error('the lease ran out')), Math.max(this.options.leaseMs - LEASE_MARGIN_MS, 1));
    leaseTimer.unref();
    const done = this.attempt(job, abort.signal).finally(() => {
      clearTimeout(leaseTimer);
      this.running.delete(job.id);
      this.poke(); // a slot is free
    });
    this.running.set(job.id, { done, abort });
  }

  private async attempt(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const { log } = this;
    const handler = Object.hasOwn(this.handlers, job.kind) ? this.handlers[job.kind] : undefined;
    const info: JobInfo = { id: job.id, kind: job.kind, attempts: job.attempts, createdAt: job.createdAt };
    try {
      if (!handler) throw new PermanentJobFailure(`no handler for job kind ${job.kind}`);
      await handler(job.payload, { job: info, log, signal });
    } catch (error) {
      await this.recordFailure(job, error, signal).catch((recordError: unknown) =>
        log.warn(
          { event: 'job_record_failed', jobId: job.id, err: (recordError as Error).message },
          'could not record a job failure; it runs again after its lease',
        ),
      );
      return;
    }
    await this.jobs
      .finish(job.id, job.token)
      .catch((error: unknown) =>
        log.warn(
          { event: 'job_record_failed', jobId: job.id, err: (error as Error).message },
          'could not record a finished job; it may run again after its lease',
        ),
      );
  }

  private async recordFailure(job: ClaimedJob, error: unknown, signal: AbortSignal): Promise<void> {
    const { log } = this;
    if (this.stopping && signal.aborted) {
      // Cut short by our own shutdown: not the job's fault. Hand it back for the next instance.
      await this.jobs.handBack(job.id, job.token);
      return;
    }
    const permanent = error instanceof PermanentJobFailure;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH) || 'failed';
    const delay = retryDelayMs(job.attempts, this.options.retryBaseMs);
    const row = await this.jobs.fail(job.id, job.token, { error: message, permanent, retryWindowMs: this.options.retryWindowMs, delayMs: delay });
    if (row?.failed) {
      log.warn({ event: 'job_failed', jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job given up');
    } else if (row) {
      log.info({ event: 'job_retry', jobId: job.id, kind: job.kind, attempts: job.attempts, retryInMs: delay, err: message }, 'job will be retried');
      // A retry due before the next poll: look for it then, not a whole poll later.
      if (delay < this.options.pollMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.poke();
        }, delay);
        timer.unref();
        this.timers.add(timer);
      }
    }
  }

  private async purgeNowAndThen(): Promise<void> {
    if (!this.purges || Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    try {
      await this.jobs.purge(KEEP_DONE_MS, KEEP_FAILED_MS);
    } catch (error) {
      this.log.warn({ event: 'jobs_purge_failed', err: (error as Error).message }, 'could not purge old jobs');
    }
  }

  /** Stops claiming, lets jobs under way finish (briefly), aborts the rest and hands them back. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe();
    for (const timer of this.timers) clearTimeout(timer);
    this.wake();
    await this.loopDone;
    const inFlight = [...this.running.values()];
    if (inFlight.length === 0) return;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    await Promise.race([Promise.all(inFlight.map((job) => job.done)), grace]);
    for (const job of this.running.values()) job.abort.abort(new Error('the service is stopping'));
    await Promise.all([...this.running.values()].map((job) => job.done));
  }
}

/** A lane of the queue: the kinds it runs (its handlers) and the jobs it runs at once on this instance. */
export type Lane = { handlers: TaskList; concurrency: number };

/**
 * The queue's workers on this instance, one per lane. Each claims only its own lane's kinds into
 * its own slots, so a backlog in one lane (thousands of webhook deliveries to a receiver taking
 * seconds each) never waits in front of another's jobs (a push after a pass changed): those are
 * claimed as soon as they are enqueued, whatever the other lanes hold. The semantics of each lane
 * are the worker's: leases, retries, at least once.
 */
export class JobLanes {
  private readonly workers: JobWorker[];

  constructor(setup: { lanes: Lane[]; jobs: Jobs; log: Logger; options: Omit<WorkerOptions, 'concurrency'> }) {
    this.workers = setup.lanes.map(
      (lane, index) =>
        new JobWorker({
          handlers: lane.handlers,
          jobs: setup.jobs,
          log: setup.log,
          options: { ...setup.options, concurrency: lane.concurrency },
          purges: index === 0,
        }),
    );
  }

  start(): void {
    for (const worker of this.workers) worker.start();
  }

  /** Stops every lane at once: each lets its jobs under way finish (briefly) and hands the rest back. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
  }
}
