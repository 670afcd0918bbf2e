// Storage of the operator features: the operator's view of passes (with their device counts), the
// void and restore changes (each with its jobs, in the same statement), sessions, API keys,
// statistics and webhook deliveries. Plain parameterized SQL like store.ts, always through the
// store's availability guard (`store.sql`), so a database that is down is a 503 here too.
import type { Queryable } from './store';

/** A pass as operators see it. */
export type OperatorPass = {
  serialNumber: string;
  publicKey: string;
  walletType: string;
  claimedAt: Date;
  status: 'active' | 'voided';
  voidReason: string | null;
  updatedAt: Date;
  /** How many devices have it registered. */
  devices: number;
};

type PassRowOut = Omit<OperatorPass, 'claimedAt' | 'updatedAt' | 'devices'> & { claimedAt: Date | string; updatedAt: Date | string; devices: number | string };

/** The columns of OperatorPass from a row of passes aliased `p`. */
export const OPERATOR_PASS_COLUMNS = `p.serial_number as "serialNumber", p.public_key as "publicKey", p.wallet_type as "walletType",
  p.claimed_at as "claimedAt", p.status, p.void_reason as "voidReason", p.updated_at as "updatedAt",
  (select count(*) from device_registrations d where d.serial_number = p.serial_number)::int as devices`;

export const toOperatorPass = (row: PassRowOut): OperatorPass => ({
  ...row,
  claimedAt: new Date(row.claimedAt),
  updatedAt: new Date(row.updatedAt),
  devices: Number(row.devices),
});

/**
 * A job to enqueue with a pass change, its payload built by SQL from the changed row (`c`): the
 * change and its jobs are one statement, so both happen or neither.
 */
export type ChangeJob = { kind: string; payloadSql: string };

/**
 * Applies `set` to the pass when `when` holds, and enqueues `jobs` if it changed, in one statement.
 * updated_at always moves forward, even within one millisecond of the last change: devices ask
 * for "changed since" by it. Resolves with the pass after the change (or as it was, when
 * nothing changed), or undefined when no pass has that serial.
 */
export async function changePass(
  db: Queryable,
  serialNumber: string,
  change: { set: string; when: string; params: unknown[]; jobs: ChangeJob[] },
): Promise<{ pass: OperatorPass; changed: boolean } | undefined> {
  const jobsSql = change.jobs.length
    ? change.jobs.map((job) => `select '${job.kind.replace(/'/g, "''")}'::text as kind, ${job.payloadSql} as payload from changed c`).join(' union all ')
    : `select null::text as kind, null::jsonb as payload where false`;
  const rows = await db.query<PassRowOut & { changed: boolean }>(
    `with changed as (
       update passes set ${change.set}, updated_at = greatest(now(), updated_at + interval '1 millisecond')
       where serial_number = $1 and (${change.when})
       returning *
     ), queued as (
       insert into jobs (kind, payload) ${jobsSql}
       returning id
     )
     select ${OPERATOR_PASS_COLUMNS}, true as changed, (select count(*) from queued) as queued from changed p
     union all
     select ${OPERATOR_PASS_COLUMNS}, false, 0 from passes p where p.serial_number = $1 and not exists (select 1 from changed)`,
    [serialNumber, ...change.params],
  );
  const [row] = rows;
  if (!row) return undefined;
  const { changed, ...pass } = row as PassRowOut & { changed: boolean; queued?: unknown };
  delete (pass as { queued?: unknown }).queued;
  return { pass: toOperatorPass(pass), changed };
}

export async function findOperatorPass(db: Queryable, serialNumber: string): Promise<OperatorPass | undefined> {
  const [row] = await db.query<PassRowOut>(`select ${OPERATOR_PASS_COLUMNS} from passes p where p.serial_number = $1`, [serialNumber]);
  return row && toOperatorPass(row);
}
