// The durable job queue: work that must happen after a change even across crashes and restarts
// (webhook deliveries, pushes to devices), stored in the `jobs` table of the service's own
// database (lib/db/jobs.ts). Written here rather than taken from a library: pg-boss and
// graphile-worker need Node 22 (docs/shared FACTS), and neither runs on the embedded PGlite; this
// is one table and a few statements, the same on PGlite and PostgreSQL.
//
// Semantics (docs/operators.md): at least once. A job is claimed with FOR UPDATE SKIP LOCKED and
// a lease, so one instance runs it at a time; a job whose instance died runs again elsewhere once
// the lease has passed. A handler that throws is retried with exponential backoff until the job
// is at least RETRY_WINDOW_MS old; one that throws PermanentJobFailure is given up at once.
import type { Logger } from '../log';

export type JobInfo = { id: number; kind: string; attempts: number; createdAt: Date };

/** What a handler is given besides its payload; what else it needs, its task list was made with. */
export type JobContext = {
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

// The payload is JSON this service enqueued for the job's kind, and each handler names its type:
// a handler of `(payload: PassChanged) => …` is not assignable to `(payload: unknown) => …`.
// biome-ignore lint/suspicious/noExplicitAny: each handler declares its payload's type
export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

/**
 * Handlers by job kind, handed to a worker. A worker claims only the kinds it has a handler for,
 * so a job of a kind this build does not know waits for an instance that does.
 */
export type TaskList = Readonly<Record<string, JobHandler>>;
