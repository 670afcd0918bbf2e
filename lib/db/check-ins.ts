// The `check_ins` table: admissions at the door (lib/check-in), and every statement on it. The
// program's `checkIn` rule is its unique index on (serial_number, admission_key): an admission's
// key is `once`, the UTC day (`daily`) or a value of its own (`unlimited`), and the insert does
// nothing when the pass already has one with that key. The pass's state (voided, expired, its
// program) is read by the same statement that inserts, and its `pass.checked_in` job is written by
// it too: of two doors scanning one pass at once, on PGlite, PostgreSQL or several instances,
// exactly one inserts, and only that one enqueues an event.
import type { SerialNumber } from '../passes/ids';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { findPasses, type Pass } from './passes';
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
  /**
   * The jobs to enqueue, in the same statement, if the pass is admitted (its `pass.checked_in`
   * event), made from the pass as read just before; none, and no read, when this is undefined.
   */
  onAdmitted?: (pass: Pass) => JobInput[];
};

/** What the door's answer names of the pass. */
export type AdmittedPass = Pick<Pass, 'serialNumber' | 'program' | 'publicKey'>;

export type AdmissionOutcome =
  | { found: false }
  | {
      found: true;
      pass: AdmittedPass;
      refusal: Refusal | null;
      admitted: boolean;
      /** The admission this attempt is about: the new one, or the earlier one the rule counts (null if none is seen). */
      checkedInAt: Date | null;
      /** The pass's first admission ever (null: never admitted). */
      firstCheckInAt: Date | null;
    };

type Instant = Date | string;

/** The admission key under the rule `rule` (SQL) of an attempt at `now` (its UTC day for `daily`), `unique` for `unlimited`: SQL expressions. */
const ADMISSION_KEY = (rule: string, now: string, unique: string) =>
  `case ${rule} when 'daily' then to_char(${now}::timestamptz at time zone 'UTC', 'YYYY-MM-DD') when 'unlimited' then ${unique}::text else 'once' end`;

/**
 * Admits each attempt's pass if it is active, not past its expiration date (its own, else its
 * program's design's), of the door's program, and without an admission the program's rule counts;
 * and only then enqueues its `onAdmitted` jobs. One statement for every attempt (group commit,
 * Store.admit): the decision and the insert cannot be split by another door. At most one attempt
 * per pass: two in one INSERT … ON CONFLICT would not see each other (the Batcher keys by serial).
 * An attempt that wants its event's data costs one read of the passes beforehand, shared too.
 */
export async function admitAll(jobs: Jobs, db: Queryable, attempts: AdmissionAttempt[]): Promise<AdmissionOutcome[]> {
  const wanting = attempts.filter((attempt) => attempt.onAdmitted);
  const passes =
    wanting.length > 0
      ? await findPasses(
          db,
          wanting.map((attempt) => attempt.serialNumber),
        )
      : new Map<string, Pass>();
  const rows = await jobs.change<{
    i: number;
    serialNumber: string;
    program: string;
    publicKey: string;
    refusal: Refusal | null;
    admitted: boolean;
    checkedInAt: Instant | null;
    firstBefore: Instant | null;
    held: Instant | null;
  }>(
    statementWithJobs({
      with: `attempt as (
          select * from jsonb_to_recordset($1::jsonb) as a(i int, serial text, door text, now timestamptz, unique_key text, not_eligible text)
        ), pass as (
          select a.i, a.door, a.now, a.unique_key, a.not_eligible, p.serial_number, p.program, p.public_key, p.status, p.void_reason, g.check_in,
            coalesce(p.expires_at, (g.design->>'expirationDate')::timestamptz) as expires_at
          -- One primary-key probe per attempt, whatever the table's size. Joined plainly, the planner
          -- guesses 100 attempts and hashes the whole passes table for a batch of a dozen. LIMIT
          -- keeps the subquery from being flattened back into that join.
          from attempt a
          cross join lateral (select * from passes p where p.serial_number = a.serial limit 1) p
          join programs g on g.slug = p.program
        ), verdict as (
          select pass.*, ${ADMISSION_KEY('pass.check_in', 'pass.now', 'pass.unique_key')} as admission_key,
            case
              when pass.door is not null and pass.program <> pass.door then 'wrong_program'
              when pass.status = 'voided' and pass.void_reason = pass.not_eligible then 'not_eligible'
              when pass.status <> 'active' then 'voided'
              when pass.expires_at is not null and pass.expires_at <= pass.now then 'expired'
            end as refusal
          from pass
        ), changed as (
          insert into check_ins (serial_number, program, admission_key, checked_in_at)
          select v.serial_number, v.program, v.admission_key, v.now from verdict v where v.refusal is null
          on conflict (serial_number, admission_key) do nothing
          returning serial_number as key, checked_in_at
        )`,
      jobsParam: '$2',
      // The subqueries read the table as it was when the statement began: without this statement's rows.
      select: `select v.i, v.serial_number as "serialNumber", v.program, v.public_key as "publicKey", v.refusal,
          c.key is not null as admitted, c.checked_in_at as "checkedInAt",
          (select min(x.checked_in_at) from check_ins x where x.serial_number = v.serial_number) as "firstBefore",
          (select x.checked_in_at from check_ins x where x.serial_number = v.serial_number and x.admission_key = v.admission_key) as held
        from verdict v left join changed c on c.key = v.serial_number`,
    }),
    [
      JSON.stringify(
        attempts.map((attempt, i) => ({
          i,
          serial: attempt.serialNumber,
          door: attempt.door ?? null,
          now: attempt.now.toISOString(),
          unique_key: attempt.uniqueKey,
          not_eligible: attempt.notEligibleReason,
        })),
      ),
      jobsParameter(
        attempts.flatMap((attempt) => {
          const pass = passes.get(attempt.serialNumber);
          return pass && attempt.onAdmitted ? attempt.onAdmitted(pass).map((job) => ({ ...job, key: attempt.serialNumber })) : [];
        }),
      ),
    ],
    db,
  );
  const byAttempt = new Map(rows.map((row) => [Number(row.i), row]));
  return attempts.map((_, i): AdmissionOutcome => {
    const row = byAttempt.get(i);
    if (!row) return { found: false };
    const checkedInAt = asOptionalDate(row.checkedInAt);
    const firstBefore = asOptionalDate(row.firstBefore);
    return {
      found: true,
      pass: { serialNumber: row.serialNumber as SerialNumber, program: row.program, publicKey: row.publicKey },
      refusal: row.refusal,
      admitted: row.admitted,
      checkedInAt: row.admitted ? checkedInAt : asOptionalDate(row.held),
      firstCheckInAt: firstBefore ?? (row.admitted ? checkedInAt : null),
    };
  });
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
