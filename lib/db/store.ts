// The named storage operations the claim use case needs. Every rule that could race is one SQL
// statement or one transaction here, never a read-then-write in JavaScript.
import { and, eq, gt, inArray, isNull, lt } from 'drizzle-orm';
import { AppError } from '../errors';
import { DatabaseAvailability, type AvailabilityEvents } from './availability';
import type { Database, Db } from './client';
import { passes, signInMessages, type PassRow, type SignInMessageRow } from './schema';

export type NewMessage = Omit<SignInMessageRow, 'usedAt'>;
export type NewPass = Omit<PassRow, 'pkpass' | 'pkpassEtag'>;
/** A pass without its file bytes. */
export type PassInfo = NewPass;
export type PassWithFile = PassRow;

export type Redemption =
  | { kind: 'created'; pass: PassInfo }
  | { kind: 'existing'; pass: PassInfo }
  | { kind: 'already_used' }
  | { kind: 'expired' }
  | { kind: 'not_issued' };

const passInfoColumns = {
  serialNumber: passes.serialNumber,
  downloadId: passes.downloadId,
  downloadIdHash: passes.downloadIdHash,
  publicKey: passes.publicKey,
  walletType: passes.walletType,
  claimedAt: passes.claimedAt,
};

/** Rows deleted per statement when purging, so a large backlog never holds locks for long. */
const PURGE_BATCH = 5000;

export class Store {
  private readonly availability: DatabaseAvailability;

  constructor(
    private readonly database: Database,
    /** Past this, an operation is answered as "database unavailable" even if it is still pending. */
    private readonly timeoutMs: number,
    private readonly events: AvailabilityEvents = { onDown: () => {}, onUp: () => {}, onBusy: () => {} },
  ) {
    this.availability = new DatabaseAvailability(events);
  }

  get kind() {
    return this.database.kind;
  }

  ping(): Promise<void> {
    return this.guard(() => this.database.ping());
  }

  insertMessage(message: NewMessage): Promise<void> {
    return this.guard(async (db) => {
      await db.insert(signInMessages).values(message);
    });
  }

  findMessage(nonceHash: string): Promise<SignInMessageRow | undefined> {
    return this.guard(async (db) => {
      const [row] = await db.select().from(signInMessages).where(eq(signInMessages.nonceHash, nonceHash));
      return row;
    });
  }

  /**
   * Uses the message and gives its wallet a pass, in one transaction: both are recorded or
   * neither. The UPDATE … WHERE used_at IS NULL is the single-use rule: of concurrent claims of
   * one message exactly one updates the row. The unique key on public_key is the one-pass rule:
   * a concurrent claim by the same wallet waits for the first insert, then finds its pass.
   */
  redeemMessage(params: { nonceHash: string; publicKey: string; now: Date; newPass: NewPass }): Promise<Redemption> {
    const { nonceHash, publicKey, now, newPass } = params;
    return this.guard((db, deadline) =>
      db.transaction(async (tx): Promise<Redemption> => {
        // A claim whose caller was already answered 503 must not happen later: the transaction
        // may only start, and later commit, before its deadline (see guard).
        deadline.throwIfAborted();
        const used = await tx
          .update(signInMessages)
          .set({ usedAt: now })
          .where(
            and(
              eq(signInMessages.nonceHash, nonceHash),
              eq(signInMessages.publicKey, publicKey),
              isNull(signInMessages.usedAt),
              gt(signInMessages.expiresAt, now),
            ),
          )
          .returning({ nonceHash: signInMessages.nonceHash });
        if (used.length === 0) {
          const [row] = await tx
            .select({ usedAt: signInMessages.usedAt })
            .from(signInMessages)
            .where(and(eq(signInMessages.nonceHash, nonceHash), eq(signInMessages.publicKey, publicKey)));
          if (!row) return { kind: 'not_issued' };
          return row.usedAt ? { kind: 'already_used' } : { kind: 'expired' };
        }
        const [created] = await tx
          .insert(passes)
          .values(newPass)
          .onConflictDoNothing({ target: passes.publicKey })
          .returning(passInfoColumns);
        const [existing] = created ? [created] : await tx.select(passInfoColumns).from(passes).where(eq(passes.publicKey, publicKey));
        if (!existing) throw new Error('pass conflict without a pass row');
        deadline.throwIfAborted(); // throwing here rolls the transaction back instead of committing it
        return { kind: created ? 'created' : 'existing', pass: existing };
      }),
    );
  }

  findPassByDownloadIdHash(downloadIdHash: string): Promise<PassWithFile | undefined> {
    return this.guard(async (db) => {
      const [row] = await db.select().from(passes).where(eq(passes.downloadIdHash, downloadIdHash));
      return row;
    });
  }

  findPassBySerial(serialNumber: string): Promise<PassInfo | undefined> {
    return this.guard(async (db) => {
      const [row] = await db.select(passInfoColumns).from(passes).where(eq(passes.serialNumber, serialNumber));
      return row;
    });
  }

  /**
   * Keeps the first built file of a pass: concurrent first downloads may both build one, and the
   * later writer gets the stored bytes back, so every download of a pass is byte-identical.
   */
  savePassFile(serialNumber: string, pkpass: Buffer, etag: string): Promise<{ pkpass: Buffer; etag: string }> {
    return this.guard(async (db) => {
      const [saved] = await db
        .update(passes)
        .set({ pkpass, pkpassEtag: etag })
        .where(and(eq(passes.serialNumber, serialNumber), isNull(passes.pkpass)))
        .returning({ serialNumber: passes.serialNumber });
      if (saved) return { pkpass, etag };
      const [stored] = await db
        .select({ pkpass: passes.pkpass, etag: passes.pkpassEtag })
        .from(passes)
        .where(eq(passes.serialNumber, serialNumber));
      if (!stored?.pkpass || !stored.etag) throw new Error('pass file vanished');
      return { pkpass: stored.pkpass, etag: stored.etag };
    });
  }

  /** Deletes messages that expired before `before`; returns how many. */
  purgeMessagesExpiredBefore(before: Date): Promise<number> {
    return this.guard(async (db) => {
      let total = 0;
      for (;;) {
        const batch = db
          .select({ nonceHash: signInMessages.nonceHash })
          .from(signInMessages)
          .where(lt(signInMessages.expiresAt, before))
          .limit(PURGE_BATCH);
        const deleted = await db
          .delete(signInMessages)
          .where(inArray(signInMessages.nonceHash, batch))
          .returning({ nonceHash: signInMessages.nonceHash });
        total += deleted.length;
        if (deleted.length < PURGE_BATCH) return total;
      }
    });
  }

  close(): Promise<void> {
    return this.database.close();
  }

  /**
   * Runs one operation; a database that is down, refusing, or too slow becomes the contract's
   * 503 service_unavailable instead of a 500 or a hang. The server enforces DATABASE_TIMEOUT_MS
   * on each statement and lock wait; this client-side deadline (a little longer) also covers
   * what the server cannot time: a connection that never opens, a host that stopped answering,
   * a query queued behind a pool that is stuck. The operation is told through `deadline`, so
   * that work still queued when its caller was answered can refuse to start. While the database
   * is unreachable, operations fail at once but for one probe at a time (see availability.ts).
   */
  private async guard<T>(operation: (db: Db, deadline: AbortSignal) => Promise<T>): Promise<T> {
    const { admitted, probe } = this.availability.admit();
    if (!admitted) throw unavailable();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new DatabaseTimeout());
        reject(controller.signal.reason);
      }, this.timeoutMs + DEADLINE_MARGIN_MS);
    });
    try {
      const result = await Promise.race([operation(this.database.db, controller.signal), deadline]);
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
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
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
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const message = String((e as { message?: unknown }).message ?? '');
    if (typeof code === 'string') {
      if (UNREACHABLE_CODES.has(code) || /^(08|57P0[123])/.test(code)) return 'unreachable';
      if (code === 'ECONNRESET' || code === 'EPIPE' || /^(57|53|40)/.test(code) || code === '55P03') return 'busy';
    }
    if (UNREACHABLE_MESSAGES.test(message)) return 'unreachable';
    if (BUSY_MESSAGES.test(message)) return 'busy';
  }
  return undefined;
}
