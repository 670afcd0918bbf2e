// Tables. The atomic rules live here, where they cannot race: a message's single use is one
// conditional UPDATE (see store.ts), and one pass per wallet is the unique key on public_key.
import { customType, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
});

export type SignInMessageRow = typeof signInMessages.$inferSelect;
export type PassRow = typeof passes.$inferSelect;
