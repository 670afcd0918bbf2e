// The `operator_sessions` table. A session opens in the same statement as its operator message
// (messages.ts) is used, so of concurrent submissions of one message exactly one wins.
import { asDate, onlyRow, type Queryable } from './sql';

/**
 * Uses an operator message and opens its session, in one statement: of concurrent submissions of
 * one message exactly one opens a session. False when the message was used or expired meanwhile.
 */
export async function openSession(
  db: Queryable,
  params: { nonceHash: string; publicKey: string; now: Date; tokenHash: string; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query<{ opened: boolean }>(
    `with used as (
       update sign_in_messages set used_at = $3
       where nonce_hash = $1 and public_key = $2 and purpose = 'operator' and used_at is null and expires_at > $3
       returning public_key, nonce_hash
     ), freed as (
       -- A used message is no longer pending: its key may be issued another (messages.ts).
       update wallet_pending w set pending = w.pending - u.nonce_hash from used u where w.public_key = u.public_key
     ), opened as (
       insert into operator_sessions (token_hash, public_key, created_at, expires_at)
       select $4, public_key, $3, $5 from used
       returning 1
     )
     select exists (select 1 from opened) as opened`,
    [params.nonceHash, params.publicKey, params.now.toISOString(), params.tokenHash, params.expiresAt.toISOString()],
  );
  return onlyRow(rows, 'openSession').opened;
}

export type SessionRow = { tokenHash: string; publicKey: string; expiresAt: Date };

/** The live sessions of these token hashes, by hash: one statement for every request that arrived together (Store.session). */
export async function findSessionsByHash(db: Queryable, hashes: string[], now: Date): Promise<Map<string, SessionRow>> {
  const rows = await db.query<{ tokenHash: string; publicKey: string; expiresAt: Date | string }>(
    `select token_hash as "tokenHash", public_key as "publicKey", expires_at as "expiresAt"
     from operator_sessions where token_hash = any($1::text[]) and revoked_at is null and expires_at > $2`,
    [hashes, now.toISOString()],
  );
  return new Map(rows.map((row) => [row.tokenHash, { ...row, expiresAt: asDate(row.expiresAt) }]));
}

export async function revokeSession(db: Queryable, hash: string, now: Date): Promise<void> {
  await db.query(`update operator_sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null`, [hash, now.toISOString()]);
}

/** Deletes sessions that ended (expired or revoked) before `before`. */
export async function purgeEndedSessions(db: Queryable, before: Date): Promise<void> {
  await db.query(`delete from operator_sessions where expires_at < $1 or revoked_at < $1`, [before.toISOString()]);
}
