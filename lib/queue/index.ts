// The durable job queue: work that must happen after a change even across crashes and restarts
// (webhook deliveries, pushes to devices), stored in the `jobs` table of the service's own
// database. Written here rather than taken from a library: pg-boss and graphile-worker need Node
// 22 (docs/shared FACTS), and neither runs on the embedded PGlite; this is one table and four
// statements, the same on PGlite and PostgreSQL.
//
// Semantics (docs/operators.md): at least once. A job is claimed with FOR UPDATE SKIP LOCKED and
// a lease, so one instance runs it at a time; a job whose instance died runs again elsewhere once
// the lease has passed. A handler that throws is retried with exponential backoff until the job
// is at least RETRY_WINDOW_MS old; one that throws PermanentJobFailure is given up at once.
import type { Logger } from '../log';
import type { Queryable } from '../db/store';
import type { Services } from '../services';

export type JobInput = {
  kind: string;
  /** JSON: stored as jsonb, handed back to the handler as parsed JSON. */
  payload: object;
  /** Not before this time (default: now). */
  runAt?: Date;
};

export type JobInfo = { id: number; kind: string; attempts: number; createdAt: Date };

export type JobContext = {
  services: Services;
  job: JobInfo;
  log: Logger;
  /** Aborted when the lease is about to run out or the service is stopping: stop and throw. */
  signal: AbortSignal;
};

/** Throwing it means "retry later" is pointless: the job is marked failed now. */
export class PermanentJobFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobFailure';
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

/**
 * Handlers by kind, for the whole process. A worker claims only the kinds it has a handler for,
 * so a job of a kind this build does not know waits for an instance that does.
 */
const handlers = new Map<string, JobHandler>();

export function registerJobHandler(kind: string, handler: JobHandler): void {
  handlers.set(kind, handler);
}

export const jobHandler = (kind: string): JobHandler | undefined => handlers.get(kind);
export const handledKinds = (): string[] => [...handlers.keys()];

/** Workers of this process, woken when a job is enqueued here so it runs at once, not at the next poll. */
const wakeListeners = new Set<() => void>();

export function onJobsEnqueued(listener: () => void): () => void {
  wakeListeners.add(listener);
  return () => wakeListeners.delete(listener);
}

/** Call after inserting into `jobs` by hand (in a statement of your own). */
export function notifyJobsEnqueued(): void {
  for (const listener of wakeListeners) listener();
}

/**
 * Stores jobs in one statement; resolves with their ids. `db` is `services.store.sql` (behind the
 * store's availability guard). To enqueue in the same statement as the change that causes it, use
 * JOBS_INSERT_FROM_JSON in a CTE of your own, then notifyJobsEnqueued().
 */
export async function enqueue(db: Queryable, jobs: JobInput | JobInput[]): Promise<number[]> {
  const list = Array.isArray(jobs) ? jobs : [jobs];
  if (list.length === 0) return [];
  const rows = await db.query<{ id: string | number }>(
    `${JOBS_INSERT_FROM_JSON('$1')} returning id`,
    [JSON.stringify(list.map((job) => ({ kind: job.kind, payload: job.payload, run_at: (job.runAt ?? null)?.toISOString() ?? null })))],
  );
  notifyJobsEnqueued();
  return rows.map((row) => Number(row.id));
}

/**
 * An INSERT of the jobs in a JSON array parameter (`[{kind, payload, run_at}]`, run_at null for
 * now): one parameter whatever the number of jobs, and no driver-specific array encoding.
 */
export const JOBS_INSERT_FROM_JSON = (param: string) =>
  `insert into jobs (kind, payload, run_at)
   select kind, payload, coalesce(run_at, now()) from jsonb_to_recordset(${param}::jsonb) as j(kind text, payload jsonb, run_at timestamptz)`;
