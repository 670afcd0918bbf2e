// The `jobs` table, the durable queue's storage (lib/queue): every statement on it. Jobs come in
// as data, a jsonb array read with jsonb_to_recordset, whether alone (enqueue) or with the change
// that causes them (statementWithJobs): one parameter whatever their number, and no payload is
// ever SQL text. Enqueueing wakes this process's workers (onEnqueued), so a job runs at once
// rather than at the next poll.
import { asDate, asOptionalDate, type Queryable } from './sql';

export type JobInput = {
  kind: string;
  /** JSON: stored as jsonb, handed back to the handler as parsed JSON. */
  payload: object;
  /** Not before this time (default: now). */
  runAt?: Date;
  /**
   * At most one job of this kind ever has this key: enqueueing another is a no-op, even when two
   * instances enqueue it at the same moment (a unique index, not a read before the write). Put
   * the time bucket in the key to coalesce per period (pass.scanned: its serial and minute).
   */
  dedupeKey?: string;
};

/**
 * A job of a change: enqueued only if the change happened to the row named `key` (the value the
 * change's `changed` CTE returns as `key`, e.g. a serial number).
 */
export type KeyedJob = JobInput & { key: string };

export type ClaimedJob = { id: number; kind: string; payload: unknown; attempts: number; createdAt: Date; token: string };

/** The jobs as one jsonb parameter: `[{key, kind, payload, run_at, dedupe_key}]`, run_at null for now. */
export const jobsParameter = (jobs: (JobInput & { key?: string })[]): string =>
  JSON.stringify(
    jobs.map((job) => ({
      key: job.key ?? null,
      kind: job.kind,
      payload: job.payload,
      run_at: job.runAt?.toISOString() ?? null,
      dedupe_key: job.dedupeKey ?? null,
    })),
  );

/** The rows of a jobs parameter (`param`, e.g. `$3`). */
const JOB_ROWS = (param: string) => `jsonb_to_recordset(${param}::jsonb) as j(key text, kind text, payload jsonb, run_at timestamptz, dedupe_key text)`;

/** Inserts the rows of `JOB_ROWS` selected by `select` (… from JOB_ROWS j …); a job whose dedupe key was enqueued before is dropped. */
const INSERT_JOBS = (select: string) => `insert into jobs (kind, payload, run_at, dedupe_key)
  select j.kind, j.payload, coalesce(j.run_at, now()), j.dedupe_key ${select}
  on conflict (kind, dedupe_key) where dedupe_key is not null do nothing`;

/**
 * One statement that makes a change and enqueues its jobs, so both commit or neither. `with` holds
 * the change's CTEs, the last named `changed` and returning a text column `key`; a job of
 * `jobsParam` is enqueued for each changed row whose key is the job's. `select` reads the outcome
 * (it may name `changed`); the statement adds a column `queued`: how many jobs it enqueued.
 */
export function statementWithJobs(parts: { with: string; jobsParam: string; select: string }): string {
  return `with ${parts.with},
    queued as (
      ${INSERT_JOBS(`from ${JOB_ROWS(parts.jobsParam)} where j.key in (select key from changed)`)}
      returning 1
    )
    select outcome.*, (select count(*) from queued)::int as queued from (${parts.select}) outcome`;
}

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** A job as the operator console shows a webhook delivery. */
export type Delivery = {
  id: string;
  eventId: string;
  type: string;
  serialNumber: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  failedAt: Date | null;
};

type DeliveryRowOut = Omit<Delivery, 'nextAttemptAt' | 'createdAt' | 'deliveredAt' | 'failedAt' | 'id'> & {
  id: string | number;
  nextAttemptAt: Date | string | null;
  createdAt: Date | string;
  deliveredAt: Date | string | null;
  failedAt: Date | string | null;
};

const DELIVERY_STATUS_SQL = `case when done_at is not null then 'delivered' when failed_at is not null then 'failed'
  when locked_until > now() then 'sending' else 'pending' end`;

const DELIVERY_COLUMNS = `id::text as id, payload->>'id' as "eventId", payload->>'type' as type,
  payload->'data'->>'serialNumber' as "serialNumber", ${DELIVERY_STATUS_SQL} as status, attempts,
  last_error as "lastError", case when done_at is null and failed_at is null then run_at end as "nextAttemptAt",
  created_at as "createdAt", done_at as "deliveredAt", failed_at as "failedAt"`;

const toDelivery = (row: DeliveryRowOut): Delivery => ({
  ...row,
  id: String(row.id),
  nextAttemptAt: asOptionalDate(row.nextAttemptAt),
  createdAt: asDate(row.createdAt),
  deliveredAt: asOptionalDate(row.deliveredAt),
  failedAt: asOptionalDate(row.failedAt),
});

/** The statements on `jobs`, on one database (the store's guarded `sql`). */
export class Jobs {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly db: Queryable) {}

  /** Calls `listener` whenever this process enqueued jobs; returns the unsubscribe. */
  onEnqueued(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private enqueued(): void {
    for (const listener of this.listeners) listener();
  }

  /** Stores jobs in one statement; resolves with the ids of those stored (not of those dropped as duplicates). */
  async enqueue(jobs: JobInput | JobInput[]): Promise<number[]> {
    const list = Array.isArray(jobs) ? jobs : [jobs];
    if (list.length === 0) return [];
    const rows = await this.db.query<{ id: string | number }>(`${INSERT_JOBS(`from ${JOB_ROWS('$1')}`)} returning id`, [jobsParameter(list)]);
    if (rows.length > 0) this.enqueued();
    return rows.map((row) => Number(row.id));
  }

  /**
   * Runs a statement built by statementWithJobs (its jobs the parameter it names), and wakes the
   * workers when it enqueued any. Resolves with its rows, `queued` left out. `db`: the claim's
   * batches run on the database itself, their callers each behind the guard.
   */
  async change<Row>(text: string, params: unknown[], db: Queryable = this.db): Promise<Row[]> {
    const rows = await db.query<Row & { queued: number }>(text, params);
    if (rows.some((row) => row.queued > 0)) this.enqueued();
    return rows.map(({ queued: _, ...row }) => row as Row);
  }

  /**
   * Leases up to `limit` due jobs of `kinds` to the attempt `token` for `leaseMs`: FOR UPDATE SKIP
   * LOCKED, so concurrent claims (of any instance) never take the same job.
   */
  async claim(kinds: string[], limit: number, leaseMs: number, token: string): Promise<ClaimedJob[]> {
    const rows = await this.db.query<{ id: string | number; kind: string; payload: unknown; attempts: number; created_at: Date | string }>(
      `with next as (
         select id from jobs
         where done_at is null and failed_at is null and run_at <= now()
           and (locked_until is null or locked_until < now())
           and kind in (select jsonb_array_elements_text($1::jsonb))
         order by run_at, id
         limit $2
         for update skip locked
       )
       update jobs set locked_until = now() + $3 * interval '1 millisecond', locked_by = $4, attempts = jobs.attempts + 1
       from next where jobs.id = next.id
       returning jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.created_at`,
      [JSON.stringify(kinds), limit, leaseMs, token],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind,
      payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
      attempts: row.attempts,
      createdAt: asDate(row.created_at),
      token,
    }));
  }

  /** Records the attempt `token` of job `id` as done (nothing when another attempt holds it now). */
  async finish(id: number, token: string): Promise<void> {
    await this.db.query(`update jobs set done_at = now(), locked_until = null, locked_by = null, last_error = null where id = $1 and locked_by = $2`, [
      id,
      token,
    ]);
  }

  /** Hands a job back unfinished and uncounted (its attempt was cut short by a shutdown): due now, for any instance. */
  async handBack(id: number, token: string): Promise<void> {
    await this.db.query(
      `update jobs set locked_until = null, locked_by = null, attempts = greatest(attempts - 1, 0), run_at = now() where id = $1 and locked_by = $2`,
      [id, token],
    );
  }

  /**
   * Records a failed attempt: the job is given up when `permanent` or when it was enqueued at least
   * `retryWindowMs` ago, and otherwise due again in `delayMs`. Undefined when another attempt holds it now.
   */
  async fail(
    id: number,
    token: string,
    failure: { error: string; permanent: boolean; retryWindowMs: number; delayMs: number },
  ): Promise<{ failed: boolean } | undefined> {
    const [row] = await this.db.query<{ failed: boolean }>(
      `update jobs set last_error = $3, locked_until = null, locked_by = null,
         failed_at = case when $4::boolean or created_at <= now() - $5 * interval '1 millisecond' then now() end,
         run_at = now() + $6 * interval '1 millisecond'
       where id = $1 and locked_by = $2
       returning failed_at is not null as failed`,
      [id, token, failure.error, failure.permanent, failure.retryWindowMs, failure.delayMs],
    );
    return row;
  }

  /**
   * Deletes up to 5,000 jobs done more than `keepDoneMs` ago and as many failed more than
   * `keepFailedMs` ago, oldest first, each read through its own partial index (jobs_done_idx,
   * jobs_failed_idx): the cost follows the rows deleted, not the jobs kept.
   */
  async purge(keepDoneMs: number, keepFailedMs: number): Promise<void> {
    await this.db.query(
      `delete from jobs where id in (
         (select id from jobs where done_at < now() - $1 * interval '1 millisecond' order by done_at limit 5000)
         union all
         (select id from jobs where failed_at < now() - $2 * interval '1 millisecond' order by failed_at limit 5000))`,
      [keepDoneMs, keepFailedMs],
    );
  }

  /** A page of deliveries of job kind `kind`, newest first; `status` 'pending' includes those being sent. */
  async deliveries(kind: string, filter: { status?: 'pending' | 'delivered' | 'failed'; beforeId?: number }, limit: number): Promise<Delivery[]> {
    const rows = await this.db.query<DeliveryRowOut>(
      `select ${DELIVERY_COLUMNS} from jobs
       where kind = $1 and ($2::bigint is null or id < $2)
         and ($3::text is null
           or ($3 = 'delivered' and done_at is not null)
           or ($3 = 'failed' and failed_at is not null)
           or ($3 = 'pending' and done_at is null and failed_at is null))
       order by jobs.id desc limit $4`,
      [kind, filter.beforeId ?? null, filter.status ?? null, limit],
    );
    return rows.map(toDelivery);
  }

  /**
   * Makes a delivery due now: a failed one is tried again, a delivered one is sent again (same
   * webhook-id, so a receiver can tell). One being sent at this moment is left to that attempt.
   * Undefined when no delivery has this id.
   */
  async retryDelivery(kind: string, id: number): Promise<Delivery | undefined> {
    const [row] = await this.db.query<DeliveryRowOut>(
      `with retried as (
         update jobs set run_at = now(), failed_at = null, done_at = null
         where id = $1 and kind = $2 and (locked_until is null or locked_until <= now())
         returning *
       )
       select ${DELIVERY_COLUMNS} from retried
       union all
       select ${DELIVERY_COLUMNS} from jobs where id = $1 and kind = $2 and not exists (select 1 from retried)`,
      [id, kind],
    );
    if (row) this.enqueued();
    return row && toDelivery(row);
  }
}
