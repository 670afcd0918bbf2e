// The `passes` table: its row type, its one column list, and every statement on it but the claim's
// insert (one statement with the message it uses: lib/db/claims.ts). Every rule that could race is
// one statement: a change applies only to the version of the pass it was computed from, and a
// rebuilt file is recorded only if it was built for the pass's current version. The file's bytes
// are never stored (they hold the pass's authentication token): only what a rebuild needs to give
// the same bytes again, its Last-Modified (the signing time), and its ETag.
//
// A pass's version is its updated_at as microseconds since the epoch in text (sql.ts, VERSION_OF).
import type { SerialNumber } from '../passes/ids';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { AT_VERSION, asDate, asOptionalDate, onlyRow, type Queryable, VERSION_OF } from './sql';

export type PassStatus = 'active' | 'voided';

/** A row of `passes`. */
export type Pass = {
  serialNumber: SerialNumber;
  /** SHA-256 (hex) of the download id: what /download looks up. */
  downloadIdHash: string;
  publicKey: string;
  /** The program's slug. */
  program: string;
  walletType: string;
  claimedAt: Date;
  status: PassStatus;
  /** Why it was voided (an operator's words, or `not_eligible`); null while active. */
  voidReason: string | null;
  /** Set by an operator: after it, Wallet shows the pass as expired and the scanner check refuses it (column expires_at). */
  expirationDate: Date | null;
  /** Set by an operator: when Wallet brings the pass forward (column relevant_at). */
  relevantDate: Date | null;
  updatedAt: Date;
  /** updated_at in whole microseconds (text): exact, where updatedAt is rounded to the millisecond. */
  version: string;
  authTokenHash: string | null;
  pkpassEtag: string | null;
  /** The version the recorded file was built for (null: none, or built before passes lived). */
  pkpassBuiltFor: string | null;
  /** The file's Last-Modified and the signing time in its signature (whole seconds). */
  pkpassModifiedAt: Date | null;
  /** The file format the recorded file was built in (lib/passes/living.ts, PASS_FILE_FORMAT); null: before formats were numbered. */
  pkpassFormat: number | null;
  /** When Google's API confirmed the pass's Generic object exists. */
  googleObjectAt: Date | null;
  /** When a save link was first handed out (the object may exist then, made by Google on save). */
  googleLinkedAt: Date | null;
};

/** What a claim stores of a new pass (the other columns take their defaults). */
export type NewPass = Pick<Pass, 'serialNumber' | 'downloadIdHash' | 'publicKey' | 'program' | 'walletType' | 'claimedAt'>;

/** The columns of Pass, from a row of passes aliased `p`. */
const PASS_COLUMNS = `p.serial_number as "serialNumber", p.download_id_hash as "downloadIdHash", p.public_key as "publicKey", p.program,
  p.wallet_type as "walletType", p.claimed_at as "claimedAt", p.status, p.void_reason as "voidReason",
  p.expires_at as "expirationDate", p.relevant_at as "relevantDate", p.updated_at as "updatedAt", ${VERSION_OF('p.updated_at')} as version,
  p.auth_token_hash as "authTokenHash", p.pkpass_etag as "pkpassEtag",
  case when p.pkpass_built_for is null then null else ${VERSION_OF('p.pkpass_built_for')} end as "pkpassBuiltFor",
  p.pkpass_modified_at as "pkpassModifiedAt", p.pkpass_format as "pkpassFormat",
  p.google_object_at as "googleObjectAt", p.google_linked_at as "googleLinkedAt"`;

type Instant = Date | string;
type PassRowOut = Omit<Pass, 'claimedAt' | 'expirationDate' | 'relevantDate' | 'updatedAt' | 'pkpassModifiedAt' | 'googleObjectAt' | 'googleLinkedAt'> & {
  claimedAt: Instant;
  expirationDate: Instant | null;
  relevantDate: Instant | null;
  updatedAt: Instant;
  pkpassModifiedAt: Instant | null;
  googleObjectAt: Instant | null;
  googleLinkedAt: Instant | null;
};

const toPass = (row: PassRowOut): Pass => ({
  ...row,
  claimedAt: asDate(row.claimedAt),
  expirationDate: asOptionalDate(row.expirationDate),
  relevantDate: asOptionalDate(row.relevantDate),
  updatedAt: asDate(row.updatedAt),
  pkpassModifiedAt: asOptionalDate(row.pkpassModifiedAt),
  googleObjectAt: asOptionalDate(row.googleObjectAt),
  googleLinkedAt: asOptionalDate(row.googleLinkedAt),
});

/** How a pass is looked up: by its public serial, or by the hash of its secret download id. */
export type PassKey = { serialNumber: SerialNumber } | { downloadIdHash: string };

const keyCondition = (key: PassKey) =>
  'serialNumber' in key ? { where: 'p.serial_number = $1', value: key.serialNumber } : { where: 'p.download_id_hash = $1', value: key.downloadIdHash };

export async function findPass(db: Queryable, key: PassKey): Promise<Pass | undefined> {
  const { where, value } = keyCondition(key);
  const [row] = await db.query<PassRowOut>(`select ${PASS_COLUMNS} from passes p where ${where}`, [value]);
  return row && toPass(row);
}

/** The passes of these serial numbers that exist, by serial number: one statement for all. */
export async function findPasses(db: Queryable, serialNumbers: SerialNumber[]): Promise<Map<string, Pass>> {
  const rows = await db.query<PassRowOut>(`select ${PASS_COLUMNS} from passes p where p.serial_number = any($1::text[])`, [serialNumbers]);
  return new Map(rows.map((row) => [row.serialNumber, toPass(row)]));
}

/** The pass of a wallet in a program (one per wallet per program: the unique key on (program, public_key)). */
export async function findPassOfWallet(db: Queryable, program: string, publicKey: string): Promise<Pass | undefined> {
  const [row] = await db.query<PassRowOut>(`select ${PASS_COLUMNS} from passes p where p.program = $1 and p.public_key = $2`, [program, publicKey]);
  return row && toPass(row);
}

/**
 * Points a pass's download lookup at a newly derived id: for a pass whose stored hash is not
 * that of the id derived under the current key (claimed before download ids were derived, or
 * under another DOWNLOAD_ID_KEY). Called only for its wallet, after a verified signature.
 */
export async function setDownloadIdHash(db: Queryable, serialNumber: SerialNumber, downloadIdHash: string): Promise<void> {
  await db.query(`update passes set download_id_hash = $2 where serial_number = $1`, [serialNumber, downloadIdHash]);
}

/**
 * Records a file built for `version` in `format` if that is still the pass's version and no file of
 * it in that format is recorded yet; either way returns the pass as it is now. `lastModified` is the
 * one the file was signed with: passFileLastModified() of the pass as read.
 */
export async function savePassFile(
  db: Queryable,
  serialNumber: SerialNumber,
  version: string,
  file: { etag: string; lastModified: Date; authTokenHash: string; format: number },
): Promise<Pass> {
  await db.query(
    `update passes set pkpass_etag = $3, pkpass_modified_at = $4, auth_token_hash = coalesce(auth_token_hash, $5), pkpass_built_for = updated_at,
       pkpass_format = $6
     where serial_number = $1 and updated_at = ${AT_VERSION('$2')}
       and (pkpass_built_for is null or pkpass_built_for <> updated_at or pkpass_format is distinct from $6)`,
    [serialNumber, version, file.etag, file.lastModified.toISOString(), file.authTokenHash, file.format],
  );
  const pass = await findPass(db, { serialNumber });
  if (!pass) throw new Error('pass vanished while its file was saved');
  return pass;
}

/**
 * The Last-Modified of the next file of a pass: its version's second, or one second past the
 * previous file's when that is later. If-Modified-Since has whole seconds, and two versions within
 * one second must not share a date (the second would be answered 304 to a device holding the first).
 */
export function passFileLastModified(pass: Pick<Pass, 'version' | 'pkpassModifiedAt'>): Date {
  const versionSecond = Number(BigInt(pass.version) / 1_000_000n) * 1000;
  return new Date(Math.max(versionSecond, pass.pkpassModifiedAt ? pass.pkpassModifiedAt.getTime() + 1000 : versionSecond));
}

/**
 * Records the ETag of a rebuilt file of the recorded version, when it differs from the recorded one
 * (the same pass built under other settings: another signing certificate, PUBLIC_BASE_URL).
 */
export async function savePassFileEtag(db: Queryable, serialNumber: SerialNumber, version: string, etag: string, format: number): Promise<void> {
  await db.query(
    `update passes set pkpass_etag = $3 where serial_number = $1 and updated_at = ${AT_VERSION('$2')} and pkpass_built_for = updated_at and pkpass_format = $4`,
    [serialNumber, version, etag, format],
  );
}

/** Records that the pass's Google Wallet object exists (`created`), or only that a save link carrying it whole was handed out. */
export async function markGoogle(db: Queryable, serialNumber: SerialNumber, at: Date, created: boolean): Promise<void> {
  await db.query(
    `update passes set google_linked_at = coalesce(google_linked_at, $2),
       google_object_at = case when $3::boolean then coalesce(google_object_at, $2) else google_object_at end
     where serial_number = $1`,
    [serialNumber, at.toISOString(), created],
  );
}

// ---- Changes of a pass after its claim (lib/passes/lifecycle.ts) ----

/** The columns a change sets; those left out keep their value. */
export type PassPatch = Partial<Pick<Pass, 'status' | 'voidReason' | 'expirationDate' | 'relevantDate'>>;

/** What the row must hold for the change to apply (beyond being the version it was computed from). */
export type PassCondition = { status?: PassStatus; voidReason?: string };

/**
 * Applies `patch` to the pass if it is still at `version` (the pass the caller read), `require`
 * holds, and the patch changes something; and, only then, enqueues `jobs`, in the same statement.
 * updated_at always moves forward, even within one millisecond of the last change: devices ask
 * for "changed since" by it. Resolves with the pass after the statement and whether it changed;
 * `moved` when the pass had another version by then (the caller reads it again and retries), and
 * undefined when no pass has that serial.
 */
export async function changePass(
  jobs: Jobs,
  change: { serialNumber: SerialNumber; version: string; patch: PassPatch; require?: PassCondition; jobs: JobInput[] },
): Promise<{ pass: OperatorPass; changed: boolean; moved: boolean } | undefined> {
  const { serialNumber, patch } = change;
  const rows = await jobs.change<OperatorPassRowOut & { changed: boolean }>(
    statementWithJobs({
      with: `patch as (select $3::jsonb as j),
        next as (
          select p.serial_number,
            case when j ? 'status' then j->>'status' else p.status end as status,
            case when j ? 'voidReason' then j->>'voidReason' else p.void_reason end as void_reason,
            case when j ? 'expirationDate' then (j->>'expirationDate')::timestamptz else p.expires_at end as expires_at,
            case when j ? 'relevantDate' then (j->>'relevantDate')::timestamptz else p.relevant_at end as relevant_at
          from passes p, patch where p.serial_number = $1
        ),
        changed as (
          update passes p set status = n.status, void_reason = n.void_reason, expires_at = n.expires_at, relevant_at = n.relevant_at,
            updated_at = greatest(now(), p.updated_at + interval '1 millisecond')
          from next n
          where p.serial_number = n.serial_number and p.updated_at = ${AT_VERSION('$2')}
            and ($4::text is null or p.status = $4) and ($5::text is null or p.void_reason = $5)
            and (p.status, p.void_reason, p.expires_at, p.relevant_at) is distinct from (n.status, n.void_reason, n.expires_at, n.relevant_at)
          returning p.*, p.serial_number as key
        )`,
      jobsParam: '$6',
      select: `select ${OPERATOR_PASS_COLUMNS}, true as changed from changed p
        union all
        select ${OPERATOR_PASS_COLUMNS}, false from passes p where p.serial_number = $1 and not exists (select 1 from changed)`,
    }),
    [
      serialNumber,
      change.version,
      JSON.stringify(patch),
      change.require?.status ?? null,
      change.require?.voidReason ?? null,
      jobsParameter(change.jobs.map((job) => ({ ...job, key: serialNumber }))),
    ],
  );
  const [row] = rows;
  if (!row) return undefined;
  const { changed, ...pass } = row;
  return { pass: toOperatorPass(pass), changed, moved: !changed && pass.version !== change.version };
}

// ---- The operator's view of passes ----

/** A pass as operators see it: never its download id hash nor its file's. */
export type OperatorPass = Pick<
  Pass,
  'serialNumber' | 'publicKey' | 'program' | 'walletType' | 'claimedAt' | 'status' | 'voidReason' | 'expirationDate' | 'relevantDate' | 'updatedAt'
> & {
  /** How many devices have it registered. */
  devices: number;
};

type OperatorPassRowOut = PassRowOut & { devices: number | string };

/** PASS_COLUMNS and the pass's device count. */
const OPERATOR_PASS_COLUMNS = `${PASS_COLUMNS},
  (select count(*) from device_registrations d where d.serial_number = p.serial_number)::int as devices`;

/** The operator's fields, in the order the API answers them. */
const toOperatorPass = (row: OperatorPassRowOut): OperatorPass => {
  const pass = toPass(row);
  return {
    serialNumber: pass.serialNumber,
    publicKey: pass.publicKey,
    program: pass.program,
    walletType: pass.walletType,
    claimedAt: pass.claimedAt,
    status: pass.status,
    voidReason: pass.voidReason,
    expirationDate: pass.expirationDate,
    relevantDate: pass.relevantDate,
    updatedAt: pass.updatedAt,
    devices: Number(row.devices),
  };
};

export async function findOperatorPass(db: Queryable, serialNumber: SerialNumber): Promise<OperatorPass | undefined> {
  const [row] = await db.query<OperatorPassRowOut>(`select ${OPERATOR_PASS_COLUMNS} from passes p where p.serial_number = $1`, [serialNumber]);
  return row && toOperatorPass(row);
}

export type PassFilter = { publicKey?: string; serial?: string; status?: PassStatus; program?: string };
/**
 * Where a page ends: the last pass's claim time as PostgreSQL prints it (exact to the microsecond,
 * with its offset, which a Date would round) and its serial.
 */
export type PassPosition = { claimedAt: string; serialNumber: string };

/**
 * A page of passes, newest claim first (ties by serial number): a stable order, so a pass
 * claimed while an operator pages through is never seen twice nor makes another skip.
 */
export async function listPasses(
  db: Queryable,
  filter: PassFilter,
  after: PassPosition | undefined,
  limit: number,
): Promise<{ pass: OperatorPass; position: PassPosition }[]> {
  const rows = await db.query<OperatorPassRowOut & { position: string }>(
    `select ${OPERATOR_PASS_COLUMNS}, p.claimed_at::text as position
     from passes p
     where ($1::text is null or p.public_key = $1)
       and ($2::text is null or p.serial_number = $2)
       and ($3::text is null or p.status = $3)
       and ($4::timestamptz is null or (p.claimed_at, p.serial_number) < ($4::timestamptz, $5::text))
       and ($7::text is null or p.program = $7)
     order by p.claimed_at desc, p.serial_number desc
     limit $6`,
    [
      filter.publicKey ?? null,
      filter.serial ?? null,
      filter.status ?? null,
      after?.claimedAt ?? null,
      after?.serialNumber ?? null,
      limit,
      filter.program ?? null,
    ],
  );
  return rows.map(({ position, ...row }) => ({ pass: toOperatorPass(row), position: { claimedAt: position, serialNumber: row.serialNumber } }));
}

export type PassStats = { passes: number; active: number; voided: number; devicesRegistered: number; claimsByDay: Map<string, number> };

/** Counts, and claims per UTC day since `since`: of every program, or of one. */
export async function passStats(db: Queryable, since: Date, program?: string): Promise<PassStats> {
  const totalRows = await db.query<{ passes: number; active: number; voided: number; devices: number }>(
    `select count(*)::int as passes,
            count(*) filter (where status = 'active')::int as active,
            count(*) filter (where status = 'voided')::int as voided,
            (select count(*) from device_registrations d
              where $1::text is null or d.serial_number in (select serial_number from passes where program = $1))::int as devices
     from passes where $1::text is null or program = $1`,
    [program ?? null],
  );
  const days = await db.query<{ day: string; count: number }>(
    `select to_char(claimed_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
     from passes where claimed_at >= $1 and ($2::text is null or program = $2) group by 1`,
    [since.toISOString(), program ?? null],
  );
  const totals = onlyRow(totalRows, 'passStats');
  return {
    passes: totals.passes,
    active: totals.active,
    voided: totals.voided,
    devicesRegistered: totals.devices,
    claimsByDay: new Map(days.map((row) => [row.day, Number(row.count)])),
  };
}

// ---- The eligibility re-check's reading (lib/eligibility/recheck.ts) ----

/** A pass a round checks: active, or voided by an earlier round (never one an operator voided). */
export type RecheckPass = Pick<Pass, 'serialNumber' | 'publicKey' | 'status'>;

/**
 * The next page of one program's passes to check, after `afterPublicKey`, in wallet order: a keyset
 * on the (program, public_key) unique index, so each page reads only that program's passes and
 * stays stable while passes change (one pass per wallet per program).
 */
export async function passesToRecheck(db: Queryable, program: string, afterPublicKey: string, limit: number, voidReason: string): Promise<RecheckPass[]> {
  return db.query<RecheckPass>(
    `select serial_number as "serialNumber", public_key as "publicKey", status from passes
     where program = $1 and public_key > $2 and (status = 'active' or (status = 'voided' and void_reason = $4))
     order by public_key limit $3`,
    [program, afterPublicKey, limit, voidReason],
  );
}

/**
 * The passes of these wallets in these programs that a round would check (active, or voided as
 * `voidReason`), for re-checking holders one by one (a transfer seen by a subscription). Reads
 * the (program, public_key) unique index.
 */
export async function passesOfWalletsToRecheck(
  db: Queryable,
  programs: string[],
  publicKeys: string[],
  voidReason: string,
): Promise<(RecheckPass & { program: string })[]> {
  if (programs.length === 0 || publicKeys.length === 0) return [];
  return db.query<RecheckPass & { program: string }>(
    `select serial_number as "serialNumber", public_key as "publicKey", status, program from passes
     where program = any($1::text[]) and public_key = any($2::text[]) and (status = 'active' or (status = 'voided' and void_reason = $3))
     order by program, public_key`,
    [programs, publicKeys, voidReason],
  );
}

/** How many of one program's passes a round checks (active, or voided as `voidReason`): the round's total. */
export async function countPassesToRecheck(db: Queryable, program: string, voidReason: string): Promise<number> {
  const [row] = await db.query<{ n: number | string }>(
    `select count(*)::int as n from passes where program = $1 and (status = 'active' or (status = 'voided' and void_reason = $2))`,
    [program, voidReason],
  );
  return Number(row?.n ?? 0);
}

/**
 * Pages of a program's passes that have (or may have) a Google Wallet object, in serial order
 * (keyset; active ones only with `activeOnly`): what an update syncs with Google.
 */
export async function googleLinkedSerialsOfProgram(db: Queryable, program: string, activeOnly: boolean, afterSerial: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ serialNumber: string }>(
    `select serial_number as "serialNumber" from passes
     where program = $1 and google_linked_at is not null and (not $2::boolean or status = 'active') and serial_number > $3
     order by serial_number limit $4`,
    [program, activeOnly, afterSerial, limit],
  );
  return rows.map((row) => row.serialNumber);
}
