// The named storage operations of the use cases. Every rule that could race is one SQL statement
// here, never a read-then-write in JavaScript. Every statement is plain parameterized SQL through
// Database.query, next to the rule it enforces: on the embedded database drizzle's query builder
// costs two to three times the query itself (docs/decisions.md). The tables are declared in
// schema.ts, from which drizzle-kit generates the migrations.
import { systemClock, type Clock } from '../clock';
import { AppError, errorChain } from '../errors';
import { DatabaseAvailability, type AvailabilityEvents } from './availability';
import { Batcher } from './batcher';
import type { Database } from './client';
import type { JobInput } from '../queue';
import type { PassRow, SignInMessageRow } from './schema';

/** One parameterized statement: what the storage modules need of a database. */
export type Queryable = Pick<Database, 'query'>;

export type NewMessage = Omit<SignInMessageRow, 'usedAt' | 'purpose'>;
export type NewPass = Omit<
  PassRow,
  | 'pkpass'
  | 'pkpassEtag'
  | 'status'
  | 'voidReason'
  | 'updatedAt'
  | 'expiresAt'
  | 'relevantAt'
  | 'authTokenHash'
  | 'pkpassBuiltFor'
  | 'pkpassModifiedAt'
  | 'googleObjectAt'
  | 'googleLinkedAt'
>;
/** A pass without its file bytes. */
export type PassInfo = NewPass;
export type PassWithFile = PassRow;

/** not_redeemed: no such unused, unexpired message (with that text) for that key; the caller finds out which. */
export type Redemption = { kind: 'created'; pass: PassInfo } | { kind: 'existing'; pass: PassInfo } | { kind: 'not_redeemed' };

/** The columns of PassInfo, named as its fields. */
const PASS_INFO_COLUMNS = `serial_number as "serialNumber", download_id_hash as "downloadIdHash",
  public_key as "publicKey", wallet_type as "walletType", claimed_at as "claimedAt"`;

/** Drivers return timestamptz as Date (node-postgres, PGlite) or as text; the store returns Date. */
const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

/** Most inits, claims or pings in one statement: enough to absorb a burst, small enough to stay quick. */
const MAX_BATCH = 64;

/** Unused, unexpired messages one public key may hold when no limit is given (PENDING_MESSAGES_PER_KEY). */
export const DEFAULT_PENDING_MESSAGES_PER_KEY = 5;

type InsertOutcome = { inserted: true } | { inserted: false; retryAfterSeconds: number };

type RedeemParams = {
  nonceHash: string;
  publicKey: string;
  exactText?: string;
  now: Date;
  newPass: NewPass;
  /** A job to enqueue if (and only if) the pass is created, in the same statement: its webhook event. */
  onCreated?: JobInput;
};
type RedeemOutcome = { used: boolean; created: boolean };

/**
 * Rows deleted per purge statement. PGlite runs each statement on the event loop's thread, so a
 * statement is a pause for every request: 5,000 expired messages took 415 ms there, 1,000 took
 * 68 ms (docs/benchmarks.md, "The stall"). 500 bounds the pause to tens of milliseconds; the
 * requests queued meanwhile run between two purge statements. On PostgreSQL the batch only
 * bounds how long locks are held.
 */
const PURGE_BATCH = { pglite: 500, postgres: 5000 } as const;

export class Store {
  private readonly availability: DatabaseAvailability;
  // Group commit (see batcher.ts): concurrent inits, claims and pings each share one statement.
  private readonly inserts: Batcher<NewMessage, InsertOutcome>;
  private readonly redemptions: Batcher<RedeemParams, RedeemOutcome>;
  private readonly pings: Batcher<null, void>;

  constructor(
    private readonly database: Database,
    /** Past this, an operation is answered as "database unavailable" even if it is still pending. */
    private readonly timeoutMs: number,
    private readonly events: AvailabilityEvents = { onDown: () => {}, onUp: () => {}, onBusy: () => {} },
    private readonly limits: { pendingMessagesPerKey: number } = { pendingMessagesPerKey: DEFAULT_PENDING_MESSAGES_PER_KEY },
    /** The time pending messages expire by. */
    private readonly clock: Clock = systemClock,
  ) {
    this.availability = new DatabaseAvailability(events);
    const common = { maxBatch: MAX_BATCH, concurrency: database.concurrency, retryAlone: (error: unknown) => !unavailability(error) };
    // One key's inits never share a statement: each checks and updates the key's wallet_pending
    // row, which one INSERT … ON CONFLICT DO UPDATE may touch only once.
    this.inserts = new Batcher({ ...common, key: (message) => message.publicKey, run: (messages) => this.insertMessages(messages) });
    // One wallet's claims never run at once: in one statement a second INSERT of its pass would
    // not wait for the first, and in two concurrent statements they could deadlock.
    this.redemptions = new Batcher({ ...common, key: (claim) => claim.publicKey, run: (claims) => this.redeemMessages(claims) });
    this.pings = new Batcher<null, void>({
      ...common,
      maxBatch: Number.MAX_SAFE_INTEGER,
      run: async (items) => {
        await this.database.ping();
        return items.map(() => undefined);
      },
    });
  }

  get kind() {
    return this.database.kind;
  }

  /**
   * The database behind this store's availability guard, for the modules that keep their own
   * statements (lib/db/operators.ts, lib/queue, lib/webhooks): the same 503 rules as the claim's.
   */
  readonly sql: Queryable = {
    query: <Row>(text: string, params?: unknown[]) => this.guard(() => this.database.query<Row>(text, params)),
  };

  /** Concurrent health checks share one `select 1`. */
  ping(): Promise<void> {
    return this.guard(() => this.pings.submit(null));
  }

  /**
   * Stores an issued message, unless its public key already holds PENDING_MESSAGES_PER_KEY
   * pending (unused, unexpired) ones: then nothing is stored and rate_limited says when the
   * oldest of them expires.
   */
  insertMessage(message: NewMessage): Promise<void> {
    return this.guard(async () => {
      const outcome = await this.inserts.submit(message);
      if (!outcome.inserted) {
        throw new AppError(
          'rate_limited',
          `This public key holds ${this.limits.pendingMessagesPerKey} unused messages: sign one of them, or retry in ${outcome.retryAfterSeconds} seconds.`,
          { retryAfterSeconds: outcome.retryAfterSeconds },
        );
      }
    });
  }

  /**
   * The inits of one batch (one per key) in one statement. The key's wallet_pending row is the
   * cap: its upsert takes the row's lock, so concurrent inits of one key (here or on another
   * instance) run one after the other, each seeing the latest entries. Expired entries are
   * dropped, and the message's own entry is added only while fewer than the cap remain; the
   * message row is inserted only if its entry was. Every row is updated, admitted or not, so
   * RETURNING gives each key's entries (and the earliest expiry for a refusal's Retry-After).
   */
  private async insertMessages(messages: NewMessage[]): Promise<InsertOutcome[]> {
    const now = this.clock.now();
    const rows = await this.database.query<{ inserted: boolean; earliest: string | number | null }>(
      `with input as (
         select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
           with ordinality as t(nonce_hash, public_key, message, issued_at, expires_at, position)
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
         insert into sign_in_messages (nonce_hash, public_key, message, issued_at, expires_at)
         select i.nonce_hash, i.public_key, i.message, i.issued_at, i.expires_at
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
        this.limits.pendingMessagesPerKey,
      ],
    );
    return rows.map((row): InsertOutcome =>
      row.inserted ? { inserted: true } : { inserted: false, retryAfterSeconds: Math.max(1, Math.ceil((Number(row.earliest ?? now) - now) / 1000)) },
    );
  }

  findMessage(nonceHash: string): Promise<SignInMessageRow | undefined> {
    return this.guard(async () => {
      const [row] = await this.database.query<SignInMessageRow>(
        `select nonce_hash as "nonceHash", public_key as "publicKey", message,
                issued_at as "issuedAt", expires_at as "expiresAt", used_at as "usedAt"
         from sign_in_messages where nonce_hash = $1`,
        [nonceHash],
      );
      return row && { ...row, issuedAt: asDate(row.issuedAt), expiresAt: asDate(row.expiresAt), usedAt: row.usedAt && asDate(row.usedAt) };
    });
  }

  /** Uses the message and gives its wallet a pass, both or neither (see redeemMessages). */
  redeemMessage(params: RedeemParams): Promise<Redemption> {
    const { publicKey, newPass } = params;
    return this.guard(async (): Promise<Redemption> => {
      const outcome = await this.redemptions.submit(params);
      if (outcome.created) return { kind: 'created', pass: newPass };
      if (!outcome.used) return { kind: 'not_redeemed' };
      // The wallet has a pass: from before, or from a concurrent claim that inserted first
      // (committed by now: ON CONFLICT waited for it).
      const [existing] = await this.database.query<PassInfo>(`select ${PASS_INFO_COLUMNS} from passes where public_key = $1`, [publicKey]);
      if (!existing) throw new Error('pass conflict without a pass row');
      return { kind: 'existing', pass: { ...existing, claimedAt: asDate(existing.claimedAt) } };
    });
  }

  /**
   * The claims of one batch in one statement (one transaction per batch: all or none). The
   * UPDATE … WHERE used_at IS NULL is the single-use rule: of concurrent claims of one message
   * exactly one updates the row (the others wait for it, then find it used). The unique key on
   * public_key is the one-pass rule: a concurrent claim by the same wallet (from another
   * instance: this one's batcher never runs one wallet's claims at once) waits for the first
   * insert, then inserts nothing and reads that pass. One statement rather than
   * BEGIN/UPDATE/INSERT/COMMIT: a quarter of the round trips. With `exactText`, only a message stored with exactly that text
   * is used.
   */
  private async redeemMessages(claims: RedeemParams[]): Promise<RedeemOutcome[]> {
    const rows = await this.database.query<{ used: boolean; created: boolean }>(
      `with input as (
         select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[])
           with ordinality as t(nonce_hash, public_key, exact_text, at, serial_number, download_id_hash, wallet_type, job, position)
       ), used as (
         update sign_in_messages m set used_at = i.at
         from input i
         where m.nonce_hash = i.nonce_hash and m.public_key = i.public_key and m.used_at is null and m.expires_at > i.at
           and m.purpose = 'claim' -- a message issued for an operator session never claims a pass
           and (i.exact_text is null or m.message = i.exact_text)
         returning m.nonce_hash, m.public_key
       ), locked as (
         -- In key order, as the inits' statement locks them: a batch of claims and a batch of
         -- inits of the same keys never wait for each other in a cycle (a deadlock, answered 503).
         select w.public_key from wallet_pending w where w.public_key in (select public_key from used) order by w.public_key for update
       ), freed as (
         -- A used message is no longer pending: its key may be issued another.
         update wallet_pending w set pending = w.pending - u.nonces
         from (select public_key, array_agg(nonce_hash) as nonces from used group by public_key) u
         join locked l on l.public_key = u.public_key
         where w.public_key = u.public_key
       ), created as (
         insert into passes (serial_number, download_id_hash, public_key, wallet_type, claimed_at, updated_at)
         select i.serial_number, i.download_id_hash, i.public_key, i.wallet_type, i.at, i.at
         from input i join used u on u.nonce_hash = i.nonce_hash
         on conflict (public_key) do nothing
         returning serial_number
       ), announced as (
         insert into jobs (kind, payload, run_at)
         select i.job::jsonb->>'kind', i.job::jsonb->'payload', i.at
         from input i join created c on c.serial_number = i.serial_number
         where i.job is not null
       )
       select exists (select 1 from used u where u.nonce_hash = i.nonce_hash) as used,
              exists (select 1 from created c where c.serial_number = i.serial_number) as created
       from input i order by i.position`,
      [
        claims.map((c) => c.nonceHash),
        claims.map((c) => c.publicKey),
        claims.map((c) => c.exactText ?? null),
        claims.map((c) => c.now.toISOString()),
        claims.map((c) => c.newPass.serialNumber),
        claims.map((c) => c.newPass.downloadIdHash),
        claims.map((c) => c.newPass.walletType),
        claims.map((c) => (c.onCreated ? JSON.stringify(c.onCreated) : null)),
      ],
    );
    return rows.map((row) => ({ used: row.used, created: row.created }));
  }

  findPassByDownloadIdHash(downloadIdHash: string): Promise<PassWithFile | undefined> {
    return this.guard(async () => {
      const [row] = await this.database.query<PassWithFile>(
        `select ${PASS_INFO_COLUMNS}, pkpass, pkpass_etag as "pkpassEtag" from passes where download_id_hash = $1`,
        [downloadIdHash],
      );
      return row && { ...row, claimedAt: asDate(row.claimedAt), pkpass: row.pkpass && Buffer.from(row.pkpass) };
    });
  }

  findPassBySerial(serialNumber: string): Promise<PassInfo | undefined> {
    return this.guard(async () => {
      const [row] = await this.database.query<PassInfo>(`select ${PASS_INFO_COLUMNS} from passes where serial_number = $1`, [serialNumber]);
      return row && { ...row, claimedAt: asDate(row.claimedAt) };
    });
  }

  /**
   * Keeps the first built file of a pass: concurrent first downloads may both build one, and the
   * later writer gets the stored bytes back, so every download of a pass is byte-identical.
   */
  savePassFile(serialNumber: string, pkpass: Buffer, etag: string): Promise<{ pkpass: Buffer; etag: string }> {
    return this.guard(async () => {
      const [stored] = await this.database.query<{ pkpass: Uint8Array; etag: string }>(
        `with saved as (
           update passes set pkpass = $2, pkpass_etag = $3
           where serial_number = $1 and pkpass is null
           returning pkpass, pkpass_etag
         )
         select pkpass, pkpass_etag as etag from saved
         union all
         select pkpass, pkpass_etag from passes where serial_number = $1 and not exists (select 1 from saved)`,
        [serialNumber, pkpass, etag],
      );
      if (!stored?.pkpass || !stored.etag) throw new Error('pass file vanished');
      return { pkpass: Buffer.from(stored.pkpass), etag: stored.etag };
    });
  }

  /**
   * Deletes messages that expired before `before`, and the per-key bookkeeping of keys whose every
   * pending message has (their rows only grow back on an init); returns how many messages.
   */
  purgeMessagesExpiredBefore(before: Date): Promise<number> {
    return this.guard(async () => {
      const total = await this.deleteInBatches('sign_in_messages', 'nonce_hash', 'expires_at', before);
      await this.deleteInBatches('wallet_pending', 'public_key', 'last_expires_at', before);
      return total;
    });
  }

  /** Deletes the rows of `table` whose `column` is before `before`, a batch per statement. */
  private async deleteInBatches(table: string, key: string, column: string, before: Date): Promise<number> {
    const batch = PURGE_BATCH[this.database.kind];
    let total = 0;
    for (;;) {
      const [{ deleted }] = (await this.database.query<{ deleted: number }>(
        `with gone as (
           delete from ${table} where ${key} in (select ${key} from ${table} where ${column} < $1 limit $2) returning 1
         )
         select count(*)::int as deleted from gone`,
        [before.toISOString(), batch],
      )) as [{ deleted: number }];
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  /**
   * Points a pass's download lookup at a newly derived id: for a pass whose stored hash is not
   * that of the id derived under the current key (claimed before download ids were derived, or
   * under another DOWNLOAD_ID_KEY). Called only for its wallet, after a verified signature.
   */
  setDownloadIdHash(serialNumber: string, downloadIdHash: string): Promise<void> {
    return this.guard(async () => {
      await this.database.query(`update passes set download_id_hash = $2 where serial_number = $1`, [serialNumber, downloadIdHash]);
    });
  }

  close(): Promise<void> {
    return this.database.close();
  }

  /**
   * Runs one operation; a database that is down, refusing, or too slow becomes the contract's
   * 503 service_unavailable instead of a 500 or a hang. The server enforces DATABASE_TIMEOUT_MS
   * on each statement and lock wait, and the pool on the wait for a connection; this client-side
   * deadline (a little longer) also covers what they cannot time: a host that stopped answering
   * mid-statement. Because the pool gives up first, a statement still waiting for a connection
   * when its caller is answered 503 is never sent. While the database is unreachable, operations
   * fail at once but for one probe at a time (see availability.ts).
   */
  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    const { admitted, probe } = this.availability.admit();
    if (!admitted) throw unavailable();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseTimeout()), this.timeoutMs + DEADLINE_MARGIN_MS);
    });
    try {
      const result = await Promise.race([operation(), deadline]);
      this.availability.settle(probe, 'reached');
      return result;
    } catch (error) {
      const kind = unavailability(error);
      this.availability.settle(probe, kind === 'unreachable' ? 'unreachable' : answeredByServer(error) ? 'reached' : 'inconclusive', error);
      if (kind === 'busy') this.events.onBusy(error);
      if (kind) throw unavailable();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

const unavailable = () => new AppError('service_unavailable', 'The database is not answering; retry shortly.');

/** How much longer than DATABASE_TIMEOUT_MS the client waits: the server's own timeout fires first. */
const DEADLINE_MARGIN_MS = 500;

class DatabaseTimeout extends Error {}

/** Whether the error came from the server itself (it carries a SQLSTATE): the database answered. */
function answeredByServer(error: unknown): boolean {
  for (const { code } of errorChain(error)) {
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('E')) return true;
  }
  return false;
}

/** Socket error codes of a database that cannot be reached at all. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** node-postgres reports a connection that could not be opened in time by message only. */
const UNREACHABLE_MESSAGES = /Connection terminated due to connection timeout/;

/**
 * node-postgres's messages (it gives them no code) for one connection lost or no connection free
 * in time, and PGlite's once closed by our own shutdown: the database may answer the next try.
 */
const BUSY_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end|PGlite is closed/i;

/**
 * Why an error means "not now" rather than "bad query", or undefined for any other error.
 * unreachable: no connection can be made, the server is shutting down or starting (SQLSTATE 08,
 * 57P01-57P03), or no answer came in time. busy: the server answered but could not do the work
 * now: a lost connection, statement timeout (57014), insufficient resources (53), lock timeout
 * (55P03), serialization failure or deadlock (40).
 */
function unavailability(error: unknown): 'unreachable' | 'busy' | undefined {
  if (error instanceof DatabaseTimeout) return 'unreachable';
  for (const { code, message } of errorChain(error)) {
    if (typeof code === 'string') {
      if (UNREACHABLE_CODES.has(code) || /^(08|57P0[123])/.test(code)) return 'unreachable';
      if (code === 'ECONNRESET' || code === 'EPIPE' || /^(57|53|40)/.test(code) || code === '55P03') return 'busy';
    }
    if (UNREACHABLE_MESSAGES.test(message)) return 'unreachable';
    if (BUSY_MESSAGES.test(message)) return 'busy';
  }
  return undefined;
}
