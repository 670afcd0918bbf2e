// Tables. The atomic rules live here, where they cannot race: a message's single use is one
// conditional UPDATE (see store.ts), and one pass per wallet is the unique key on public_key.
import { sql } from 'drizzle-orm';
import { bigserial, boolean, customType, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * Programs: the kinds of pass an operator issues (lib/programs, docs/programs.md). `default` is
 * the service of parts one and two: no design of its own (the wallet-brand designs), no policy of
 * its own (CLAIM_POLICY). `issued` counts its passes ever created: the supply rule is one
 * conditional UPDATE of it, in the claim's statement (lib/db/passes.ts).
 */
export const programs = pgTable('programs', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  /** `draft` (operators only), `live` or `closed`. */
  status: text('status').notNull().default('draft'),
  opensAt: instant('opens_at'),
  closesAt: instant('closes_at'),
  /** At most this many passes, ever; null: no limit. */
  supply: integer('supply'),
  /** Passes created so far (never decreases: a voided pass still took its place in the supply). */
  issued: integer('issued').notNull().default(0),
  /** A CLAIM_POLICY rule (JSON); null: anyone (or, for `default`, CLAIM_POLICY). */
  policy: jsonb('policy'),
  /** `once`, `daily` or `unlimited`. */
  checkIn: text('check_in').notNull().default('once'),
  /** The design (lib/programs/schema.ts); null: the wallet-brand designs of the default program. */
  design: jsonb('design'),
  createdAt: instant('created_at').notNull().default(sql`now()`),
  /** Moves on every change of the program: what its passes' files are built from. */
  updatedAt: instant('updated_at').notNull().default(sql`now()`),
  /** The latest message to its holders (lib/updates): every active pass shows it on its back, with a changeMessage. */
  message: text('message'),
  messageAt: instant('message_at'),
});

/**
 * A program's images, as the pass carries them: each upload decoded, re-encoded and resized once
 * into Apple's @1x, @2x and @3x files (lib/programs/images.ts). The upload's own bytes are never kept.
 */
export const programImages = pgTable(
  'program_images',
  {
    program: text('program')
      .notNull()
      .references(() => programs.slug),
    /** `logo`, `icon`, `strip`, `thumbnail` or `background`. */
    kind: text('kind').notNull(),
    /** The file's name in the pass: `logo.png`, `logo@2x.png`, `logo@3x.png`. */
    file: text('file').notNull(),
    bytes: bytea('bytes').notNull(),
    /** SHA-1 (hex) of the bytes: the pass manifest's entry, computed once. */
    sha1: text('sha1').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
  },
  (t) => [primaryKey({ columns: [t.program, t.file] })],
);

/** One pass per wallet per program. */
export const passes = pgTable(
  'passes',
  {
    /** Public identifier printed on the pass (its QR code leads to /verify?serial=). */
    serialNumber: text('serial_number').primaryKey(),
    /**
     * SHA-256 (hex) of the download id: what /download looks up. The id itself is not stored: it is
     * HMAC-SHA256(download id key, serial), derived again for a returning wallet (lib/passes/download-id.ts).
     */
    downloadIdHash: text('download_id_hash').notNull().unique(),
    publicKey: text('public_key').notNull(),
    /** The program the pass belongs to. */
    program: text('program')
      .notNull()
      .default('default')
      .references(() => programs.slug),
    walletType: text('wallet_type').notNull(),
    claimedAt: instant('claimed_at').notNull(),
    /**
     * The ETag of the pass's current .pkpass. The file itself is not stored (it holds the
     * authenticationToken): it is rebuilt, byte for byte, from the pass and pkpass_modified_at.
     */
    pkpassEtag: text('pkpass_etag'),
    /** `active` or `voided` (lib/passes/lifecycle.ts). */
    status: text('status').notNull().default('active'),
    /** Why the pass was voided (an operator's words, or `not_eligible`); null while active. */
    voidReason: text('void_reason'),
    /** Moves on every change of the pass; equals claimed_at at creation. */
    updatedAt: instant('updated_at').notNull().default(sql`now()`),
    /** Set by an operator: after it, Wallet shows the pass as expired and the scanner check refuses it. */
    expirationDate: instant('expires_at'),
    /** Set by an operator: when Wallet brings the pass forward (an event's start). */
    relevantDate: instant('relevant_at'),
    // ---- Living passes (docs/living-passes.md) ----
    /** SHA-256 (hex) of the pass's authenticationToken (derived, never stored): set when its file is first built. */
    authTokenHash: text('auth_token_hash'),
    /** The updated_at the recorded file was built for: when it differs, the next request builds the new version's. */
    pkpassBuiltFor: instant('pkpass_built_for'),
    /** The file's Last-Modified and its signature's signing time (whole seconds, later than the previous file's). */
    pkpassModifiedAt: instant('pkpass_modified_at'),
    /**
     * The pass file format the recorded file was built in (lib/passes/living.ts, PASS_FILE_FORMAT); null:
     * before formats were numbered. A file of an older format is built anew, with a later Last-Modified.
     */
    pkpassFormat: integer('pkpass_format'),
    /** When Google's API confirmed the pass's Generic object exists. */
    googleObjectAt: instant('google_object_at'),
    /** When a Save to Google Wallet link was first handed out. */
    googleLinkedAt: instant('google_linked_at'),
  },
  // The operator's list pages through passes newest first, and the stats count claims per day.
  (t) => [
    index('passes_claimed_at_idx').on(t.claimedAt, t.serialNumber),
    // One pass per wallet per program: the claim's insert does nothing on a conflict here.
    uniqueIndex('passes_program_public_key_idx').on(t.program, t.publicKey),
    index('passes_public_key_idx').on(t.publicKey),
    // An update reads a program's passes by serial range (a batch of lib/updates), whatever other programs hold.
    index('passes_program_serial_number_idx').on(t.program, t.serialNumber),
  ],
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
  (t) => [
    primaryKey({ columns: [t.deviceLibraryIdentifier, t.serialNumber] }),
    // A change pushes every device of one pass, and operators count them per pass: by serial. An
    // update pages through a program's devices in (serial, device) order: the keyset of lib/updates.
    index('device_registrations_serial_device_idx').on(t.serialNumber, t.deviceLibraryIdentifier),
  ],
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
    /** "host/pid/random", one per attempt: the instance holding the job, and only that attempt may record its outcome. */
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    doneAt: instant('done_at'),
    failedAt: instant('failed_at'),
    createdAt: instant('created_at').notNull().default(sql`now()`),
    /** Set on a job that must not be enqueued twice (pass.scanned: its serial and minute): a second insert of the same one is dropped. */
    dedupeKey: text('dedupe_key'),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`done_at is null and failed_at is null`),
    index('jobs_kind_idx').on(t.kind, t.id),
    // The hourly purge reads the oldest finished jobs by these, never the whole table (on the
    // embedded database a scan of it holds every request of the process).
    index('jobs_done_idx').on(t.doneAt).where(sql`done_at is not null`),
    index('jobs_failed_idx').on(t.failedAt).where(sql`failed_at is not null`),
    // Unique, so that concurrent enqueues of one key leave one row on any database, with no lock.
    uniqueIndex('jobs_dedupe_key_idx').on(t.kind, t.dedupeKey).where(sql`dedupe_key is not null`),
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
  /** `operator` (every operator endpoint) or `scan` (checking passes in, and listing programs: lib/operators/auth.ts). */
  scope: text('scope').notNull().default('operator'),
});

/**
 * Admissions at the door (lib/check-in). The program's `checkIn` rule is the unique index: each
 * admission has a key, `once` for a program checked in once, the UTC date for `daily`, a value of
 * its own for `unlimited`; an admission whose key the pass already has is not inserted. So of two
 * doors scanning one pass at once, on any number of instances, exactly one inserts.
 */
export const checkIns = pgTable(
  'check_ins',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serialNumber: text('serial_number')
      .notNull()
      .references(() => passes.serialNumber),
    /** The pass's program (a pass never changes program): what stats filter on. */
    program: text('program').notNull(),
    /** `once`, the UTC day (YYYY-MM-DD) or `unlimited:<unique>`: at most one admission per pass per key. */
    admissionKey: text('admission_key').notNull(),
    checkedInAt: instant('checked_in_at').notNull(),
  },
  (t) => [
    uniqueIndex('check_ins_serial_number_admission_key_idx').on(t.serialNumber, t.admissionKey),
    index('check_ins_checked_in_at_idx').on(t.checkedInAt, t.program),
    // A pass's first admission, one probe: without it, min(checked_in_at) of one pass may walk the
    // index above in time order (PGlite without statistics, and PostgreSQL once the table had a
    // few thousand rows, planned exactly that).
    index('check_ins_serial_number_checked_in_at_idx').on(t.serialNumber, t.checkedInAt),
  ],
);

// --- Eligibility re-checks (lib/eligibility/recheck.ts) ---------------------------------------

/** Each re-check round against CLAIM_POLICY: what the console shows as "the last round". */
export const eligibilityRounds = pgTable(
  'eligibility_rounds',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    startedAt: instant('started_at').notNull(),
    finishedAt: instant('finished_at'),
    checked: integer('checked').notNull().default(0),
    voided: integer('voided').notNull().default(0),
    restored: integer('restored').notNull().default(0),
    /** Passes the round set out to check (every program with a policy), counted when it started. */
    total: integer('total').notNull().default(0),
    /** RPC requests the round sent (retries included). */
    requests: integer('requests').notNull().default(0),
    /** Why the round stopped early (the RPC did not answer); null when it finished. */
    error: text('error'),
  },
  (t) => [index('eligibility_rounds_started_at_idx').on(t.startedAt)],
);

/**
 * Row 1: which instance runs a round now, until when, and when the last round began. Taking it
 * is one conditional UPDATE, so of several instances exactly one starts a round per interval.
 * Row 2: which instance holds the PubSub subscriptions (SOLANA_WS_URL), until when.
 */
export const eligibilityLease = pgTable('eligibility_lease', {
  id: integer('id').primaryKey(),
  holder: text('holder'),
  leaseUntil: instant('lease_until').notNull(),
  lastStartedAt: instant('last_started_at'),
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

// --- Reaching every holder ------------------------------------------------------------------

/**
 * Device registrations made and ended, per UTC day and program: what stats chart as installs and
 * uninstalls. A registration's row is deleted when it ends, so the count is kept here, upserted
 * by the statement that inserts or deletes it (lib/db/registrations.ts).
 */
export const deviceRegistrationDays = pgTable(
  'device_registration_days',
  {
    day: date('day', { mode: 'string' }).notNull(),
    program: text('program').notNull(),
    installs: integer('installs').notNull().default(0),
    uninstalls: integer('uninstalls').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.program] })],
);

/**
 * The notifying messages (TEXT_AND_NOTIFY) sent to each pass's Google object in the last 24 hours,
 * `[{id, at}]` (at: ms since the epoch): Google notifies at most 3 times a day per pass and refuses
 * a 4th, so one conditional upsert takes a notification or says no (lib/db/google-notifications.ts).
 */
export const googleNotifications = pgTable('google_notifications', {
  serialNumber: text('serial_number')
    .primaryKey()
    .references(() => passes.serialNumber),
  notified: jsonb('notified').$type<{ id: string; at: number }[]>().notNull(),
});

export type SignInMessageRow = typeof signInMessages.$inferSelect;

/**
 * Updates (lib/updates): a program change or a message, reaching every device of the program's
 * passes. Planning cuts the devices into batches, each a range of keys (serial, device); the counters move only in the statement that marks a batch done, so they count
 * each device once however often a batch runs. Done when planned and every batch is done.
 */
export const updates = pgTable(
  'updates',
  {
    id: text('id').primaryKey(),
    program: text('program')
      .notNull()
      .references(() => programs.slug),
    /** `change` or `message`. */
    kind: text('kind').notNull(),
    /** `running` or `done`. */
    status: text('status').notNull().default('running'),
    /** A message reaches the active passes only; a change every pass. */
    activeOnly: boolean('active_only').notNull(),
    passes: integer('passes').notNull(),
    /** The devices counted when the update was made; once planned, devices_planned + devices_delta is exact. */
    devicesEstimate: integer('devices_estimate').notNull(),
    devicesPlanned: integer('devices_planned').notNull().default(0),
    /** Devices registered or removed inside a batch's range between planning and its run. */
    devicesDelta: integer('devices_delta').notNull().default(0),
    devicesPushed: integer('devices_pushed').notNull().default(0),
    devicesFailed: integer('devices_failed').notNull().default(0),
    /** Batches made (by planning and by retries) and done. */
    batches: integer('batches').notNull().default(0),
    batchesDone: integer('batches_done').notNull().default(0),
    planned: boolean('planned').notNull().default(false),
    startedAt: instant('started_at').notNull(),
    finishedAt: instant('finished_at'),
  },
  (t) => [index('updates_started_at_idx').on(t.startedAt)],
);

/**
 * The batches of an update: a range of its devices in keyset order (after_* exclusive, last_*
 * inclusive), or, for a retry, the devices whose push is to be tried again. done_at is set once,
 * by the statement that records the batch's outcomes.
 */
export const updateBatches = pgTable(
  'update_batches',
  {
    updateId: text('update_id')
      .notNull()
      .references(() => updates.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    afterSerial: text('after_serial'),
    afterDevice: text('after_device'),
    lastSerial: text('last_serial'),
    lastDevice: text('last_device'),
    /** Devices planned in it. */
    devices: integer('devices').notNull(),
    /** A retry's devices: [{serialNumber, deviceLibraryIdentifier, pushToken}]. */
    retry: jsonb('retry'),
    attempt: integer('attempt').notNull().default(1),
    doneAt: instant('done_at'),
  },
  (t) => [primaryKey({ columns: [t.updateId, t.key] })],
);
