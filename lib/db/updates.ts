// The `updates` and `update_batches` tables (lib/updates): every statement on them. An update is
// made in the statement of the program change or message that causes it (NEW_UPDATE_CTES, in
// ./programs.ts changeProgram), with its planning job. Planning cuts the program's devices into
// batches in one statement (every batch's row and job, and the update marked planned, or none).
// A batch's outcomes are recorded in one statement that marks it done only if it was not yet,
// and only then moves the counters, removes the registrations whose token is gone and enqueues
// the retry: however often a batch runs, each device is counted once. The statement that finds
// the update's last batch done (or planning over with every batch done) finishes it and enqueues
// `update.finished`, so the event is sent once.
import type { JobInput, Jobs } from './jobs';
import { jobsParameter, statementWithJobs } from './jobs';
import { uninstallsCounted } from './registrations';
import { asDate, asOptionalDate, onlyRow, type Queryable } from './sql';

export type UpdateKind = 'change' | 'message';
export type UpdateStatus = 'running' | 'done';

/** An update as operators read it. */
export type Update = {
  id: string;
  program: string;
  kind: UpdateKind;
  status: UpdateStatus;
  passes: number;
  devicesTotal: number;
  devicesPushed: number;
  devicesFailed: number;
  startedAt: Date;
  finishedAt: Date | null;
};

/** What the fan-out reads of an update. */
export type UpdateProgress = Update & { activeOnly: boolean; planned: boolean };

/** The update a change makes, as its statement takes it (one jsonb parameter). */
export type NewUpdate = { id: string; kind: UpdateKind; activeOnly: boolean };

/** A batch of an update: a range of devices in keyset order, or a retry's own list. */
export type UpdateBatch = {
  key: string;
  afterSerial: string | null;
  afterDevice: string | null;
  lastSerial: string | null;
  lastDevice: string | null;
  devices: number;
  retry: BatchDevice[] | null;
  attempt: number;
  doneAt: Date | null;
};

export type BatchDevice = { serialNumber: string; deviceLibraryIdentifier: string; pushToken: string };

// Until planned, the count made with the update stands; after, planned + each batch's delta is exact.
const UPDATE_COLUMNS = `u.id, u.program, u.kind, u.status, u.passes,
  (case when u.planned then u.devices_planned + u.devices_delta
        else greatest(u.devices_estimate, u.devices_planned + u.devices_delta) end)::int as "devicesTotal",
  u.devices_pushed as "devicesPushed", u.devices_failed as "devicesFailed", u.started_at as "startedAt", u.finished_at as "finishedAt"`;

const PROGRESS_COLUMNS = `${UPDATE_COLUMNS}, u.active_only as "activeOnly", u.planned`;

type UpdateRowOut = Omit<Update, 'startedAt' | 'finishedAt'> & { startedAt: Date | string; finishedAt: Date | string | null };

const toUpdate = <Row extends UpdateRowOut>(row: Row): Omit<Row, 'startedAt' | 'finishedAt'> & { startedAt: Date; finishedAt: Date | null } => ({
  ...row,
  devicesTotal: Number(row.devicesTotal),
  startedAt: asDate(row.startedAt),
  finishedAt: asOptionalDate(row.finishedAt),
});

/**
 * The CTEs that make an update in a program change's statement (./programs.ts), after its
 * `changed` CTE (the program's row, `slug`): `param` is a NewUpdate as jsonb, or null for a change
 * that makes none. Its passes and devices are counted as the statement sees them.
 */
export const NEW_UPDATE_CTES = (param: string) => `new_update as (
    insert into updates (id, program, kind, active_only, passes, devices_estimate, started_at)
    select nu.id, c.slug, nu.kind, nu.active_only,
      (select count(*) from passes p where p.program = c.slug and (not nu.active_only or p.status = 'active'))::int,
      (select count(*) from device_registrations r join passes p on p.serial_number = r.serial_number
        where p.program = c.slug and (not nu.active_only or p.status = 'active'))::int,
      now()
    from changed c cross join jsonb_to_record(${param}::jsonb) as nu(id text, kind text, active_only boolean)
    where ${param}::jsonb is not null
    returning id, passes, devices_estimate
  )`;

/** The parameter of NEW_UPDATE_CTES. */
export const newUpdateParameter = (update: NewUpdate | undefined): string | null =>
  update ? JSON.stringify({ id: update.id, kind: update.kind, active_only: update.activeOnly }) : null;

export async function findUpdate(db: Queryable, id: string): Promise<Update | undefined> {
  const [row] = await db.query<UpdateRowOut>(`select ${UPDATE_COLUMNS} from updates u where u.id = $1`, [id]);
  return row && toUpdate(row);
}

export async function findUpdateProgress(db: Queryable, id: string): Promise<UpdateProgress | undefined> {
  const [row] = await db.query<UpdateRowOut & Omit<UpdateProgress, keyof Update>>(`select ${PROGRESS_COLUMNS} from updates u where u.id = $1`, [id]);
  return row && toUpdate(row);
}

/** The newest updates first (of one program, when given). */
export async function listUpdates(db: Queryable, filter: { program?: string }, limit: number): Promise<Update[]> {
  const rows = await db.query<UpdateRowOut>(
    `select ${UPDATE_COLUMNS} from updates u where ($1::text is null or u.program = $1) order by u.started_at desc, u.id desc limit $2`,
    [filter.program ?? null, limit],
  );
  return rows.map(toUpdate);
}

/**
 * The finished event: `finished` is its job (a webhook delivery) with devicesPushed and
 * devicesFailed filled in from the update's final counts by the statement that finishes it.
 */
const FINISHED_EVENT_CTE = (from: string, param: string) => `finished_events as (
    insert into jobs (kind, payload, run_at)
    select j.kind,
      jsonb_set(jsonb_set(j.payload, '{data,devicesPushed}', to_jsonb(f.devices_pushed)), '{data,devicesFailed}', to_jsonb(f.devices_failed)),
      now()
    from ${from} f cross join jsonb_to_recordset(${param}::jsonb) as j(kind text, payload jsonb)
    where f.status = 'done'
    returning 1
  )`;

/**
 * Plans an update in one statement: its program's devices, in keyset order (serial, device), cut
 * into batches of `perBatch` (each a range: after one key, up to another), each batch with its
 * job, and the update marked planned; done here when it has no device. The devices are numbered
 * inside the database (one sort of their keys): none is loaded here, and each batch reads its own
 * range when it runs. A no-op when the update is planned already (this job ran before).
 */
export async function planUpdate(
  jobs: Jobs,
  updateId: string,
  perBatch: number,
  batchJobKind: string,
  finished: JobInput[],
): Promise<{ batches: number; done: boolean }> {
  const rows = await jobs.change<{ batches: number; done: boolean }>(
    `with u as (select * from updates where id = $1 and not planned for update),
     devs as (
       select r.serial_number as s, r.device_library_identifier as d,
         row_number() over (order by r.serial_number, r.device_library_identifier) as n, count(*) over () as total
       from u join passes p on p.program = u.program and (not u.active_only or p.status = 'active')
       join device_registrations r on r.serial_number = p.serial_number
     ),
     ends as (select s, d, n from devs where n % $2 = 0 or n = total),
     cuts as (
       select s, d, lag(s, 1, '') over (order by n) as after_s, lag(d, 1, '') over (order by n) as after_d,
         (n - coalesce(lag(n) over (order by n), 0))::int as devices, row_number() over (order by n) - 1 as seq
       from ends
     ),
     batches as (
       insert into update_batches (update_id, key, after_serial, after_device, last_serial, last_device, devices)
       select $1, 'r' || c.seq, c.after_s, c.after_d, c.s, c.d, c.devices from cuts c where exists (select 1 from u)
       returning key
     ),
     batch_jobs as (
       insert into jobs (kind, payload, run_at)
       select $3, jsonb_build_object('update', $1::text, 'batch', key), now() from batches
       returning 1
     ),
     ended as (
       update updates x set planned = true,
         batches = x.batches + (select count(*) from cuts)::int,
         devices_planned = coalesce((select max(total) from devs), 0)::int,
         status = case when x.batches_done = x.batches + (select count(*) from cuts) then 'done' else x.status end,
         finished_at = case when x.batches_done = x.batches + (select count(*) from cuts) then now() else x.finished_at end
       from u where x.id = u.id
       returning x.*
     ),
     ${FINISHED_EVENT_CTE('ended', '$4')}
     select (select count(*) from batches)::int as batches, exists (select 1 from ended where status = 'done') as done,
       (select count(*) from batch_jobs)::int as queued`,
    [updateId, perBatch, batchJobKind, jobsParameter(finished)],
  );
  return onlyRow(rows, 'planUpdate');
}

export async function findBatch(db: Queryable, updateId: string, key: string): Promise<UpdateBatch | undefined> {
  const [row] = await db.query<Omit<UpdateBatch, 'doneAt'> & { doneAt: Date | string | null }>(
    `select key, after_serial as "afterSerial", after_device as "afterDevice", last_serial as "lastSerial", last_device as "lastDevice",
       devices, retry, attempt, done_at as "doneAt"
     from update_batches where update_id = $1 and key = $2`,
    [updateId, key],
  );
  if (!row) return undefined;
  const retry = typeof row.retry === 'string' ? (JSON.parse(row.retry) as BatchDevice[]) : row.retry;
  return { ...row, retry, doneAt: asOptionalDate(row.doneAt) };
}

/** What one run of a batch found. */
export type BatchOutcome = {
  pushed: number;
  /** Devices given up on: their token is gone (removed below), or the push kept failing. */
  failed: number;
  /** Devices read in the batch's range minus those planned in it (registrations made or removed since). */
  delta: number;
  /** Registrations to remove: APNs said their token is gone. Only one still holding that token is removed. */
  gone: BatchDevice[];
  /** The events of each removal, keyed `gone:<device>:<serial>`. */
  goneEvents: (JobInput & { key: string })[];
  /** The devices to push again later, as batch `key` with its job; none: no retry. */
  retry?: { key: string; devices: BatchDevice[]; attempt: number; job: JobInput };
  /** The update.finished event, enqueued if this batch is the update's last. */
  finished: JobInput[];
};

/**
 * Records a batch's outcomes, once: the batch is marked done only if it was not, and everything
 * else here happens only then. Resolves with whether this call recorded it, and whether it
 * finished the update.
 */
export async function recordBatch(jobs: Jobs, updateId: string, key: string, outcome: BatchOutcome): Promise<{ recorded: boolean; finished: boolean }> {
  const retry = outcome.retry;
  const rows = await jobs.change<{ recorded: boolean; finished: boolean }>(
    statementWithJobs({
      with: `batch as (
          update update_batches set done_at = now() where update_id = $1 and key = $2 and done_at is null returning update_id
        ),
        gone as (
          delete from device_registrations r
          using jsonb_to_recordset($3::jsonb) as g("serialNumber" text, "deviceLibraryIdentifier" text, "pushToken" text)
          where exists (select 1 from batch) and r.serial_number = g."serialNumber"
            and r.device_library_identifier = g."deviceLibraryIdentifier" and r.push_token = g."pushToken"
          returning r.serial_number, r.device_library_identifier
        ),
        ${uninstallsCounted('gone_counted', 'gone', 'now()')},
        counted as (
          update updates u set devices_pushed = devices_pushed + $4, devices_failed = devices_failed + $5, devices_delta = devices_delta + $6,
            batches = batches + $7, batches_done = batches_done + 1,
            status = case when planned and batches_done + 1 = batches + $7 then 'done' else status end,
            finished_at = case when planned and batches_done + 1 = batches + $7 then now() else finished_at end
          from batch where u.id = batch.update_id
          returning u.*
        ),
        retried as (
          insert into update_batches (update_id, key, devices, retry, attempt)
          select c.id, $8, jsonb_array_length($9::jsonb), $9::jsonb, $10 from counted c where $7 = 1
          returning key
        ),
        ${FINISHED_EVENT_CTE('counted', '$11')},
        changed as (
          select 'gone:' || device_library_identifier || ':' || serial_number as key from gone
          union all select 'retry' from retried
        )`,
      jobsParam: '$12',
      select: `select exists (select 1 from batch) as recorded, exists (select 1 from counted where status = 'done') as finished`,
    }),
    [
      updateId,
      key,
      JSON.stringify(outcome.gone),
      outcome.pushed,
      outcome.failed,
      outcome.delta,
      retry ? 1 : 0,
      retry?.key ?? '',
      JSON.stringify(retry?.devices ?? []),
      retry?.attempt ?? 1,
      jobsParameter(outcome.finished),
      jobsParameter([...outcome.goneEvents, ...(retry ? [{ ...retry.job, key: 'retry' }] : [])]),
    ],
  );
  return onlyRow(rows, 'recordBatch');
}
