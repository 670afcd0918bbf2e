// The `device_registrations` table (Apple's PassKit web service): every statement on it. One
// registration per device and pass is its primary key; a registration made or removed enqueues
// its events in the same statement (statementWithJobs), so the change and its events commit together.
import type { SerialNumber } from '../passes/ids';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { AT_VERSION, onlyRow, type Queryable, VERSION_OF } from './sql';

export type Registration = { deviceLibraryIdentifier: string; pushToken: string };

/**
 * Registers a device for a pass, and enqueues `jobs` if (and only if) the registration is new;
 * `created` false when it already was (its push token is updated).
 */
export async function register(
  jobs: Jobs,
  registration: { deviceLibraryIdentifier: string; serialNumber: SerialNumber; pushToken: string; now: Date },
  onCreated: JobInput[],
): Promise<{ created: boolean }> {
  // xmax is 0 on a row this statement inserted, and the updating transaction's id otherwise.
  const rows = await jobs.change<{ created: boolean }>(
    statementWithJobs({
      with: `upserted as (
          insert into device_registrations (device_library_identifier, serial_number, push_token, created_at)
          values ($1, $2, $3, $4)
          on conflict (device_library_identifier, serial_number) do update set push_token = excluded.push_token
          returning (xmax = 0) as created, serial_number
        ),
        changed as (select serial_number as key from upserted where created)`,
      jobsParam: '$5',
      select: `select exists (select 1 from changed) as created`,
    }),
    [
      registration.deviceLibraryIdentifier,
      registration.serialNumber,
      registration.pushToken,
      registration.now.toISOString(),
      jobsParameter(onCreated.map((job) => ({ ...job, key: registration.serialNumber }))),
    ],
  );
  return { created: onlyRow(rows, 'register').created };
}

/**
 * Removes a registration, and enqueues `jobs` if there was one; false when there was none. With
 * `pushToken`, only a registration with that token is removed: one whose token APNs called gone is
 * kept when the device registered again with another token meanwhile.
 */
export async function unregister(
  jobs: Jobs,
  registration: { deviceLibraryIdentifier: string; serialNumber: SerialNumber; pushToken?: string },
  onRemoved: JobInput[],
): Promise<boolean> {
  const rows = await jobs.change<{ removed: boolean }>(
    statementWithJobs({
      with: `changed as (
          delete from device_registrations
          where device_library_identifier = $1 and serial_number = $2 and ($3::text is null or push_token = $3)
          returning serial_number as key
        )`,
      jobsParam: '$4',
      select: `select exists (select 1 from changed) as removed`,
    }),
    [
      registration.deviceLibraryIdentifier,
      registration.serialNumber,
      registration.pushToken ?? null,
      jobsParameter(onRemoved.map((job) => ({ ...job, key: registration.serialNumber }))),
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

export function registrationsOf(db: Queryable, serialNumber: SerialNumber): Promise<Registration[]> {
  return db.query<Registration>(
    `select device_library_identifier as "deviceLibraryIdentifier", push_token as "pushToken"
     from device_registrations where serial_number = $1 order by created_at, device_library_identifier`,
    [serialNumber],
  );
}
