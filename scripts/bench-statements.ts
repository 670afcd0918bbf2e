// npm run bench:statements (PostgreSQL: DATABASE_URL, else TEST_DATABASE_URL; a scratch database
// is made on that server and dropped after)
//
// The service's two hottest statements, the claim (lib/db/claims.ts) and the admission at the door
// (lib/db/check-ins.ts), timed per statement straight against PostgreSQL, with no HTTP around them:
// - under statistics taken after a purge left a handful of rows on many pages (what autovacuum
//   may leave behind it, until its next round), the first batch of 64 (the most one
//   statement holds, lib/db/store.ts) against 60,000 messages and 40,000 passes: a statement that
//   scans a table once per row shows here as seconds;
// - then, with statistics, named prepared statements (as the service runs them, lib/db/prepared.ts)
//   against unnamed ones (parsed and planned at every call), batches of 14, in alternating rounds.
// Figures to read, never asserted.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { type AdmissionAttempt, admitAll } from '../lib/db/check-ins';
import { claimPasses, type PassClaim } from '../lib/db/claims';
import { type Database, openDatabase, withDefaultUser } from '../lib/db/client';
import { Jobs } from '../lib/db/jobs';
import { insertMessages, type NewMessage } from '../lib/db/messages';
import type { Queryable } from '../lib/db/sql';
import { asSerialNumber } from '../lib/passes/ids';
import { createScratchDatabase } from './support/scratch-database';

const MESSAGES = 60_000;
const CLAIMED = 40_000;
const LARGEST_BATCH = 64;
const BATCH = 14;
const STATEMENTS_PER_ROUND = 300;

const hex = () => randomBytes(16).toString('hex');
const now = new Date();

const newMessages = (count: number): NewMessage[] =>
  Array.from({ length: count }, () => ({
    nonceHash: hex(),
    publicKey: hex(),
    message: 'bench',
    issuedAt: now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    purpose: 'claim' as const,
  }));

const claimOf = (message: NewMessage): PassClaim => ({
  nonceHash: message.nonceHash,
  publicKey: message.publicKey,
  now,
  onCreated: [],
  newPass: {
    serialNumber: asSerialNumber(crypto.randomUUID()),
    downloadIdHash: hex(),
    publicKey: message.publicKey,
    program: 'default',
    walletType: 'apple',
    claimedAt: now,
  },
});

const attemptOf = (serialNumber: string): AdmissionAttempt => ({
  serialNumber: asSerialNumber(serialNumber),
  now,
  notEligibleReason: 'not_eligible',
  uniqueKey: `unlimited:${hex()}`,
});

async function store(db: Database, messages: NewMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 500) await insertMessages(db, messages.slice(i, i + 500), 5, now.getTime());
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server, e.g. postgres://127.0.0.1:5432/test');
  const scratch = await createScratchDatabase(adminUrl);
  const named = await openDatabase({ dataDir: tmpdir() /* unused on PostgreSQL */, databaseUrl: scratch.url, poolSize: 2, timeoutMs: 120_000 });
  const pool = new pg.Pool({ connectionString: withDefaultUser(scratch.url), max: 2 });
  const unnamed: Queryable = { query: async <Row>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as Row[] };
  try {
    // Statistics of empty tables, then the rows they do not know of (autovacuum held off meanwhile,
    // as if its next round had not come yet).
    const tables = (await pool.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public'`)).rows.map((row) => row.name);
    const autovacuum = (enabled: boolean) => Promise.all(tables.map((table) => pool.query(`alter table "${table}" set (autovacuum_enabled = ${enabled})`)));
    await autovacuum(false);
    // A busy past, purged: every row gone but the last few, which keep the tables' pages from
    // being truncated; the statistics then count a handful of rows on many pages.
    const past = newMessages(20_000);
    await store(named, past);
    for (let i = 0; i < 10_000; i += 500) await claimPasses(new Jobs(named), named, past.slice(i, i + 500).map(claimOf));
    for (const table of ['passes', 'sign_in_messages', 'wallet_pending']) {
      await pool.query(`delete from ${table} where ctid not in (select ctid from ${table} order by ctid desc limit 5)`);
    }
    await pool.query('vacuum analyze');
    const messages = newMessages(MESSAGES);
    await store(named, messages);
    const claimed = messages.slice(0, CLAIMED);
    const staleClaim = await timed(() => claimPasses(new Jobs(unnamed), unnamed, claimed.slice(0, LARGEST_BATCH).map(claimOf)));
    for (let i = LARGEST_BATCH; i < claimed.length; i += 500) await claimPasses(new Jobs(named), named, claimed.slice(i, i + 500).map(claimOf));
    const serials = (await pool.query<{ serial: string }>('select serial_number as serial from passes')).rows.map((row) => row.serial);
    const staleAdmission = await timed(() => admitAll(new Jobs(unnamed), unnamed, serials.slice(0, LARGEST_BATCH).map(attemptOf)));
    for (let i = LARGEST_BATCH; i < serials.length / 2; i += 500) await admitAll(new Jobs(named), named, serials.slice(i, i + 500).map(attemptOf));

    await autovacuum(true);
    await pool.query('analyze');
    const rounds: { round: number; how: string; claim: number; admission: number }[] = [];
    let nextSerial = Math.ceil(serials.length / 2);
    for (const round of [1, 2, 3]) {
      for (const [how, db] of [
        ['named', named],
        ['unnamed', unnamed],
      ] as const) {
        const fresh = newMessages(BATCH * STATEMENTS_PER_ROUND);
        await store(named, fresh);
        const claim = await timed(async () => {
          for (let i = 0; i < fresh.length; i += BATCH) await claimPasses(new Jobs(db), db, fresh.slice(i, i + BATCH).map(claimOf));
        });
        const admission = await timed(async () => {
          for (let i = 0; i < STATEMENTS_PER_ROUND; i++) {
            const batch = Array.from({ length: BATCH }, () => serials[nextSerial++ % serials.length] as string);
            await admitAll(new Jobs(db), db, batch.map(attemptOf));
          }
        });
        rounds.push({ round, how, claim: claim / STATEMENTS_PER_ROUND, admission: admission / STATEMENTS_PER_ROUND });
      }
    }

    console.log(
      `\nwallet-pass-claim statement benchmark: ${now.toISOString().slice(0, 10)}, PostgreSQL ${(await pool.query('show server_version')).rows[0].server_version}`,
    );
    console.log(`\nUnder statistics of a purged table (${MESSAGES} messages, ${CLAIMED} passes), one batch of ${LARGEST_BATCH}:`);
    console.log(`  claim statement      ${staleClaim.toFixed(1)} ms`);
    console.log(`  admission statement  ${staleAdmission.toFixed(1)} ms`);
    console.log(`\nWith statistics, ms per statement of ${BATCH}, ${STATEMENTS_PER_ROUND} statements a round:\n`);
    console.log('| round | statements | claim | admission |');
    console.log('|---|---|---:|---:|');
    for (const row of rounds) console.log(`| ${row.round} | ${row.how} | ${row.claim.toFixed(2)} | ${row.admission.toFixed(2)} |`);
  } finally {
    await named.close();
    await pool.end();
    await scratch.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
