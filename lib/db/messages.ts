// The `sign_in_messages` table and its per-key cap, `wallet_pending`: the messages this service
// issued, inserted in batches by the store, for claims (purpose 'claim') and for operator sessions
// (purpose 'operator', under their own nonce hash: lib/operators/sessions.ts). One key's messages
// of both purposes count against one cap. A message is used
// by the statement that creates what it was for: a pass (passes.ts, claimPasses) or a session
// (sessions.ts, openSession).
import type { SignInMessageRow } from './schema';
import { asDate, asOptionalDate, type Queryable } from './sql';

/** purpose: 'claim' or 'operator' (what the message may be used for). */
export type NewMessage = Omit<SignInMessageRow, 'usedAt'>;

export type InsertOutcome = { inserted: true } | { inserted: false; retryAfterSeconds: number };

/**
 * The inits of one batch (one per key) in one statement. The key's wallet_pending row is the
 * cap: its upsert takes the row's lock, so concurrent inits of one key (here or on another
 * instance) run one after the other, each seeing the latest entries. Expired entries are
 * dropped, and the message's own entry is added only while fewer than the cap remain; the
 * message row is inserted only if its entry was. Every row is updated, admitted or not, so
 * RETURNING gives each key's entries (and the earliest expiry for a refusal's Retry-After).
 */
export async function insertMessages(db: Queryable, messages: NewMessage[], pendingMessagesPerKey: number, now: number): Promise<InsertOutcome[]> {
  const rows = await db.query<{ inserted: boolean; earliest: string | number | null }>(
    `with input as (
       select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $8::text[])
         with ordinality as t(nonce_hash, public_key, message, issued_at, expires_at, purpose, position)
     ), pending as (
       insert into wallet_pending as w (public_key, pending, last_expires_at)
       select public_key, jsonb_build_object(nonce_hash, (extract(epoch from expires_at) * 1000)::bigint), expires_at from input
       order by public_key -- rows are locked in key order, as the claims' statement locks them: no deadlock between the two
       on conflict (public_key) do update set
         pending = case
           when (select count(*) from jsonb_each(w.pending) e where (e.value)::bigint > $6) < $7
             then coalesce((select jsonb_object_agg(e.key, e.value) from jsonb_each(w.pending) e where (e.value)::bigint > $6), '{}'::jsonb) || excluded.pending
           else coalesce((select jsonb_object_agg(e.key, e.value) from jsonb_each(w.pending) e where (e.value)::bigint > $6), '{}'::jsonb)
         end,
         last_expires_at = greatest(w.last_expires_at, excluded.last_expires_at)
       returning public_key, pending
     ), inserted as (
       insert into sign_in_messages (nonce_hash, public_key, message, issued_at, expires_at, purpose)
       select i.nonce_hash, i.public_key, i.message, i.issued_at, i.expires_at, i.purpose
       from input i join pending p on p.public_key = i.public_key and p.pending ? i.nonce_hash
       returning nonce_hash
     )
     select exists (select 1 from inserted x where x.nonce_hash = i.nonce_hash) as inserted,
            (select min((e.value)::bigint) from pending p, jsonb_each(p.pending) e where p.public_key = i.public_key) as earliest
     from input i order by i.position`,
    [
      messages.map((m) => m.nonceHash),
      messages.map((m) => m.publicKey),
      messages.map((m) => m.message),
      messages.map((m) => m.issuedAt.toISOString()),
      messages.map((m) => m.expiresAt.toISOString()),
      now,
      pendingMessagesPerKey,
      messages.map((m) => m.purpose),
    ],
  );
  return rows.map(
    (row): InsertOutcome =>
      row.inserted ? { inserted: true } : { inserted: false, retryAfterSeconds: Math.max(1, Math.ceil((Number(row.earliest ?? now) - now) / 1000)) },
  );
}

export async function findMessage(db: Queryable, nonceHash: string): Promise<SignInMessageRow | undefined> {
  const [row] = await db.query<SignInMessageRow>(
    `select nonce_hash as "nonceHash", public_key as "publicKey", message,
            issued_at as "issuedAt", expires_at as "expiresAt", used_at as "usedAt"
     from sign_in_messages where nonce_hash = $1`,
    [nonceHash],
  );
  return row && { ...row, issuedAt: asDate(row.issuedAt), expiresAt: asDate(row.expiresAt), usedAt: asOptionalDate(row.usedAt) };
}

/**
 * Deletes messages that expired before `before`, and the per-key bookkeeping of keys whose every
 * pending message has (their rows only grow back on an init), `batch` rows per statement; returns
 * how many messages.
 */
export async function purgeMessagesExpiredBefore(db: Queryable, before: Date, batch: number): Promise<number> {
  const total = await deleteInBatches(db, 'sign_in_messages', 'nonce_hash', 'expires_at', before, batch);
  await deleteInBatches(db, 'wallet_pending', 'public_key', 'last_expires_at', before, batch);
  return total;
}

/**
 * Deletes the rows of `table` whose `column` is before `before`, a batch per statement.
 *
 * `order by ${column}` makes the batch read the expiry index. Without it the planner, which on
 * PGlite has no statistics (no autovacuum, so no ANALYZE), guesses a third of the rows match and
 * picks a sequential scan that stops after `batch` matches: when few or none have expired (every
 * minute, on a busy service) it reads the whole table. After the benchmark's 100,000 inits that
 * was 100-150 ms per purge with nothing to delete, a pause for every request (issue 24: the
 * 508 ms download).
 *
 * Between two statements the event loop gets a turn: on PGlite a statement resolves without one,
 * so the batches of a large purge would otherwise run back to back, and requests arriving
 * meanwhile (new sockets, their reads) would wait for the last batch.
 */
async function deleteInBatches(db: Queryable, table: string, key: string, column: string, before: Date, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const [{ deleted }] = (await db.query<{ deleted: number }>(
      `with gone as (
         delete from ${table} where ${key} in (select ${key} from ${table} where ${column} < $1 order by ${column} limit $2) returning 1
       )
       select count(*)::int as deleted from gone`,
      [before.toISOString(), batch],
    )) as [{ deleted: number }];
    total += deleted;
    if (deleted < batch) return total;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export type OperatorMessage = { publicKey: string; message: string; expiresAt: Date; usedAt: Date | null };

/** An operator message by its nonce hash; a claim message is never returned. */
export async function findOperatorMessage(db: Queryable, nonceHash: string): Promise<OperatorMessage | undefined> {
  const [row] = await db.query<{ publicKey: string; message: string; expiresAt: Date | string; usedAt: Date | string | null }>(
    `select public_key as "publicKey", message, expires_at as "expiresAt", used_at as "usedAt"
     from sign_in_messages where nonce_hash = $1 and purpose = 'operator'`,
    [nonceHash],
  );
  return row && { ...row, expiresAt: asDate(row.expiresAt), usedAt: asOptionalDate(row.usedAt) };
}
