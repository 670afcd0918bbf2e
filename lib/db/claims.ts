// The claim: one statement that uses a sign-in message, grants a place in the program's supply,
// frees the wallet's pending entry and inserts its pass, with the pass's jobs (group commit:
// Store.redeemMessage runs the claims that arrive together as one). It spans sign_in_messages, programs,
// wallet_pending and passes because its rules must hold together; each table's other statements
// live with the table (messages.ts, programs.ts, passes.ts).
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import type { NewPass } from './passes';
import type { Queryable } from './sql';

/** A claim of one batch: the message to use, the pass to create, and the jobs of its creation. */
export type PassClaim = {
  nonceHash: string;
  publicKey: string;
  exactText?: string;
  now: Date;
  newPass: NewPass;
  /** Jobs to enqueue if (and only if) the pass is created, in the same statement: its webhook event. */
  onCreated: JobInput[];
};
/** `soldOut`: the message is valid and its wallet has no pass of the program, but the program's supply is all issued (nothing was used). */
export type ClaimOutcome = { used: boolean; created: boolean; soldOut: boolean };

/**
 * The claims of one batch in one statement (one transaction per batch: all or none).
 *
 * - Single use: the UPDATE … WHERE used_at IS NULL. Of concurrent claims of one message exactly
 *   one updates the row (the others wait for it, then find it used).
 * - One pass per wallet per program: the unique key on (program, public_key). A concurrent claim
 *   by the same wallet (from another instance: this one's batcher never runs one wallet's claims
 *   at once) waits for the first insert, then inserts nothing and reads that pass.
 * - Supply: a program with a supply has its row locked and its `issued` moved by the passes it
 *   grants, in the same statement that inserts them. Concurrent batches on any number of
 *   instances wait for the row in turn, and each sees the count the previous one left: never more
 *   than `supply` passes. A claim past it uses nothing and answers `soldOut`. (Were a wallet's
 *   pass inserted by another instance between this statement's read and its insert, the granted
 *   place goes unused: the rule errs on issuing one fewer, never one more.)
 *
 * One statement rather than BEGIN/UPDATE/INSERT/COMMIT: a quarter of the round trips. With
 * `exactText`, only a message stored with exactly that text is used.
 */
export async function claimPasses(jobs: Jobs, db: Queryable, claims: PassClaim[]): Promise<ClaimOutcome[]> {
  const rows = await jobs.change<ClaimOutcome>(
    statementWithJobs({
      with: `input as (
         select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $9::text[])
           with ordinality as t(nonce_hash, public_key, exact_text, at, serial_number, download_id_hash, wallet_type, program, position)
       ), usable as (
         -- The claims whose message the update below would use (read first: the supply is granted before it).
         -- Every read of a table here is a probe of one of its indexes, whatever the planner believes
         -- of the table's size: statistics taken when a table held a handful of rows (autovacuum's
         -- after a purge; the embedded database's before lib/db/upkeep.ts) had it scan 60,000
         -- messages once per claim, 13 s for a batch of 500 (docs/benchmarks.md). LIMIT keeps each
         -- probe from being flattened back into such a join.
         select i.*, m.ctid as message_row from input i
         cross join lateral (select ctid, * from sign_in_messages m where m.nonce_hash = i.nonce_hash limit 1) m
         where m.public_key = i.public_key and m.used_at is null and m.expires_at > i.at
           and m.purpose = 'claim' -- a message issued for an operator session never claims a pass
           and (i.exact_text is null or m.message = i.exact_text)
       ), fresh as (
         -- Usable claims of a wallet without a pass of the program, numbered per program in arrival order.
         select u.nonce_hash, u.program, row_number() over (partition by u.program order by u.position) as n
         from usable u
         left join lateral (select true as held from passes p where p.program = u.program and p.public_key = u.public_key limit 1) p on true
         where p.held is null
       ), wanted as (
         select program, count(*)::int as n from fresh group by program
       ), counted as (
         -- Only programs with a supply are counted: the others' claims never wait for one another.
         select g.slug, g.supply, g.issued from programs g
         where g.slug in (select program from wanted) and g.supply is not null
         order by g.slug for update
       ), granted as (
         update programs g set issued = g.issued + c.grant
         from (select c.slug, greatest(0, least(w.n, c.supply - c.issued)) as grant from counted c join wanted w on w.program = c.slug) c
         where g.slug = c.slug
         returning g.slug, c.grant
       ), refused as (
         -- Fresh claims past their program's supply: their messages stay unused.
         select f.nonce_hash from fresh f join granted g on g.slug = f.program where f.n > g.grant
       ), used as (
         -- The row the probe above found, by its address (a TID scan, whatever the statistics). Its
         -- conditions are checked again on the row as it is when locked: a concurrent claim that used
         -- it first leaves a newer version at another address, which this update then skips.
         update sign_in_messages m set used_at = u.at
         from usable u
         where m.ctid = u.message_row and m.nonce_hash = u.nonce_hash and m.public_key = u.public_key and m.used_at is null and m.expires_at > u.at
           and m.purpose = 'claim'
           and (u.exact_text is null or m.message = u.exact_text)
           and u.nonce_hash not in (select nonce_hash from refused)
         returning m.nonce_hash, m.public_key
       ), locked as (
         -- In key order, as the inits' statement locks them: a batch of claims and a batch of
         -- inits of the same keys never wait for each other in a cycle (a deadlock, answered 503).
         -- One probe per key, taken in that order.
         select w.public_key, w.ctid as pending_row
         from (select distinct public_key from used order by public_key) k
         cross join lateral (select w.public_key, w.ctid from wallet_pending w where w.public_key = k.public_key limit 1 for update) w
       ), freed as (
         -- A used message is no longer pending: its key may be issued another. The row is locked
         -- above, so its address holds until this statement commits.
         update wallet_pending w set pending = w.pending - u.nonces
         from (select public_key, array_agg(nonce_hash) as nonces from used group by public_key) u
         join locked l on l.public_key = u.public_key
         where w.ctid = l.pending_row and w.public_key = u.public_key
       ), changed as (
         insert into passes (serial_number, download_id_hash, public_key, program, wallet_type, claimed_at, updated_at)
         select i.serial_number, i.download_id_hash, i.public_key, i.program, i.wallet_type, i.at, i.at
         from input i join used u on u.nonce_hash = i.nonce_hash
         on conflict (program, public_key) do nothing
         returning serial_number as key
       )`,
      jobsParam: '$8',
      select: `select exists (select 1 from used u where u.nonce_hash = i.nonce_hash) as used,
              exists (select 1 from changed c where c.key = i.serial_number) as created,
              exists (select 1 from refused r where r.nonce_hash = i.nonce_hash) as "soldOut"
       from input i order by i.position`,
    }),
    [
      claims.map((c) => c.nonceHash),
      claims.map((c) => c.publicKey),
      claims.map((c) => c.exactText ?? null),
      claims.map((c) => c.now.toISOString()),
      claims.map((c) => c.newPass.serialNumber),
      claims.map((c) => c.newPass.downloadIdHash),
      claims.map((c) => c.newPass.walletType),
      jobsParameter(claims.flatMap((c) => c.onCreated.map((job) => ({ ...job, key: c.newPass.serialNumber })))),
      claims.map((c) => c.newPass.program),
    ],
    db,
  );
  return rows.map((row) => ({ used: row.used, created: row.created, soldOut: row.soldOut }));
}
