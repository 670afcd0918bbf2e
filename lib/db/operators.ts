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
  /** Set by an operator: when the pass expires (lib/passes/lifecycle.ts, updatePassDates). */
  expirationDate: Date | null;
  /** Set by an operator: when Apple Wallet brings the pass forward. */
  relevantDate: Date | null;
  updatedAt: Date;
  /** How many devices have it registered. */
  devices: number;
};

type Instant = Date | string;
type PassRowOut = Omit<OperatorPass, 'claimedAt' | 'updatedAt' | 'expirationDate' | 'relevantDate' | 'devices'> & {
  claimedAt: Instant;
  updatedAt: Instant;
  expirationDate: Instant | null;
  relevantDate: Instant | null;
  devices: number | string;
};

/** The columns of OperatorPass from a row of passes aliased `p`. */
export const OPERATOR_PASS_COLUMNS = `p.serial_number as "serialNumber", p.public_key as "publicKey", p.wallet_type as "walletType",
  p.claimed_at as "claimedAt", p.status, p.void_reason as "voidReason", p.expires_at as "expirationDate",
  p.relevant_at as "relevantDate", p.updated_at as "updatedAt",
  (select count(*) from device_registrations d where d.serial_number = p.serial_number)::int as devices`;

export const toOperatorPass = (row: PassRowOut): OperatorPass => ({
  ...row,
  claimedAt: new Date(row.claimedAt),
  updatedAt: new Date(row.updatedAt),
  expirationDate: row.expirationDate === null ? null : new Date(row.expirationDate),
  relevantDate: row.relevantDate === null ? null : new Date(row.relevantDate),
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
     select ${OPERATOR_PASS_COLUMNS}, true as changed from changed p
     union all
     select ${OPERATOR_PASS_COLUMNS}, false from passes p where p.serial_number = $1 and not exists (select 1 from changed)`,
    [serialNumber, ...change.params],
  );
  const [row] = rows;
  if (!row) return undefined;
  // (A data-modifying CTE runs whether or not the query reads it: the jobs are inserted.)
  const { changed, ...pass } = row;
  return { pass: toOperatorPass(pass), changed };
}

export async function findOperatorPass(db: Queryable, serialNumber: string): Promise<OperatorPass | undefined> {
  const [row] = await db.query<PassRowOut>(`select ${OPERATOR_PASS_COLUMNS} from passes p where p.serial_number = $1`, [serialNumber]);
  return row && toOperatorPass(row);
}

const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const asOptionalDate = (value: Date | string | null): Date | null => (value === null ? null : asDate(value));

// ---- Sign-in messages of operators (purpose 'operator') and sessions ----

export type OperatorMessage = { publicKey: string; message: string; expiresAt: Date; usedAt: Date | null };

export async function insertOperatorMessage(
  db: Queryable,
  message: { nonceHash: string; publicKey: string; message: string; issuedAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `insert into sign_in_messages (nonce_hash, public_key, message, issued_at, expires_at, purpose) values ($1, $2, $3, $4, $5, 'operator')`,
    [message.nonceHash, message.publicKey, message.message, message.issuedAt.toISOString(), message.expiresAt.toISOString()],
  );
}

/** An operator message by its nonce hash; a claim message is never returned. */
export async function findOperatorMessage(db: Queryable, nonceHash: string): Promise<OperatorMessage | undefined> {
  const [row] = await db.query<{ publicKey: string; message: string; expiresAt: Date | string; usedAt: Date | string | null }>(
    `select public_key as "publicKey", message, expires_at as "expiresAt", used_at as "usedAt"
     from sign_in_messages where nonce_hash = $1 and purpose = 'operator'`,
    [nonceHash],
  );
  return row && { ...row, expiresAt: asDate(row.expiresAt), usedAt: asOptionalDate(row.usedAt) };
}

/**
 * Uses an operator message and opens its session, in one statement: of concurrent submissions of
 * one message exactly one opens a session. False when the message was used or expired meanwhile.
 */
export async function openSession(
  db: Queryable,
  params: { nonceHash: string; publicKey: string; now: Date; tokenHash: string; expiresAt: Date },
): Promise<boolean> {
  const [row] = await db.query<{ opened: boolean }>(
    `with used as (
       update sign_in_messages set used_at = $3
       where nonce_hash = $1 and public_key = $2 and purpose = 'operator' and used_at is null and expires_at > $3
       returning public_key
     ), opened as (
       insert into operator_sessions (token_hash, public_key, created_at, expires_at)
       select $4, public_key, $3, $5 from used
       returning 1
     )
     select exists (select 1 from opened) as opened`,
    [params.nonceHash, params.publicKey, params.now.toISOString(), params.tokenHash, params.expiresAt.toISOString()],
  );
  return row!.opened;
}

export type SessionRow = { tokenHash: string; publicKey: string; expiresAt: Date };

export async function findSessionByHash(db: Queryable, hash: string, now: Date): Promise<SessionRow | undefined> {
  const [row] = await db.query<{ tokenHash: string; publicKey: string; expiresAt: Date | string }>(
    `select token_hash as "tokenHash", public_key as "publicKey", expires_at as "expiresAt"
     from operator_sessions where token_hash = $1 and revoked_at is null and expires_at > $2`,
    [hash, now.toISOString()],
  );
  return row && { ...row, expiresAt: asDate(row.expiresAt) };
}

export async function revokeSession(db: Queryable, hash: string, now: Date): Promise<void> {
  await db.query(`update operator_sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null`, [hash, now.toISOString()]);
}

/** Deletes sessions that ended (expired or revoked) before `before`. */
export async function purgeEndedSessions(db: Queryable, before: Date): Promise<void> {
  await db.query(`delete from operator_sessions where expires_at < $1 or revoked_at < $1`, [before.toISOString()]);
}

// ---- API keys ----

export type ApiKeyInfo = { id: string; name: string | null; createdBy: string; createdAt: Date; lastUsedAt: Date | null };

type ApiKeyRowOut = { id: string; name: string | null; createdBy: string; createdAt: Date | string; lastUsedAt: Date | string | null };

const API_KEY_COLUMNS = `id, name, created_by as "createdBy", created_at as "createdAt", last_used_at as "lastUsedAt"`;
const toApiKey = (row: ApiKeyRowOut): ApiKeyInfo => ({ ...row, createdAt: asDate(row.createdAt), lastUsedAt: asOptionalDate(row.lastUsedAt) });

export async function insertApiKey(db: Queryable, key: { id: string; keyHash: string; name: string | null; createdBy: string; createdAt: Date }): Promise<void> {
  await db.query(`insert into operator_api_keys (id, key_hash, name, created_by, created_at) values ($1, $2, $3, $4, $5)`, [
    key.id,
    key.keyHash,
    key.name,
    key.createdBy,
    key.createdAt.toISOString(),
  ]);
}

/** The live key with this hash, its last use recorded in the same statement. */
export async function findApiKeyByHash(db: Queryable, hash: string, now: Date): Promise<ApiKeyInfo | undefined> {
  const [row] = await db.query<ApiKeyRowOut>(
    `update operator_api_keys set last_used_at = $2 where key_hash = $1 and revoked_at is null returning ${API_KEY_COLUMNS}`,
    [hash, now.toISOString()],
  );
  return row && toApiKey(row);
}

/** The keys not revoked, newest first. */
export async function listApiKeys(db: Queryable): Promise<ApiKeyInfo[]> {
  const rows = await db.query<ApiKeyRowOut>(`select ${API_KEY_COLUMNS} from operator_api_keys where revoked_at is null order by created_at desc, id`);
  return rows.map(toApiKey);
}

/** Revokes a key: 'revoked' (now or before), or 'unknown'. */
export async function revokeApiKey(db: Queryable, id: string, now: Date): Promise<'revoked' | 'unknown'> {
  const [row] = await db.query<{ found: boolean }>(
    `with revoked as (update operator_api_keys set revoked_at = coalesce(revoked_at, $2) where id = $1 returning 1)
     select exists (select 1 from revoked) as found`,
    [id, now.toISOString()],
  );
  return row!.found ? 'revoked' : 'unknown';
}

// ---- Passes, as operators list them, and statistics ----

export type PassFilter = { publicKey?: string; serial?: string; status?: 'active' | 'voided' };
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
  const rows = await db.query<PassRowOut & { position: string }>(
    `select ${OPERATOR_PASS_COLUMNS}, p.claimed_at::text as position
     from passes p
     where ($1::text is null or p.public_key = $1)
       and ($2::text is null or p.serial_number = $2)
       and ($3::text is null or p.status = $3)
       and ($4::timestamptz is null or (p.claimed_at, p.serial_number) < ($4::timestamptz, $5::text))
     order by p.claimed_at desc, p.serial_number desc
     limit $6`,
    [filter.publicKey ?? null, filter.serial ?? null, filter.status ?? null, after?.claimedAt ?? null, after?.serialNumber ?? null, limit],
  );
  return rows.map(({ position, ...row }) => ({ pass: toOperatorPass(row), position: { claimedAt: position, serialNumber: row.serialNumber } }));
}

export type PassStats = { passes: number; active: number; voided: number; devicesRegistered: number; claimsByDay: Map<string, number> };

/** Counts, and claims per UTC day since `since`. */
export async function passStats(db: Queryable, since: Date): Promise<PassStats> {
  const [totals] = await db.query<{ passes: number; active: number; voided: number; devices: number }>(
    `select count(*)::int as passes,
            count(*) filter (where status = 'active')::int as active,
            count(*) filter (where status = 'voided')::int as voided,
            (select count(*) from device_registrations)::int as devices
     from passes`,
  );
  const days = await db.query<{ day: string; count: number }>(
    `select to_char(claimed_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
     from passes where claimed_at >= $1 group by 1`,
    [since.toISOString()],
  );
  return {
    passes: totals!.passes,
    active: totals!.active,
    voided: totals!.voided,
    devicesRegistered: totals!.devices,
    claimsByDay: new Map(days.map((row) => [row.day, Number(row.count)])),
  };
}

// ---- Webhook deliveries: the queue's jobs of kind 'webhook' ----

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

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

/** A page of deliveries of job kind `kind`, newest first; `status` 'pending' includes those being sent. */
export async function listDeliveries(
  db: Queryable,
  kind: string,
  filter: { status?: 'pending' | 'delivered' | 'failed'; beforeId?: number },
  limit: number,
): Promise<Delivery[]> {
  const rows = await db.query<DeliveryRowOut>(
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
export async function retryDelivery(db: Queryable, kind: string, id: number): Promise<Delivery | undefined> {
  const [row] = await db.query<DeliveryRowOut>(
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
  return row && toDelivery(row);
}
