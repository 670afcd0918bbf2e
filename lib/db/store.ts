// The claim's storage: sign-in messages (capped per key by wallet_pending) and the statement that
// uses one and creates its pass, both batched by group commit (batcher.ts), as are the door's admissions; and the availability
// guard every table module's statements run behind (`sql`). Every rule that could race is one SQL
// statement, never a read-then-write in JavaScript. Every statement is plain parameterized SQL through
// Database.query, next to the rule it enforces: on the embedded database drizzle's query builder
// costs two to three times the query itself (docs/decisions.md). The tables are declared in
// schema.ts, from which drizzle-kit generates the migrations.
import { type Clock, systemClock } from '../clock';
import { AppError, errorChain } from '../errors';
import { type ApiKeyInfo, useApiKeys } from './api-keys';
import { type AvailabilityEvents, DatabaseAvailability } from './availability';
import { Batcher } from './batcher';
import { type AdmissionAttempt, type AdmissionOutcome, admitAll } from './check-ins';
import { type ClaimOutcome, claimPasses, type PassClaim } from './claims';
import type { Database } from './client';
import { Jobs } from './jobs';
import { findMessage, type InsertOutcome, insertMessages, type NewMessage, purgeMessagesExpiredBefore } from './messages';
import { findPassOfWallet, type NewPass } from './passes';
import type { SignInMessageRow } from './schema';
import { findSessionsByHash, type SessionRow } from './sessions';
import type { Queryable } from './sql';

/** not_redeemed: no such unused, unexpired message (with that text) for that key; the caller finds out which. */
export type Redemption = { kind: 'created'; pass: NewPass } | { kind: 'existing'; pass: NewPass } | { kind: 'sold_out' } | { kind: 'not_redeemed' };

/** Most inits, claims or pings in one statement: enough to absorb a burst, small enough to stay quick. */
const MAX_BATCH = 64;

/** Unused, unexpired messages one public key may hold when no limit is given (PENDING_MESSAGES_PER_KEY). */
export const DEFAULT_PENDING_MESSAGES_PER_KEY = 5;

/**
 * Rows deleted per purge statement. PGlite runs each statement on the event loop's thread, so a
 * statement is a pause for every request: 5,000 expired messages took 415 ms there, 1,000 took
 * 68 ms (docs/benchmarks.md, "The stall"). 500 bounds the pause to tens of milliseconds; the
 * requests that arrive meanwhile run between two purge statements (messages.ts, deleteInBatches,
 * gives the event loop a turn). On PostgreSQL the batch only bounds how long locks are held.
 */
const PURGE_BATCH = { pglite: 500, postgres: 5000 } as const;

export class Store {
  private readonly availability: DatabaseAvailability;
  // Group commit (see batcher.ts): concurrent inits, claims and pings each share one statement.
  private readonly inserts: Batcher<NewMessage, InsertOutcome>;
  private readonly redemptions: Batcher<PassClaim, ClaimOutcome>;
  private readonly pings: Batcher<null, void>;
  private readonly admissions: Batcher<AdmissionAttempt, AdmissionOutcome>;
  private readonly sessions: Batcher<string, SessionRow | undefined>;
  private readonly apiKeys: Batcher<string, ApiKeyInfo | undefined>;

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
    this.inserts = new Batcher({
      ...common,
      key: (message) => message.publicKey,
      run: (messages) => insertMessages(this.database, messages, this.limits.pendingMessagesPerKey, this.clock.now()),
    });
    // One wallet's claims never run at once: in one statement a second INSERT of its pass would
    // not wait for the first, and in two concurrent statements they could deadlock.
    this.redemptions = new Batcher({ ...common, key: (claim) => claim.publicKey, run: (claims) => claimPasses(this.jobs, this.database, claims) });
    // One pass's admissions never share a statement: in one INSERT … ON CONFLICT the second would
    // not see the first. In two statements, the unique index decides (lib/db/check-ins.ts).
    this.admissions = new Batcher({ ...common, key: (attempt) => attempt.serialNumber, run: (attempts) => admitAll(this.jobs, this.database, attempts) });
    // Every operator request reads its credential: a door scanning fast is as many reads as admissions.
    // Sessions are opened and API keys made on the system's time (lib/operators), so read on it too.
    this.sessions = new Batcher({
      ...common,
      run: async (hashes) => {
        const found = await findSessionsByHash(this.database, hashes, new Date());
        return hashes.map((hash) => found.get(hash));
      },
    });
    this.apiKeys = new Batcher({
      ...common,
      run: async (hashes) => {
        const found = await useApiKeys(this.database, hashes, new Date());
        return hashes.map((hash) => found.get(hash));
      },
    });
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
   * The database behind this store's availability guard, for the table modules (passes.ts,
   * registrations.ts, sessions.ts…): the same 503 rules as the claim's.
   */
  readonly sql: Queryable = {
    query: <Row>(text: string, params?: unknown[]) => this.guard(() => this.database.query<Row>(text, params)),
  };

  /** The `jobs` table behind the same guard; enqueueing through it wakes this process's workers. */
  readonly jobs = new Jobs(this.sql);

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

  findMessage(nonceHash: string): Promise<SignInMessageRow | undefined> {
    return this.guard(() => findMessage(this.database, nonceHash));
  }

  /** Uses the message and gives its wallet a pass, both or neither (passes.ts, claimPasses). */
  redeemMessage(params: PassClaim): Promise<Redemption> {
    const { publicKey, newPass } = params;
    return this.guard(async (): Promise<Redemption> => {
      const outcome = await this.redemptions.submit(params);
      if (outcome.created) return { kind: 'created', pass: newPass };
      if (outcome.soldOut) return { kind: 'sold_out' };
      if (!outcome.used) return { kind: 'not_redeemed' };
      // The wallet has a pass: from before, or from a concurrent claim that inserted first
      // (committed by now: ON CONFLICT waited for it).
      const existing = await findPassOfWallet(this.database, newPass.program, publicKey);
      if (!existing) throw new Error('pass conflict without a pass row');
      return { kind: 'existing', pass: existing };
    });
  }

  /** Admits a pass at a door, or says why not: concurrent check-ins share one statement (check-ins.ts, admitAll). */
  admit(attempt: AdmissionAttempt): Promise<AdmissionOutcome> {
    return this.guard(() => this.admissions.submit(attempt));
  }

  /** The live operator session of a token hash (sessions.ts): concurrent requests share one read. */
  session(tokenHash: string): Promise<SessionRow | undefined> {
    return this.guard(() => this.sessions.submit(tokenHash));
  }

  /** The live API key of a hash, its use recorded (api-keys.ts): concurrent requests share one statement. */
  apiKey(keyHash: string): Promise<ApiKeyInfo | undefined> {
    return this.guard(() => this.apiKeys.submit(keyHash));
  }

  /**
   * Deletes messages that expired before `before`, and the per-key bookkeeping of keys whose every
   * pending message has; returns how many messages.
   */
  purgeMessagesExpiredBefore(before: Date): Promise<number> {
    return this.guard(() => purgeMessagesExpiredBefore(this.database, before, PURGE_BATCH[this.database.kind]));
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
const BUSY_MESSAGES = /Connection terminated|not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end|PGlite is closed/i;

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
