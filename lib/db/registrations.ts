// The `device_registrations` table (Apple's PassKit web service): every statement on it. One
// registration per device and pass is its primary key; a registration made or removed enqueues
// its events in the same statement (statementWithJobs), so the change and its events commit together.
import type { SerialNumber } from '../passes/ids';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { AT_VERSION, onlyRow, type Queryable, VERSION_OF } from './sql';

export type Registration = { deviceLibraryIdentifier: string; pushToken: string };

/**
 * A CTE named `name` that adds the registrations made and ended by the rest of its statement to
 * `device_registration_days` (the stats' installs and uninstalls per UTC day and program): every
 * statement that inserts or deletes registrations includes one, so that the count commits with
 * the change. `rows` is a query of (serial_number, installs, uninstalls) integers, one row per
 * registration made (1, 0) or ended (0, 1); `at` a timestamptz expression (a parameter) of when.
 * One CTE per statement: two that upsert the same day's row in one statement would clash.
 */
export function registrationDaysCounted(name: string, rows: string, at: string): string {
  return `${name} as (
      insert into device_registration_days as d (day, program, installs, uninstalls)
      select (${at}::timestamptz at time zone 'UTC')::date, p.program, sum(r.installs)::int, sum(r.uninstalls)::int
      from (${rows}) r join passes p on p.serial_number = r.serial_number
      group by p.program
      having sum(r.installs) + sum(r.uninstalls) > 0
      on conflict (day, program) do update set installs = d.installs + excluded.installs, uninstalls = d.uninstalls + excluded.uninstalls
      returning 1
    )`;
}

/**
 * registrationDaysCounted for a statement that only removes registrations: `removed` names its
 * delete's CTE, which returns `serial_number`. E.g. registrations APNs called gone, in a batch:
 * `with gone as (delete from device_registrations where ... returning serial_number),
 * ${uninstallsCounted('gone_counted', 'gone', '$3')} select count(*) from gone`.
 */
export const uninstallsCounted = (name: string, removed: string, at: string): string =>
  registrationDaysCounted(name, `select serial_number, 0 as installs, 1 as uninstalls from ${removed}`, at);

/** Registrations made and ended on each UTC day (YYYY-MM-DD) since `since`: of every program, or of one. */
export async function registrationsByDay(
  db: Queryable,
  since: Date,
  program?: string,
): Promise<{ installs: Map<string, number>; uninstalls: Map<string, number> }> {
  const rows = await db.query<{ day: string; installs: number; uninstalls: number }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sum(installs)::int as installs, sum(uninstalls)::int as uninstalls
     from device_registration_days where day >= ($1::timestamptz at time zone 'UTC')::date and ($2::text is null or program = $2)
     group by day`,
    [since.toISOString(), program ?? null],
  );
  return {
    installs: new Map(rows.map((row) => [row.day, Number(row.installs)])),
    uninstalls: new Map(rows.map((row) => [row.day, Number(row.uninstalls)])),
  };
}

/**
 * Registers a device for a pass, and enqueues `onCreated` if (and only if) the registration is
 * new; `created` false when it already was (its push token is updated). The pass keeps at most
 * `devicesPerPass` devices: past it the oldest other registrations are removed by the same
 * statement, each with `onEvicted` (its deviceLibraryIdentifier and event id filled in per device).
 */
export async function register(
  jobs: Jobs,
  registration: { deviceLibraryIdentifier: string; serialNumber: SerialNumber; pushToken: string; now: Date },
  devicesPerPass: number,
  events: { onCreated: JobInput[]; onEvicted: JobInput[] },
): Promise<{ created: boolean; evicted: number }> {
  // xmax is 0 on a row this statement inserted, and the updating transaction's id otherwise. The
  // statement's snapshot does not show its own insert: the others are counted, and the newest
  // devicesPerPass - 1 of them kept. Whatever concurrent registrations of one pass leave above
  // the cap, the next registration of that pass trims.
  const rows = await jobs.change<{ created: boolean; evicted: number }>(
    statementWithJobs({
      with: `upserted as (
          insert into device_registrations (device_library_identifier, serial_number, push_token, created_at)
          values ($1, $2, $3, $4)
          on conflict (device_library_identifier, serial_number) do update set push_token = excluded.push_token
          returning (xmax = 0) as created, serial_number
        ),
        evicted as (
          delete from device_registrations
          where serial_number = $2 and device_library_identifier in (
            select device_library_identifier from device_registrations
            where serial_number = $2 and device_library_identifier <> $1
            order by created_at desc, device_library_identifier desc
            offset $6::int - 1
          )
          returning device_library_identifier, serial_number
        ),
        ${registrationDaysCounted(
          'counted',
          `select serial_number, created::int as installs, 0 as uninstalls from upserted
           union all select serial_number, 0, 1 from evicted`,
          '$4',
        )},
        evicted_events as (
          insert into jobs (kind, payload, run_at)
          select j.kind,
                 jsonb_set(jsonb_set(j.payload, '{data,deviceLibraryIdentifier}', to_jsonb(e.device_library_identifier)),
                   '{id}', to_jsonb('msg_' || rtrim(translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/', '-_'), '='))),
                 now()
          from evicted e cross join jsonb_to_recordset($7::jsonb) as j(kind text, payload jsonb)
          returning 1
        ),
        changed as (select serial_number as key from upserted where created)`,
      jobsParam: '$5',
      select: `select exists (select 1 from changed) as created, (select count(*) from evicted)::int as evicted`,
    }),
    [
      registration.deviceLibraryIdentifier,
      registration.serialNumber,
      registration.pushToken,
      registration.now.toISOString(),
      jobsParameter(events.onCreated.map((job) => ({ ...job, key: registration.serialNumber }))),
      devicesPerPass,
      jobsParameter(events.onEvicted),
    ],
  );
  return onlyRow(rows, 'register');
}

/**
 * Removes a registration (counted as an uninstall of `now`'s day), and enqueues `jobs` if there was one; false when there was none. With
 * `pushToken`, only a registration with that token is removed: one whose token APNs called gone is
 * kept when the device registered again with another token meanwhile.
 */
export async function unregister(
  jobs: Jobs,
  registration: { deviceLibraryIdentifier: string; serialNumber: SerialNumber; pushToken?: string; now?: Date },
  onRemoved: JobInput[],
): Promise<boolean> {
  const rows = await jobs.change<{ removed: boolean }>(
    statementWithJobs({
      with: `changed as (
          delete from device_registrations
          where device_library_identifier = $1 and serial_number = $2 and ($3::text is null or push_token = $3)
          returning serial_number as key
        ),
        ${registrationDaysCounted('counted', 'select key as serial_number, 0 as installs, 1 as uninstalls from changed', '$5')}`,
      jobsParam: '$4',
      select: `select exists (select 1 from changed) as removed`,
    }),
    [
      registration.deviceLibraryIdentifier,
      registration.serialNumber,
      registration.pushToken ?? null,
      jobsParameter(onRemoved.map((job) => ({ ...job, key: registration.serialNumber }))),
      (registration.now ?? new Date()).toISOString(),
    ],
  );
  return onlyRow(rows, 'unregister').removed;
}

/**
 * The device's passes changed after `since` (microseconds text; all of them when undefined), and
 * the latest version among them: the next tag.
 */
export async function serialsUpdatedSince(
  db: Queryable,
  deviceLibraryIdentifier: string,
  since: string | undefined,
): Promise<{ serialNumbers: SerialNumber[]; lastUpdated: string | undefined }> {
  const rows = await db.query<{ serialNumber: SerialNumber; version: string }>(
    `select p.serial_number as "serialNumber", ${VERSION_OF('p.updated_at')} as version
     from device_registrations r join passes p on p.serial_number = r.serial_number
     where r.device_library_identifier = $1 and ($2::text is null or p.updated_at > ${AT_VERSION('$2')})
     order by p.serial_number`,
    [deviceLibraryIdentifier, since ?? null],
  );
  const lastUpdated = rows.reduce<string | undefined>((max, row) => (max === undefined || BigInt(row.version) > BigInt(max) ? row.version : max), undefined);
  return { serialNumbers: rows.map((row) => row.serialNumber), lastUpdated };
}

/**
 * The pass's newest `limit` registrations (DEVICES_PER_PASS): registrations racing each other can
 * leave more rows for a moment (each statement sees the table as it started; the next one trims
 * them), and a change never pushes more devices than the cap.
 */
export function registrationsOf(db: Queryable, serialNumber: SerialNumber, limit: number): Promise<Registration[]> {
  return db.query<Registration>(
    `select device_library_identifier as "deviceLibraryIdentifier", push_token as "pushToken"
     from device_registrations where serial_number = $1 order by created_at desc, device_library_identifier limit $2`,
    [serialNumber, limit],
  );
}

/** Where an update is in its program's devices: the keyset (serial number, device), '' before the first. */
export type DeviceKey = { serial: string; device: string };

/** Which devices an update reaches: those of the program's passes (active ones only, for a message). */
export type ProgramDevices = { program: string; activeOnly: boolean };

/** A device of an update's batch, with what an event says of its pass. */
export type BatchRegistration = {
  serialNumber: SerialNumber;
  deviceLibraryIdentifier: string;
  pushToken: string;
  publicKey: string;
  program: string;
  walletType: string;
};

/**
 * The devices of a program in the keyset range (after, last]: one batch of an update, read when it
 * runs. The program's passes in the range's serials come first (passes_program_serial_number_idx),
 * then their devices: the cost follows the batch, not the program nor the other programs.
 */
export function devicesOfProgramBetween(db: Queryable, of: ProgramDevices, after: DeviceKey, last: DeviceKey): Promise<BatchRegistration[]> {
  return db.query<BatchRegistration>(
    `select r.serial_number as "serialNumber", r.device_library_identifier as "deviceLibraryIdentifier", r.push_token as "pushToken",
       p.public_key as "publicKey", p.program, p.wallet_type as "walletType"
     from passes p join device_registrations r on r.serial_number = p.serial_number
     where p.program = $1 and p.serial_number >= $3 and p.serial_number <= $5 and (not $2::boolean or p.status = 'active')
       and (r.serial_number, r.device_library_identifier) > ($3, $4) and (r.serial_number, r.device_library_identifier) <= ($5, $6)
     order by r.serial_number, r.device_library_identifier`,
    [of.program, of.activeOnly, after.serial, after.device, last.serial, last.device],
  );
}

/** The registrations among `devices` that still exist, with their current token: a retry batch of an update. */
export function registrationsAmong(db: Queryable, devices: { serialNumber: string; deviceLibraryIdentifier: string }[]): Promise<BatchRegistration[]> {
  return db.query<BatchRegistration>(
    `select r.serial_number as "serialNumber", r.device_library_identifier as "deviceLibraryIdentifier", r.push_token as "pushToken",
       p.public_key as "publicKey", p.program, p.wallet_type as "walletType"
     from jsonb_to_recordset($1::jsonb) as d("serialNumber" text, "deviceLibraryIdentifier" text)
     join device_registrations r on r.serial_number = d."serialNumber" and r.device_library_identifier = d."deviceLibraryIdentifier"
     join passes p on p.serial_number = r.serial_number
     order by r.serial_number, r.device_library_identifier`,
    [JSON.stringify(devices.map(({ serialNumber, deviceLibraryIdentifier }) => ({ serialNumber, deviceLibraryIdentifier })))],
  );
}
