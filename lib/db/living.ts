// Storage of living passes: device registrations (Apple's PassKit web service), which version of a
// pass its stored .pkpass was built for, and whether its Google Wallet object exists. Every rule
// that could race is one statement: one registration per device and pass (the primary key), and a
// rebuilt file replaces the stored one only if it was built for the pass's current version.
//
// A pass's version is its updated_at, carried between statements as microseconds since the epoch
// in text: a JavaScript Date would drop the microseconds PostgreSQL keeps, and two versions within
// one millisecond would look alike.
import type { Queryable } from './store';

/** updated_at as whole microseconds since the epoch (text), the form versions and tags take. */
const VERSION_OF = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;
/** The instant of a version given as microseconds text. */
const AT_VERSION = (param: string) => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;

export type LivingPass = {
  serialNumber: string;
  publicKey: string;
  walletType: string;
  claimedAt: Date;
  status: 'active' | 'voided';
  voidReason: string | null;
  expiresAt: Date | null;
  relevantAt: Date | null;
  /** updated_at in microseconds (text). */
  version: string;
  authTokenHash: string | null;
  pkpass: Buffer | null;
  etag: string | null;
  /** The version the stored file was built for (null: none, or built before passes lived). */
  builtFor: string | null;
  /** The file's Last-Modified (whole seconds). */
  modifiedAt: Date | null;
  /** When Google's API confirmed the pass's Generic object exists. */
  googleObjectAt: Date | null;
  /** When a save link was first handed out (the object may exist then, made by Google on save). */
  googleLinkedAt: Date | null;
};

const LIVING_COLUMNS = `serial_number as "serialNumber", public_key as "publicKey", wallet_type as "walletType",
  claimed_at as "claimedAt", status, void_reason as "voidReason", expires_at as "expiresAt", relevant_at as "relevantAt",
  ${VERSION_OF('updated_at')} as version, auth_token_hash as "authTokenHash", pkpass, pkpass_etag as etag,
  case when pkpass_built_for is null then null else ${VERSION_OF('pkpass_built_for')} end as "builtFor",
  pkpass_modified_at as "modifiedAt", google_object_at as "googleObjectAt", google_linked_at as "googleLinkedAt"`;

const asDate = (value: Date | string | null): Date | null => (value === null ? null : value instanceof Date ? value : new Date(value));

function livingPass(row: LivingPass): LivingPass {
  return {
    ...row,
    claimedAt: asDate(row.claimedAt)!,
    expiresAt: asDate(row.expiresAt),
    relevantAt: asDate(row.relevantAt),
    modifiedAt: asDate(row.modifiedAt),
    googleObjectAt: asDate(row.googleObjectAt),
    googleLinkedAt: asDate(row.googleLinkedAt),
    pkpass: row.pkpass && Buffer.from(row.pkpass),
  };
}

export type Registration = { deviceLibraryIdentifier: string; pushToken: string };

/** The named queries of living passes, each under the store's availability guard (503 when the database is down). */
export class LivingStore {
  /** `sql`: the store's guarded statements (`store.sql`). */
  constructor(private readonly sql: Queryable) {}

  private run<T>(operation: (database: Queryable) => Promise<T>): Promise<T> {
    return operation(this.sql);
  }

  passBySerial(serialNumber: string): Promise<LivingPass | undefined> {
    return this.run(async (db) => {
      const [row] = await db.query<LivingPass>(`select ${LIVING_COLUMNS} from passes where serial_number = $1`, [serialNumber]);
      return row && livingPass(row);
    });
  }

  passByDownloadIdHash(downloadIdHash: string): Promise<LivingPass | undefined> {
    return this.run(async (db) => {
      const [row] = await db.query<LivingPass>(`select ${LIVING_COLUMNS} from passes where download_id_hash = $1`, [downloadIdHash]);
      return row && livingPass(row);
    });
  }

  /**
   * Keeps a file built for `version` if that is still the pass's version and no file of it is
   * stored yet; either way returns what is stored now. Its Last-Modified is the version's second,
   * or one second past the previous file's when that is later: If-Modified-Since has whole
   * seconds, and two versions within one second must not share a date (the second would be
   * answered 304 to a device holding the first).
   */
  saveFile(serialNumber: string, version: string, file: { pkpass: Buffer; etag: string; authTokenHash: string }): Promise<LivingPass> {
    return this.run(async (db) => {
      await db.query(
        `update passes set pkpass = $3, pkpass_etag = $4, auth_token_hash = coalesce(auth_token_hash, $5),
           pkpass_built_for = updated_at,
           pkpass_modified_at = greatest(date_trunc('second', updated_at), coalesce(pkpass_modified_at + interval '1 second', '-infinity'))
         where serial_number = $1 and updated_at = ${AT_VERSION('$2')}
           and (pkpass_built_for is null or pkpass_built_for <> updated_at or pkpass is null)`,
        [serialNumber, version, file.pkpass, file.etag, file.authTokenHash],
      );
      const [row] = await db.query<LivingPass>(`select ${LIVING_COLUMNS} from passes where serial_number = $1`, [serialNumber]);
      if (!row) throw new Error('pass vanished while its file was saved');
      return livingPass(row);
    });
  }

  /** Registers a device for a pass; `created` false when it already was (its push token is updated). */
  register(deviceLibraryIdentifier: string, serialNumber: string, pushToken: string, now: Date): Promise<{ created: boolean }> {
    return this.run(async (db) => {
      // xmax is 0 on a row this statement inserted, and the updating transaction's id otherwise.
      const [row] = await db.query<{ created: boolean }>(
        `insert into device_registrations (device_library_identifier, serial_number, push_token, created_at)
         values ($1, $2, $3, $4)
         on conflict (device_library_identifier, serial_number) do update set push_token = excluded.push_token
         returning (xmax = 0) as created`,
        [deviceLibraryIdentifier, serialNumber, pushToken, now.toISOString()],
      );
      return { created: row!.created };
    });
  }

  /** Removes a registration; false when there was none. */
  unregister(deviceLibraryIdentifier: string, serialNumber: string): Promise<boolean> {
    return this.run(async (db) => {
      const rows = await db.query(
        `delete from device_registrations where device_library_identifier = $1 and serial_number = $2 returning 1`,
        [deviceLibraryIdentifier, serialNumber],
      );
      return rows.length > 0;
    });
  }

  /**
   * The device's passes changed after `since` (microseconds text; all of them when undefined), and
   * the latest version among them: the next tag.
   */
  serialsUpdatedSince(deviceLibraryIdentifier: string, since: string | undefined): Promise<{ serialNumbers: string[]; lastUpdated: string | undefined }> {
    return this.run(async (db) => {
      const rows = await db.query<{ serialNumber: string; version: string }>(
        `select p.serial_number as "serialNumber", ${VERSION_OF('p.updated_at')} as version
         from device_registrations r join passes p on p.serial_number = r.serial_number
         where r.device_library_identifier = $1 and ($2::text is null or p.updated_at > ${AT_VERSION('$2')})
         order by p.serial_number`,
        [deviceLibraryIdentifier, since ?? null],
      );
      const lastUpdated = rows.reduce<string | undefined>((max, row) => (max === undefined || BigInt(row.version) > BigInt(max) ? row.version : max), undefined);
      return { serialNumbers: rows.map((row) => row.serialNumber), lastUpdated };
    });
  }

  registrationsOf(serialNumber: string): Promise<Registration[]> {
    return this.run((db) =>
      db.query<Registration>(
        `select device_library_identifier as "deviceLibraryIdentifier", push_token as "pushToken"
         from device_registrations where serial_number = $1 order by created_at, device_library_identifier`,
        [serialNumber],
      ),
    );
  }

  /**
   * Removes a registration whose push token APNs called gone, unless the device registered again
   * with another token meanwhile.
   */
  removeGoneRegistration(deviceLibraryIdentifier: string, serialNumber: string, pushToken: string): Promise<boolean> {
    return this.run(async (db) => {
      const rows = await db.query(
        `delete from device_registrations where device_library_identifier = $1 and serial_number = $2 and push_token = $3 returning 1`,
        [deviceLibraryIdentifier, serialNumber, pushToken],
      );
      return rows.length > 0;
    });
  }

  /** Records that the pass's Google Wallet object exists (`created`), or only that a save link carrying it whole was handed out. */
  markGoogle(serialNumber: string, at: Date, created: boolean): Promise<void> {
    return this.run(async (db) => {
      await db.query(
        `update passes set google_linked_at = coalesce(google_linked_at, $2),
           google_object_at = case when $3::boolean then coalesce(google_object_at, $2) else google_object_at end
         where serial_number = $1`,
        [serialNumber, at.toISOString(), created],
      );
    });
  }
}
