// The `check_ins` table: admissions at the door (lib/check-in), and every statement on it. The
// program's `checkIn` rule is its unique index on (serial_number, admission_key): an admission's
// key is `once`, the UTC day (`daily`) or a value of its own (`unlimited`), and the insert does
// nothing when the pass already has one with that key. The pass's state (voided, expired, its
// program) is read by the same statement that inserts, and its `pass.checked_in` job is written by
// it too: of two doors scanning one pass at once, on PGlite, PostgreSQL or several instances,
// exactly one inserts, and only that one enqueues an event.
import type { SerialNumber } from '../passes/ids';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { asOptionalDate, type Queryable } from './sql';

/** Why a pass the statement found is not admitted (null: it may be, by the rule). */
export type Refusal = 'voided' | 'not_eligible' | 'expired' | 'wrong_program';

export type AdmissionAttempt = {
  serialNumber: SerialNumber;
  /** The door's program: a pass of another is refused (undefined: any program). */
  door?: string;
  now: Date;
  /** The void reason of passes voided by an eligibility re-check (lib/eligibility/recheck.ts). */
  notEligibleReason: string;
  /** A value no other admission has: the key of an admission to an `unlimited` program. */
  uniqueKey: string;
  /** Enqueued only if the pass is admitted, in the same statement: its `pass.checked_in` event. */
  onAdmitted: JobInput[];
};

export type AdmissionOutcome =
  | { found: false }
  | {
      found: true;
      refusal: Refusal | null;
      admitted: boolean;
      /** The admission this attempt is about: the new one, or the earlier one the rule counts (null if none is seen). */
      checkedInAt: Date | null;
      /** The pass's first admission ever (null: never admitted). */
      firstCheckInAt: Date | null;
    };

type Instant = Date | string;

/** The admission key under the rule `rule` (SQL) of an attempt at `now` (its UTC day for `daily`), `unique` for `unlimited`: placeholders. */
const ADMISSION_KEY = (rule: string, now: string, unique: string) =>
  `case ${rule} when 'daily' then to_char(${now}::timestamptz at time zone 'UTC', 'YYYY-MM-DD') when 'unlimited' then ${unique}::text else 'once' end`;

/**
 * Admits the pass if it is active, not past its expiration date (its own, else its program's
 * design's), of the door's program, and without an admission the program's rule counts; and only
 * then enqueues `onAdmitted`. One statement: the decision and the insert cannot be split by another door.
 */
export async function admit(jobs: Jobs, attempt: AdmissionAttempt): Promise<AdmissionOutcome> {
  const rows = await jobs.change<{
    refusal: Refusal | null;
    admitted: boolean;
    checkedInAt: Instant | null;
    firstBefore: Instant | null;
    held: Instant | null;
  }>(
    statementWithJobs({
      with: `pass as (
          select p.serial_number, p.program, p.status, p.void_reason, g.check_in,
            coalesce(p.expires_at, (g.design->>'expirationDate')::timestamptz) as expires_at
          from passes p join programs g on g.slug = p.program
          where p.serial_number = $1
        ), verdict as (
          select pass.*, ${ADMISSION_KEY('pass.check_in', '$3', '$5')} as admission_key,
            case
              when $2::text is not null and pass.program <> $2 then 'wrong_program'
              when pass.status = 'voided' and pass.void_reason = $4 then 'not_eligible'
              when pass.status <> 'active' then 'voided'
              when pass.expires_at is not null and pass.expires_at <= $3::timestamptz then 'expired'
            end as refusal
          from pass
        ), changed as (
          insert into check_ins (serial_number, program, admission_key, checked_in_at)
          select v.serial_number, v.program, v.admission_key, $3::timestamptz from verdict v where v.refusal is null
          on conflict (serial_number, admission_key) do nothing
          returning serial_number as key, checked_in_at
        )`,
      jobsParam: '$6',
      // The subqueries read the table as it was when the statement began: without this attempt's row.
      select: `select v.refusal,
          exists (select 1 from changed) as admitted,
          (select c.checked_in_at from changed c) as "checkedInAt",
          (select min(c.checked_in_at) from check_ins c where c.serial_number = v.serial_number) as "firstBefore",
          (select c.checked_in_at from check_ins c where c.serial_number = v.serial_number and c.admission_key = v.admission_key) as held
        from verdict v`,
    }),
    [
      attempt.serialNumber,
      attempt.door ?? null,
      attempt.now.toISOString(),
      attempt.notEligibleReason,
      attempt.uniqueKey,
      jobsParameter(attempt.onAdmitted.map((job) => ({ ...job, key: attempt.serialNumber }))),
    ],
  );
  const [row] = rows;
  if (!row) return { found: false };
  const checkedInAt = asOptionalDate(row.checkedInAt);
  const firstBefore = asOptionalDate(row.firstBefore);
  return {
    found: true,
    refusal: row.refusal,
    admitted: row.admitted,
    checkedInAt: row.admitted ? checkedInAt : asOptionalDate(row.held),
    firstCheckInAt: firstBefore ?? (row.admitted ? checkedInAt : null),
  };
}

/**
 * The pass's admission under the key its program's rule gives at `now`, and its first admission:
 * read anew, for an attempt that lost to another door's admission committed after it began.
 */
export async function admissionsOf(db: Queryable, serialNumber: SerialNumber, now: Date): Promise<{ held: Date | null; first: Date | null }> {
  const [row] = await db.query<{ held: Instant | null; first: Instant | null }>(
    // An `unlimited` program's admissions never conflict: its key here matches none.
    `select (select c.checked_in_at from check_ins c
         where c.serial_number = p.serial_number and c.admission_key = ${ADMISSION_KEY('g.check_in', '$2', 'null')}) as held,
       (select min(c.checked_in_at) from check_ins c where c.serial_number = p.serial_number) as first
     from passes p join programs g on g.slug = p.program
     where p.serial_number = $1`,
    [serialNumber, now.toISOString()],
  );
  return { held: asOptionalDate(row?.held), first: asOptionalDate(row?.first) };
}

/** Admissions per UTC day since `since`, of every program or of one. */
export async function checkInsByDay(db: Queryable, since: Date, program?: string): Promise<Map<string, number>> {
  const rows = await db.query<{ day: string; count: number }>(
    `select to_char(checked_in_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
     from check_ins where checked_in_at >= $1 and ($2::text is null or program = $2) group by 1`,
    [since.toISOString(), program ?? null],
  );
  return new Map(rows.map((row) => [row.day, Number(row.count)]));
}
