// The named storage operations the claim use case needs. Every rule that could race is one SQL
// statement or one transaction here, never a read-then-write in JavaScript.
import { and, eq, gt, inArray, isNull, lt } from 'drizzle-orm';
import { AppError } from '../errors';
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
  constructor(
    private readonly database: Database,
    /** Past this, an operation is answered as "database unavailable" even if it is still pending. */
    private readonly timeoutMs: number,
  ) {}

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
    return this.guard((db) =>
      db.transaction(async (tx): Promise<Redemption> => {
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
        if (created) return { kind: 'created', pass: created };
        const [existing] = await tx.select(passInfoColumns).from(passes).where(eq(passes.publicKey, publicKey));
        if (!existing) throw new Error('pass conflict without a pass row');
        return { kind: 'existing', pass: existing };
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
   * 503 service_unavailable instead of a 500 or a hang.
   */
  private async guard<T>(operation: (db: Db) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseTimeout()), this.timeoutMs + 500);
    });
    try {
      return await Promise.race([operation(this.database.db), deadline]);
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        throw new AppError('service_unavailable', 'The database is not answering. Nothing was changed; retry shortly.');
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

class DatabaseTimeout extends Error {}

const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * SQLSTATE classes that mean "not now" rather than "bad query": connection exceptions (08),
 * operator intervention such as shutdown or statement timeout (57), insufficient resources (53),
 * lock timeout (55P03), and serialization failures and deadlocks (40).
 */
function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseTimeout) return true;
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (UNAVAILABLE_NODE_CODES.has(code)) return true;
      if (/^(08|57|53|40)/.test(code) || code === '55P03') return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /PGlite is closed/i.test(message)) return true;
  }
  return false;
}
