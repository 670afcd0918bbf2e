// Tables. The atomic rules live here, where they cannot race: a message's single use is one
// conditional UPDATE (see store.ts), and one pass per wallet is the unique key on public_key.
import { customType, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
  },
  (t) => [index('sign_in_messages_expires_at_idx').on(t.expiresAt)],
);

/** One pass per wallet. */
export const passes = pgTable('passes', {
  /** Public identifier printed on the pass (its QR code leads to /verify?serial=). */
  serialNumber: text('serial_number').primaryKey(),
  /**
   * SHA-256 (hex) of the download id: what /download looks up. The id itself is not stored: it is
   * HMAC-SHA256(download id key, serial), derived again for a returning wallet (lib/passes/download-id.ts).
   */
  downloadIdHash: text('download_id_hash').notNull().unique(),
  publicKey: text('public_key').notNull().unique(),
  walletType: text('wallet_type').notNull(),
  claimedAt: instant('claimed_at').notNull(),
  /** The signed .pkpass, built on first download and kept so the bytes (and ETag) never change. */
  pkpass: bytea('pkpass'),
  pkpassEtag: text('pkpass_etag'),
});

// ---- Hardening: the per-key cap on pending messages ----

/**
 * The pending (unused, unexpired) messages of each public key, as {nonce hash: expiry in epoch
 * ms}: the row an init locks and checks, in the same statement as its insert, so concurrent inits
 * of one key on any number of instances cannot exceed PENDING_MESSAGES_PER_KEY. A claim removes
 * its message; expired entries are dropped on the next init, rows once everything expired.
 */
export const walletPending = pgTable(
  'wallet_pending',
  {
    publicKey: text('public_key').primaryKey(),
    pending: jsonb('pending').$type<Record<string, number>>().notNull(),
    /** The latest expiry in `pending`: past it the row holds nothing, and the purge deletes it. */
    lastExpiresAt: instant('last_expires_at').notNull(),
  },
  (t) => [index('wallet_pending_last_expires_at_idx').on(t.lastExpiresAt)],
);

export type SignInMessageRow = typeof signInMessages.$inferSelect;
export type PassRow = typeof passes.$inferSelect;
