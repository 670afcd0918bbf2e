// Many passes at once, written straight into the `passes` table with one SQL statement per 5,000
// (unnest of arrays), for the re-check benchmark and its tests: 100,000 claims through the API
// would take many minutes and measure the claim path, not the round. Each row is what a claim
// stores (lib/db/passes.ts claimPasses): a fresh serial, the hash of a fresh download id, the
// wallet, the program, walletType Generic, claimed now; every other column takes its default
// (active). No `pass.created` event is queued: nobody is waiting for one.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../../lib/db/sql';

const PER_STATEMENT = 5_000;

/** Inserts one active pass for each of `publicKeys` in `program` (default: the default program); resolves with their serials. */
export async function insertPasses(db: Queryable, publicKeys: string[], program = 'default'): Promise<string[]> {
  const serials: string[] = [];
  for (let start = 0; start < publicKeys.length; start += PER_STATEMENT) {
    const keys = publicKeys.slice(start, start + PER_STATEMENT);
    const batch = keys.map(() => randomUUID());
    const hashes = keys.map(() => createHash('sha256').update(randomBytes(16)).digest('hex'));
    await db.query(
      `insert into passes (serial_number, download_id_hash, public_key, program, wallet_type, claimed_at, updated_at)
       select s, h, k, $4, 'Generic', now(), now() from unnest($1::text[], $2::text[], $3::text[]) as t(s, h, k)`,
      [batch, hashes, keys, program],
    );
    serials.push(...batch);
  }
  return serials;
}

/**
 * Registers `perPass` devices for each of `serials`, straight into `device_registrations` (one
 * statement per 5,000 rows), each with a fresh device id and push token (64 hex digits, as APNs's
 * are); resolves with the push tokens. For the update fan-out's benchmark and crash test.
 */
export async function insertRegistrations(db: Queryable, serials: string[], perPass: number): Promise<string[]> {
  const rows = serials.flatMap((serial) =>
    Array.from({ length: perPass }, () => ({ serial, device: randomBytes(16).toString('hex'), token: randomBytes(32).toString('hex') })),
  );
  for (let start = 0; start < rows.length; start += PER_STATEMENT) {
    const batch = rows.slice(start, start + PER_STATEMENT);
    await db.query(
      `insert into device_registrations (device_library_identifier, serial_number, push_token, created_at)
       select d, s, t, now() from unnest($1::text[], $2::text[], $3::text[]) as x(d, s, t)`,
      [batch.map((row) => row.device), batch.map((row) => row.serial), batch.map((row) => row.token)],
    );
  }
  return rows.map((row) => row.token);
}
