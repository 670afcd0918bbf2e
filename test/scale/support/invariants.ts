// The storage rules a claim cut off mid-way must not break, checked in the database itself.
import pg from 'pg';
import { withDefaultUser } from '@/lib/db/client';

/** A small pool for the test's own look into the database, never counted as the service's. */
export function testPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: withDefaultUser(url), max: 2, application_name: 'scale-test' });
  pool.on('error', () => {}); // the test stops the server under it on purpose
  return pool;
}

/** The single integer a query returns (e.g. a count). */
export async function scalar(pool: pg.Pool, query: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ value: number }>(query, params);
  return Number(rows[0]!.value);
}

/** Messages marked used whose wallet has no pass: a claim half-written. Must be 0. */
export const usedWithoutPass = (pool: pg.Pool) =>
  scalar(
    pool,
    `select count(*) as value from sign_in_messages m
     where m.used_at is not null and not exists (select 1 from passes p where p.public_key = m.public_key)`,
  );

export type WalletState = { used: boolean; hasPass: boolean };

/** For wallets that were each issued one message: is it used, and does the wallet have a pass? */
export async function walletStates(pool: pg.Pool, publicKeys: string[]): Promise<Map<string, WalletState>> {
  const { rows } = await pool.query<{ publicKey: string; used: boolean; hasPass: boolean }>(
    `select m.public_key as "publicKey",
            bool_or(m.used_at is not null) as used,
            exists (select 1 from passes p where p.public_key = m.public_key) as "hasPass"
     from sign_in_messages m
     where m.public_key = any($1)
     group by m.public_key`,
    [publicKeys],
  );
  return new Map(rows.map((row) => [row.publicKey, { used: row.used, hasPass: row.hasPass }]));
}
