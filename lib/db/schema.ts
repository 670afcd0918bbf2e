// Tables. The atomic rules live here, where they cannot race: a message's single use is one
// conditional UPDATE (see store.ts), and one pass per wallet is the unique key on public_key.
import { sql } from 'drizzle-orm';
import { bigserial, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Sign-in messages this service issued. Looked up by a hash of the nonce, never the nonce itself. */
export const signInMessages = pgTable(
  'sign_in_messages',
  {
    /** SHA-256 (hex) of the nonce: the lookup key, so index timing says nothing about a nonce. */
    nonceHash: text('nonce_hash').primaryKey(),
    publicKey: text('public_key').notNull(),
    /** The exact text handed out; its fields are what a wallet-built text must equal. */
    message: text('message').notNull(),
    issuedAt: instant('issued_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    /** Set once, by the claim that used the message, in the same transaction as its pass. */
    usedAt: instant('used_at'),
    /**
     * What the message is for: `claim` (a pass) or `operator` (an operator session). An operator
     * message is also stored under a differently derived nonce hash (lib/operators/sessions.ts),
     * so the claim's lookup never finds one; this column records it for the operator's check.
     */
    purpose: text('purpose').notNull().default('claim'),
  },
  (t) => [index('sign_in_messages_expires_at_idx').on(t.expiresAt)],
);

/** One pass per wallet. */
export const passes = pgTable(
  'passes',
  {
  /** Public identifier printed on the pass (its QR code leads to /verify?serial=). */
  serialNumber: text('serial_number').primaryKey(),
  /** The secret id of the download link, returned again to a returning wallet. */
  downloadId: text('download_id').notNull(),
  /** SHA-256 (hex) of downloadId: what /download looks up. */
  downloadIdHash: text('download_id_hash').notNull().unique(),
  publicKey: text('public_key').notNull().unique(),
  walletType: text('wallet_type').notNull(),
  claimedAt: instant('claimed_at').notNull(),
  /** The signed .pkpass, built on first download and kept so the bytes (and ETag) never change. */
  pkpass: bytea('pkpass'),
  pkpassEtag: text('pkpass_etag'),
  /** `active` or `voided` (lib/passes/lifecycle.ts). */
  status: text('status').notNull().default('active'),
  /** Why the pass was voided (an operator's words, or `not_eligible`); null while active. */
  voidReason: text('void_reason'),
  /** Moves on every change of the pass; equals claimed_at at creation. */
  updatedAt: instant('updated_at').notNull().default(sql`now()`),
  },
  // The operator's list pages through passes newest first, and the stats count claims per day.
  (t) => [index('passes_claimed_at_idx').on(t.claimedAt, t.serialNumber)],
);

// ---- Operators, the job queue and webhooks (docs/operators.md) ----

/**
 * Apple Wallet devices that registered a pass. The living-passes branch owns it and declares it
 * identically; it is here so the operator's device counts work before that merge.
 */
export const deviceRegistrations = pgTable(
  'device_registrations',
  {
    deviceLibraryIdentifier: text('device_library_identifier'),
    serialNumber: text('serial_number').references(() => passes.serialNumber),
    pushToken: text('push_token'),
    createdAt: instant('created_at'),
  },
  (t) => [primaryKey({ columns: [t.deviceLibraryIdentifier, t.serialNumber] })],
);

/**
 * The durable job queue (lib/queue). A job is claimed with FOR UPDATE SKIP LOCKED and a lease
 * (locked_until, locked_by): one instance runs it, and a killed instance's job runs again
 * elsewhere once the lease has passed.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    /** Not before this time: the next attempt. */
    runAt: instant('run_at').notNull().default(sql`now()`),
    attempts: integer('attempts').notNull().default(0),
    /** The lease of the attempt under way; after it, another instance may take the job. */
    lockedUntil: instant('locked_until'),
    /** A random token per attempt: only that attempt may record its outcome. */
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    doneAt: instant('done_at'),
    failedAt: instant('failed_at'),
    createdAt: instant('created_at').notNull().default(sql`now()`),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`done_at is null and failed_at is null`),
    index('jobs_kind_idx').on(t.kind, t.id),
  ],
);

/** Operator sessions: the token's SHA-256 only. */
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    publicKey: text('public_key').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    revokedAt: instant('revoked_at'),
  },
  (t) => [index('operator_sessions_expires_at_idx').on(t.expiresAt)],
);

/** Operator API keys: long-lived bearer tokens for automation, the key's SHA-256 only. */
export const operatorApiKeys = pgTable('operator_api_keys', {
  id: text('id').primaryKey(),
  keyHash: text('key_hash').notNull().unique(),
  name: text('name'),
  /** The operator wallet that created it: the key stops working when that wallet leaves OPERATOR_WALLETS. */
  createdBy: text('created_by').notNull(),
  createdAt: instant('created_at').notNull(),
  lastUsedAt: instant('last_used_at'),
  revokedAt: instant('revoked_at'),
});

export type SignInMessageRow = typeof signInMessages.$inferSelect;
export type PassRow = typeof passes.$inferSelect;
