// The tables of the eligibility re-checks: `eligibility_lease`, which lets one instance run a round
// at a time (row 1) and hold the PubSub subscriptions (row 2, SUBSCRIPTION_LEASE), and `eligibility_rounds`, the rounds' records (the passes a round reads: passes.ts).
// Plain parameterized SQL through the store's guarded `sql`, the same on PGlite and PostgreSQL.
import { asDate, asOptionalDate, onlyRow, type Queryable } from './sql';

export type RoundRecord = {
  id: number;
  startedAt: Date;
  finishedAt: Date | null;
  checked: number;
  voided: number;
  restored: number;
  /** Passes the round set out to check, counted when it started: `checked` of `total` is its progress. */
  total: number;
  /** RPC requests the round has sent so far. */
  requests: number;
  error: string | null;
};

/** What a round has done so far (written after each page, and when it ends). */
export type RoundCounts = { checked: number; voided: number; restored: number; requests: number; error: string | null };

/**
 * Takes the lease for `holder` when no instance holds it and no round began within
 * `intervalSeconds`: one conditional UPDATE of one row, so of instances trying at once exactly one
 * gets it (PostgreSQL re-checks the WHERE on the row it locked). A lease left by an instance that
 * died lapses after `leaseSeconds`.
 */
export async function takeRecheckLease(db: Queryable, holder: string, intervalSeconds: number, leaseSeconds: number): Promise<boolean> {
  await db.query(`insert into eligibility_lease (id, holder, lease_until) values (1, null, 'epoch') on conflict (id) do nothing`);
  const rows = await db.query<{ id: number }>(
    `update eligibility_lease set holder = $1, lease_until = now() + $3 * interval '1 second', last_started_at = now()
     where id = 1 and lease_until < now()
       and (last_started_at is null or last_started_at <= now() - $2 * interval '1 second')
     returning id`,
    [holder, intervalSeconds, leaseSeconds],
  );
  return rows.length === 1;
}

/** Keeps the lease while a long round goes on; false when another instance has taken it meanwhile. */
export async function renewRecheckLease(db: Queryable, holder: string, leaseSeconds: number): Promise<boolean> {
  const rows = await db.query<{ id: number }>(
    `update eligibility_lease set lease_until = now() + $2 * interval '1 second' where id = 1 and holder = $1 returning id`,
    [holder, leaseSeconds],
  );
  return rows.length === 1;
}

export async function releaseRecheckLease(db: Queryable, holder: string): Promise<void> {
  await db.query(`update eligibility_lease set holder = null, lease_until = now() where id = 1 and holder = $1`, [holder]);
}

/** The lease row of the subscriptions (lib/eligibility/subscriptions.ts); row 1 is the rounds'. */
const SUBSCRIPTION_LEASE = 2;

/**
 * Takes or keeps the subscriptions' lease for `holder`: granted when it lapsed or is already
 * `holder`'s, one conditional UPDATE so exactly one of several instances gets it. `gap` says that
 * another instance held it before (it died or handed over): changes made meanwhile went unseen.
 * The holder's name stays when released, so the next taker knows of the gap.
 */
export async function takeSubscriptionLease(db: Queryable, holder: string, leaseSeconds: number): Promise<{ held: boolean; gap: boolean }> {
  await db.query(`insert into eligibility_lease (id, holder, lease_until) values ($1, null, 'epoch') on conflict (id) do nothing`, [SUBSCRIPTION_LEASE]);
  const [seen] = await db.query<{ holder: string | null }>(`select holder from eligibility_lease where id = $1`, [SUBSCRIPTION_LEASE]);
  const previous = seen?.holder ?? null;
  // Compare and swap on the holder read: of instances trying at once, one changes the row and
  // the others find it changed (PostgreSQL re-checks the WHERE on the row it locked).
  const rows = await db.query<{ id: number }>(
    `update eligibility_lease set holder = $2, lease_until = now() + $3 * interval '1 second'
     where id = $1 and holder is not distinct from $4::text and (lease_until < now() or holder = $2)
     returning id`,
    [SUBSCRIPTION_LEASE, holder, leaseSeconds, previous],
  );
  const held = rows.length === 1;
  return { held, gap: held && previous !== null && previous !== holder };
}

/** Lets the subscriptions' lease lapse now, so another instance takes them at its next look. */
export async function releaseSubscriptionLease(db: Queryable, holder: string): Promise<void> {
  await db.query(`update eligibility_lease set lease_until = now() where id = $1 and holder = $2`, [SUBSCRIPTION_LEASE, holder]);
}

export async function startRound(db: Queryable, total: number): Promise<number> {
  const rows = await db.query<{ id: number | string }>(`insert into eligibility_rounds (started_at, total) values (now(), $1) returning id`, [total]);
  return Number(onlyRow(rows, 'startRound').id);
}

/** The round's progress so far, while it runs: what the operator endpoint shows of a round under way. */
export async function recordRoundProgress(db: Queryable, id: number, counts: RoundCounts): Promise<void> {
  await db.query(`update eligibility_rounds set checked = $2, voided = $3, restored = $4, requests = $5 where id = $1 and finished_at is null`, [
    id,
    counts.checked,
    counts.voided,
    counts.restored,
    counts.requests,
  ]);
}

export async function finishRound(db: Queryable, id: number, counts: RoundCounts): Promise<void> {
  await db.query(`update eligibility_rounds set finished_at = now(), checked = $2, voided = $3, restored = $4, requests = $5, error = $6 where id = $1`, [
    id,
    counts.checked,
    counts.voided,
    counts.restored,
    counts.requests,
    counts.error,
  ]);
}

export async function lastRound(db: Queryable): Promise<RoundRecord | undefined> {
  const [row] = await db.query<RoundRecord & { id: number | string; startedAt: Date | string; finishedAt: Date | string | null }>(
    `select id, started_at as "startedAt", finished_at as "finishedAt", checked, voided, restored, total, requests, error
     from eligibility_rounds order by started_at desc, id desc limit 1`,
  );
  return row && { ...row, id: Number(row.id), startedAt: asDate(row.startedAt), finishedAt: asOptionalDate(row.finishedAt) };
}

export async function allRounds(db: Queryable): Promise<RoundRecord[]> {
  const rows = await db.query<RoundRecord & { id: number | string; startedAt: Date | string; finishedAt: Date | string | null }>(
    `select id, started_at as "startedAt", finished_at as "finishedAt", checked, voided, restored, total, requests, error
     from eligibility_rounds order by id`,
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), startedAt: asDate(row.startedAt), finishedAt: asOptionalDate(row.finishedAt) }));
}
